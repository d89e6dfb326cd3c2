// Package opsurface reads a dialect's op surface from the TableGen records
// of an LLVM installation's own .td files (llvm-tblgen --dump-json): each
// op's operands and results with the types they take, its attributes with
// their values, the targets it requires and the intrinsic it lowers to.
// A domain generates from the surface, so every op an installation
// defines is judged the night it appears, without Go code per op; an op
// legalfuzz cannot write is listed with the reason.
package opsurface

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Surface is the ops of one dialect in one installation.
type Surface struct {
	Dialect string `json:"dialect"`
	Ops     []Op   `json:"ops"`
}

// Op is one op as a case writes it in the generic form:
// "nvvm.name"(%operands) <{attributes}> : (types) -> types.
type Op struct {
	// Name is the op's name in MLIR ("nvvm.barrier0").
	Name string `json:"name"`
	// Record is the TableGen record that defines it ("NVVM_Barrier0Op").
	Record   string  `json:"record"`
	Operands []Value `json:"operands,omitempty"`
	Results  []Value `json:"results,omitempty"`
	Attrs    []Attr  `json:"attrs,omitempty"`
	// SegmentSizes says the op has AttrSizedOperandSegments: the generic
	// form names how many values each operand group has.
	SegmentSizes bool        `json:"segment_sizes,omitempty"`
	Targets      Requirement `json:"targets"`
	Lowering     Lowering    `json:"lowering"`
	// Unusable says why legalfuzz cannot write the op; nil when it can.
	Unusable *Reason `json:"unusable,omitempty"`
}

// Value is an operand or result: the types it may have, as MLIR spells them.
type Value struct {
	Name     string   `json:"name"`
	Types    []string `json:"types"`
	Optional bool     `json:"optional,omitempty"`
	Variadic bool     `json:"variadic,omitempty"`
}

// Attr is an attribute and the values a case may give it.
type Attr struct {
	Name string   `json:"name"`
	Kind AttrKind `json:"kind"`
	// Values are spelled as the generic form writes them
	// (#nvvm.shfl_kind<bfly>, 4 : i32); a struct attribute's one value is
	// its name (#nvvm.shape), its Params the values of its parts.
	Values []string `json:"values"`
	Params []Param  `json:"params,omitempty"`
	// Optional says the op verifies without it (optional, defaulted or unit).
	Optional bool `json:"optional,omitempty"`
}

// Requirement is what the op's NVVMRequiresSM traits ask of the target.
type Requirement struct {
	// MinSM is the lowest SM it verifies on (0: any).
	MinSM int `json:"min_sm,omitempty"`
	// Only are the architecture- or family-specific targets it verifies on
	// ("sm_100a", "sm_101f"); empty for none.
	Only []string `json:"only,omitempty"`
}

// LoweringKind says how an op becomes LLVM IR (mlir-translate).
type LoweringKind string

// The lowerings.
const (
	// Intrinsic: the op's record names the intrinsic(s) it calls.
	Intrinsic LoweringKind = "intrinsic"
	// Code: C++ code picks the intrinsic (from the op's attributes) at translation.
	Code LoweringKind = "code"
	// NoLowering: the op has no translation of its own (a pass lowers it).
	NoLowering LoweringKind = "none"
)

// Lowering is how an op translates to LLVM IR.
type Lowering struct {
	Kind LoweringKind `json:"kind"`
	// Intrinsics are LLVM's names of them ("nvvm_barrier0"), for Intrinsic.
	Intrinsics []string `json:"intrinsics,omitempty"`
}

// ReasonKind is why legalfuzz cannot write an op; each is counted in coverage.
type ReasonKind string

// The reasons.
const (
	HasRegion     ReasonKind = "has a region"
	HasSuccessor  ReasonKind = "has successors"
	OperandType   ReasonKind = "operand type"
	ResultType    ReasonKind = "result type"
	AttributeKind ReasonKind = "attribute"
	PropertyKind  ReasonKind = "property"
	// TargetKind: the op verifies only on targets legalfuzz does not know
	// (fuzz/target), so no case can be judged for one.
	TargetKind ReasonKind = "target"
)

// Reason is why an op is not instantiable: the kind, and the words of the
// tool's record (the constraint's summary) that it could not write.
type Reason struct {
	Kind   ReasonKind `json:"kind"`
	Detail string     `json:"detail,omitempty"`
}

func (r Reason) String() string {
	if r.Detail == "" {
		return string(r.Kind)
	}
	return string(r.Kind) + ": " + r.Detail
}

// intrinsicRef matches an intrinsic a translation names in its C++.
var intrinsicRef = regexp.MustCompile(`llvm::Intrinsic::(\w+)`)

// requiresSM matches the NVVMRequiresSM trait's C++ name, which carries
// its targets: SM*10, plus 3 for an architecture-specific target ("a"),
// 2 for a family ("f").
var requiresSM = regexp.MustCompile(`NVVMRequiresSM<([\d,\s]+)>`)

// DialectRecords lists the records of the named dialect's ops ("nvvm").
func DialectRecords(rs *Records, dialect string) []string {
	var out []string
	for _, name := range rs.InstancesOf("Op") {
		r, err := rs.get(name)
		if err != nil {
			continue
		}
		if d, err := rs.get(r.def("opDialect")); err == nil && d.str("name") == dialect {
			out = append(out, name)
		}
	}
	return out
}

