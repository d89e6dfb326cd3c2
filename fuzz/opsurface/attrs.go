package opsurface

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// AttrKind says what values an attribute takes.
type AttrKind string

// The attribute kinds legalfuzz writes.
const (
	// EnumAttr is a dialect enum attribute (#nvvm.mma_layout<row>) or an
	// integer enum (0 : i32), one value a case.
	EnumAttr AttrKind = "enum"
	// IntAttr is an integer attribute; Values are boundary values.
	IntAttr AttrKind = "integer"
	// BoolAttr is true or false.
	BoolAttr AttrKind = "bool"
	// UnitAttr is present or absent.
	UnitAttr AttrKind = "unit"
	// TypeAttr is a type.
	TypeAttr AttrKind = "type"
	// StructAttr is a dialect attribute of integer parameters
	// (#nvvm.shape<m = 16, n = 8, k = 16>): Params give each one's values.
	StructAttr AttrKind = "struct"
)

// Param is one parameter of a struct attribute and the values a case may
// give it.
type Param struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// Spell writes the attribute with the given value of each parameter (a
// struct attribute; for any other kind, choice[0] indexes Values).
func (a Attr) Spell(choice []int) string {
	if a.Kind != StructAttr {
		return a.Values[choice[0]]
	}
	fields := make([]string, len(a.Params))
	for i, p := range a.Params {
		fields[i] = p.Name + " = " + p.Values[choice[i]]
	}
	return a.Values[0] + "<" + strings.Join(fields, ", ") + ">"
}

// First writes the attribute with the first value of each part.
func (a Attr) First() string { return a.Spell(make([]int, max(1, len(a.Params)))) }

// intParams are the C++ types of struct attribute parameters legalfuzz
// writes as integers.
var intParams = []string{"int", "unsigned", "int32_t", "uint32_t", "int64_t", "uint64_t"}

// structFormat is the assembly format of the struct attributes legalfuzz
// writes: #dialect.mnemonic<a = 1, b = 2>.
const structFormat = "`<` struct(params) `>`"

// intValues are the values written for an integer attribute: the small
// powers of two its rules usually turn on, and -1 (all ones).
var intValues = []int{0, 1, 2, 3, 4, 8, 16, 32, 64, 128, 256, -1}

// wrappers are the attribute classes that constrain or default another
// (their baseAttr): the values are the wrapped attribute's.
var wrappers = []string{"DefaultValuedAttr", "OptionalAttr", "DefaultValuedOptionalAttr", "ConfinedAttr"}

// The assembly formats of the enum attributes legalfuzz writes:
// #dialect.mnemonic<case> and #dialect<mnemonic case>.
const (
	angledFormat = "`<` $value `>`"
	bareFormat   = "$value"
)

