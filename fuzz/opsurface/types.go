package opsurface

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// anyTypes are the types legalfuzz writes where a constraint takes any
// type (AnyType, LLVM_Type, TypeAttr): the scalar kinds the NVPTX backend
// has registers for, and a pointer.
var anyTypes = []string{"i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64", "!llvm.ptr"}

// anyPointers are the pointers written where any LLVM pointer is allowed:
// generic, global and shared.
var anyPointers = []string{"!llvm.ptr", "!llvm.ptr<1>", "!llvm.ptr<3>"}

// anyStructs are the structs written where any LLVM struct is allowed: the
// shapes of the mma, wmma and wgmma fragments (1 to 8 values of f32, i32,
// f64 or two f16).
var anyStructs = structsOf([]string{"f32", "i32", "f64", "vector<2xf16>"}, []int{1, 2, 4, 8})

func structsOf(elems []string, counts []int) []string {
	var out []string
	for _, e := range elems {
		for _, n := range counts {
			out = append(out, "!llvm.struct<("+strings.TrimSuffix(strings.Repeat(e+", ", n), ", ")+")>")
		}
	}
	return out
}

// rank1Lengths are the lengths written for a fixed-length vector of rank 1
// of no given length.
var rank1Lengths = []string{"2", "4"}

// builderCall matches the C++ a buildable type's record says builds it,
// which names the type: getIntegerType(32), getF32Type(),
// getType<::mlir::Float8E4M3FNType>(), getType<...LLVMPointerType>(3).
var (
	intBuilder   = regexp.MustCompile(`^\$_builder\.getIntegerType\((\d+)\)$`)
	floatBuilder = regexp.MustCompile(`^\$_builder\.get(F16|BF16|F32|F64|F80|F128|TF32|Index)Type\(\)$`)
	typeBuilder  = regexp.MustCompile(`^\$_builder\.getType<(?:::mlir::)?(BFloat16|Float\w+)Type>\(\)$`)
	ptrBuilder   = regexp.MustCompile(`^\$_builder\.getType<::mlir::LLVM::LLVMPointerType>\((\d*)\)$`)
)

// vectorSummary matches the summary TableGen composes for a vector
// constraint: "vector of 16-bit float values of length 2/4",
// "fixed-length vector of 8-bit signless integer or 16-bit signless
// integer values of ranks 1".
var vectorSummary = regexp.MustCompile(`^(?:fixed-length )?vector of (.+) values of (length|ranks) ([\d/ ]+)$`)

// typeSpeller spells type constraints as MLIR types, from one dump.
type typeSpeller struct {
	rs *Records
	// bySummary spells each buildable type's summary ("32-bit float": f32):
	// the words composite constraints are summarized in.
	bySummary map[string]string
}

func newTypeSpeller(rs *Records) *typeSpeller {
	ts := &typeSpeller{rs: rs, bySummary: map[string]string{}}
	for _, name := range rs.InstancesOf("BuildableType") {
		r, err := rs.get(name)
		if err != nil {
			continue
		}
		if s := spellBuilder(r.str("builderCall")); s != "" {
			if _, dup := ts.bySummary[r.str("summary")]; !dup {
				ts.bySummary[r.str("summary")] = s
			}
		}
	}
	return ts
}

// spellBuilder names the type a builder call builds ("" for one it does
// not know).
func spellBuilder(call string) string {
	call = strings.TrimSpace(call)
	if m := intBuilder.FindStringSubmatch(call); m != nil {
		return "i" + m[1]
	}
	if m := floatBuilder.FindStringSubmatch(call); m != nil {
		return strings.ToLower(m[1])
	}
	if m := typeBuilder.FindStringSubmatch(call); m != nil {
		switch m[1] {
		case "BFloat16":
			return "bf16"
		case "FloatTF32":
			return "tf32"
		}
		return "f" + strings.TrimPrefix(m[1], "Float")
	}
	if m := ptrBuilder.FindStringSubmatch(call); m != nil {
		if m[1] == "" || m[1] == "0" {
			return "!llvm.ptr"
		}
		return "!llvm.ptr<" + m[1] + ">"
	}
	return ""
}

// spell returns the types a constraint record allows that legalfuzz can
// write, or the constraint's summary when there is none.
func (ts *typeSpeller) spell(name string) (types []string, unspelled string) {
	r, err := ts.rs.get(name)
	if err != nil {
		return nil, err.Error()
	}
	summary := describe(name, r)
	if s := spellBuilder(r.str("builderCall")); s != "" {
		return []string{s}, ""
	}
	switch {
	case r.isA("Optional"), r.isA("Variadic"):
		return ts.spell(r.def("baseType"))
	case r.isA("AnyTypeOf"):
		var out []string
		for _, t := range r.defs("allowedTypes") {
			s, _ := ts.spell(t)
			out = appendNew(out, s...)
		}
		if len(out) > 0 {
			return out, ""
		}
	case name == "AnyType", name == "LLVM_Type":
		return anyTypes, ""
	case name == "LLVM_AnyStruct":
		return anyStructs, ""
	case r.str("cppType") == "::mlir::LLVM::LLVMPointerType":
		return anyPointers, ""
	case r.str("cppType") == "::mlir::VectorType":
		if out := ts.vectors(summary); len(out) > 0 {
			return out, ""
		}
	}
	return nil, summary
}

// vectors spells a vector constraint from its summary.
func (ts *typeSpeller) vectors(summary string) []string {
	m := vectorSummary.FindStringSubmatch(summary)
	if m == nil {
		return nil
	}
	elems := ts.alternatives(m[1])
	var lengths []string
	switch m[2] {
	case "length":
		lengths = strings.Split(strings.ReplaceAll(m[3], " ", ""), "/")
	case "ranks":
		if strings.TrimSpace(m[3]) != "1" {
			return nil
		}
		lengths = rank1Lengths
	}
	var out []string
	for _, n := range lengths {
		if _, err := strconv.Atoi(n); err != nil {
			return nil
		}
		for _, e := range elems {
			out = append(out, "vector<"+n+"x"+e+">")
		}
	}
	return out
}

// alternatives spells "A or B or C", each a buildable type's summary;
// those it does not know are left out.
func (ts *typeSpeller) alternatives(summary string) []string {
	var out []string
	for _, part := range strings.Split(summary, " or ") {
		if s, ok := ts.bySummary[strings.TrimSpace(part)]; ok {
			out = appendNew(out, s)
		}
	}
	return out
}

// appendNew appends the values list does not hold yet.
func appendNew(list []string, values ...string) []string {
	for _, v := range values {
		if !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}

// describe names a constraint as its record does: its summary, else (an
// anonymous record without one) the class it instantiates.
func describe(name string, r record) string {
	if s := r.str("summary"); s != "" {
		return s
	}
	if sc := r.strings("!superclasses"); len(sc) > 0 && strings.HasPrefix(name, "anonymous_") {
		return sc[len(sc)-1]
	}
	return name
}