// Read reads the surface of the named dialect from a dump. A dump without
// the dialect's ops is an error.
func Read(rs *Records, dialect string) (Surface, error) {
	names := DialectRecords(rs, dialect)
	if len(names) == 0 {
		return Surface{}, fmt.Errorf("no ops of dialect %q in the dump", dialect)
	}
	ts := newTypeSpeller(rs)
	s := Surface{Dialect: dialect}
	for _, name := range names {
		op, err := ts.readOp(name, dialect)
		if err != nil {
			return Surface{}, fmt.Errorf("op %s: %w", name, err)
		}
		s.Ops = append(s.Ops, op)
	}
	slices.SortFunc(s.Ops, func(a, b Op) int { return strings.Compare(a.Name, b.Name) })
	return s, nil
}

// readOp reads one op record.
func (ts *typeSpeller) readOp(name, dialect string) (Op, error) {
	r, err := ts.rs.get(name)
	if err != nil {
		return Op{}, err
	}
	op := Op{Name: dialect + "." + r.str("opName"), Record: name}
	unusable := func(kind ReasonKind, detail string) {
		if op.Unusable == nil {
			op.Unusable = &Reason{Kind: kind, Detail: detail}
		}
	}
	args, err := r.dag("arguments")
	if err != nil {
		return Op{}, err
	}
	for _, a := range args {
		def, ar, err := ts.argument(defOf(a.Value))
		if err != nil {
			return Op{}, fmt.Errorf("argument %s: %w", a.Name, err)
		}
		switch {
		case ar.isA("TypeConstraint"):
			v, why := ts.value(a.Name, def, ar)
			if why != "" {
				unusable(OperandType, why)
			}
			op.Operands = append(op.Operands, v)
		case ar.isA("Attr"):
			at, why := ts.spellAttr(def)
			switch {
			case why == "":
				at.Name = a.Name
				op.Attrs = append(op.Attrs, at)
			case !at.Optional && !optionalAttr(ts.rs, def):
				unusable(AttributeKind, why)
			}
		case ar.isA("Property"):
			unusable(PropertyKind, describe(def, ar))
		default:
			unusable(OperandType, def)
		}
	}
	results, err := r.dag("results")
	if err != nil {
		return Op{}, err
	}
	for _, a := range results {
		def, ar, err := ts.argument(defOf(a.Value))
		if err != nil {
			return Op{}, fmt.Errorf("result %s: %w", a.Name, err)
		}
		v, why := ts.value(a.Name, def, ar)
		if why != "" {
			unusable(ResultType, why)
		}
		op.Results = append(op.Results, v)
	}
	if regions, err := r.dag("regions"); err != nil {
		return Op{}, err
	} else if len(regions) > 0 {
		unusable(HasRegion, "")
	}
	if succ, err := r.dag("successors"); err != nil {
		return Op{}, err
	} else if len(succ) > 0 {
		unusable(HasSuccessor, "")
	}
	for _, t := range r.defs("traits") {
		tr, err := ts.rs.get(t)
		if err != nil {
			continue
		}
		if t == "AttrSizedOperandSegments" {
			op.SegmentSizes = true
		}
		if m := requiresSM.FindStringSubmatch(tr.str("trait")); m != nil {
			op.Targets = requirement(m[1])
		}
	}
	if len(op.Targets.Only) > 0 && !slices.ContainsFunc(op.Targets.Only, known) {
		unusable(TargetKind, "only "+strings.Join(op.Targets.Only, ", "))
	}
	op.Lowering = lowering(r)
	return op, nil
}

// argument reads an argument's constraint, through the Arg and Res
// wrappers that only add a description or memory effects.
func (ts *typeSpeller) argument(def string) (string, record, error) {
	for depth := 0; ; depth++ {
		r, err := ts.rs.get(def)
		if err != nil || depth == 8 || !r.isA("OpVariable") || r.def("constraint") == "" {
			return def, r, err
		}
		def = r.def("constraint")
	}
}

// value reads an operand or result constraint.
func (ts *typeSpeller) value(name, def string, r record) (Value, string) {
	v := Value{Name: name, Optional: r.isA("Optional"), Variadic: r.isA("Variadic")}
	types, why := ts.spell(def)
	v.Types = types
	return v, why
}

// optionalAttr reports whether an attribute an op may omit, however it is
// wrapped (an unspellable optional attribute is left out of the case).
func optionalAttr(rs *Records, name string) bool {
	for depth := 0; depth < 8 && name != ""; depth++ {
		r, err := rs.get(name)
		if err != nil {
			return false
		}
		if v, _ := r.num("isOptional"); v == 1 || r.str("defaultValue") != "" {
			return true
		}
		name = r.def("baseAttr")
	}
	return false
}

// known reports whether legalfuzz knows the target.
func known(arch string) bool { return slices.Contains(target.ArchNames(), arch) }

// requirement decodes NVVMRequiresSM's list of targets.
func requirement(list string) Requirement {
	var req Requirement
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			continue
		}
		sm, kind := n/10, n%10
		switch kind {
		case 3:
			req.Only = append(req.Only, "sm_"+strconv.Itoa(sm)+"a")
		case 2:
			req.Only = append(req.Only, "sm_"+strconv.Itoa(sm)+"f")
		default:
			req.MinSM = sm
		}
	}
	return req
}

// lowering reads how the op translates to LLVM IR.
func lowering(r record) Lowering {
	if e := r.str("llvmEnumName"); e != "" {
		return Lowering{Kind: Intrinsic, Intrinsics: []string{e}}
	}
	b := r.str("llvmBuilder")
	if strings.TrimSpace(b) == "" {
		return Lowering{Kind: NoLowering}
	}
	var names []string
	for _, m := range intrinsicRef.FindAllStringSubmatch(b, -1) {
		names = appendNew(names, m[1])
	}
	if len(names) > 0 {
		return Lowering{Kind: Intrinsic, Intrinsics: names}
	}
	return Lowering{Kind: Code}
}