// spellAttr reads an attribute constraint: its kind and values (spelled
// as the generic form writes them), whether the op may go without it, or
// the attribute's summary when legalfuzz cannot write it.
func (ts *typeSpeller) spellAttr(name string) (a Attr, unspelled string) {
	r, err := ts.rs.get(name)
	if err != nil {
		return Attr{}, err.Error()
	}
	optional := false
	for depth := 0; depth < 8; depth++ {
		if v, _ := r.num("isOptional"); v == 1 {
			optional = true
		}
		if r.str("defaultValue") != "" {
			optional = true
		}
		if !isWrapper(r) || r.def("baseAttr") == "" {
			break
		}
		name = r.def("baseAttr")
		if r, err = ts.rs.get(name); err != nil {
			return Attr{}, err.Error()
		}
	}
	a = Attr{Optional: optional}
	summary := describe(name, r)
	switch {
	case name == "UnitAttr":
		a.Kind, a.Values, a.Optional = UnitAttr, []string{"unit"}, true
	case name == "BoolAttr":
		a.Kind, a.Values = BoolAttr, []string{"false", "true"}
	case r.isA("EnumAttr"):
		format := strings.TrimSpace(r.str("assemblyFormat"))
		dialect, mnemonic, _ := strings.Cut(r.str("attrName"), ".")
		if format != angledFormat && format != bareFormat {
			return Attr{}, summary + " (assembly format " + strconv.Quote(format) + ")"
		}
		a.Kind = EnumAttr
		for _, c := range ts.enumCases(r.def("enum")) {
			if format == angledFormat {
				a.Values = append(a.Values, "#"+dialect+"."+mnemonic+"<"+c.str("str")+">")
			} else {
				a.Values = append(a.Values, "#"+dialect+"<"+mnemonic+" "+c.str("str")+">")
			}
		}
	case r.isA("IntEnumAttr"):
		a.Kind = EnumAttr
		width, _ := r.num("bitwidth")
		for _, c := range ts.enumCases(name) {
			v, _ := c.num("value")
			a.Values = append(a.Values, strconv.FormatInt(v, 10)+" : i"+strconv.FormatInt(width, 10))
		}
	case r.isA("SignlessIntegerAttrBase"):
		t, _ := ts.spell(r.def("valueType"))
		if len(t) != 1 || !strings.HasPrefix(t[0], "i") {
			return Attr{}, summary
		}
		a.Kind = IntAttr
		for _, v := range intValues {
			a.Values = append(a.Values, strconv.Itoa(v)+" : "+t[0])
		}
	case r.isA("AttrDef") && strings.TrimSpace(r.str("assemblyFormat")) == structFormat:
		params, err := r.dag("parameters")
		if err != nil || len(params) == 0 {
			return Attr{}, summary
		}
		a.Kind, a.Values = StructAttr, []string{"#" + r.str("attrName")}
		for _, p := range params {
			var cpp string
			if json.Unmarshal(p.Value, &cpp) != nil || !slices.Contains(intParams, strings.TrimSpace(cpp)) {
				return Attr{}, summary + " (parameter " + p.Name + " of type " + strconv.Quote(cpp) + ")"
			}
			param := Param{Name: p.Name}
			for _, v := range intValues {
				param.Values = append(param.Values, strconv.Itoa(v))
			}
			a.Params = append(a.Params, param)
		}
	case name == "TypeAttr":
		a.Kind, a.Values = TypeAttr, anyTypes
	case r.isA("TypeAttrOf"):
		a.Kind, a.Values = TypeAttr, ts.alternatives(strings.TrimPrefix(summary, "type attribute of "))
	}
	if len(a.Values) == 0 {
		return Attr{}, summary
	}
	return a, ""
}

// enumCases reads an enum's cases.
func (ts *typeSpeller) enumCases(enum string) []record {
	r, err := ts.rs.get(enum)
	if err != nil {
		return nil
	}
	var out []record
	for _, c := range r.defs("enumerants") {
		if cr, err := ts.rs.get(c); err == nil {
			out = append(out, cr)
		}
	}
	return out
}

func isWrapper(r record) bool {
	for _, w := range wrappers {
		if r.isA(w) {
			return true
		}
	}
	return false
}

// Respell is the attribute's own spelling of an enum value that another
// installation spells the other way (#dialect.mnemonic<case> against
// #dialect<mnemonic case>: LLVM 23 writes NVVM's shuffle kinds the second
// way, trunk the first, and neither parses the other's); v unchanged when
// it is spelled alike, is not an enum value, or names a case the attribute
// does not have.
func (a Attr) Respell(v string) string {
	if a.Kind != EnumAttr || slices.Contains(a.Values, v) {
		return v
	}
	want, ok := enumCase(v)
	if !ok {
		return v
	}
	for _, own := range a.Values {
		if c, ok := enumCase(own); ok && c == want {
			return own
		}
	}
	return v
}

// enumCase reads an enum value in either form as dialect, mnemonic and
// case.
func enumCase(v string) ([3]string, bool) {
	inner, hashed := strings.CutPrefix(v, "#")
	inner, angled := strings.CutSuffix(inner, ">")
	if !hashed || !angled {
		return [3]string{}, false
	}
	head, rest, ok := strings.Cut(inner, "<")
	if !ok {
		return [3]string{}, false
	}
	if dialect, mnemonic, dotted := strings.Cut(head, "."); dotted {
		return [3]string{dialect, mnemonic, rest}, true
	}
	mnemonic, name, ok := strings.Cut(rest, " ")
	return [3]string{head, mnemonic, name}, ok
}
