// Package nvvmop is the start of the domain of single NVVM ops as an
// installation defines them (fuzz/opsurface): a case is an op, the types
// of its operands and results, its attributes' values, and the target and
// PTX ISA version it is judged for, written in the generic MLIR form that
// every release parses. Its values are names and spellings, not indices
// into one installation's surface, so a case means the same op on every
// installation that has it.
package nvvmop

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/opsurface"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Name is the domain's name.
const Name = "nvvmop"

// Value is one case.
type Value struct {
	// Op is the op's MLIR name ("nvvm.shfl.sync").
	Op string
	// Operands is the type of each operand value, in order, or for an
	// operand that must be an immediate its constant ("128 : i32",
	// Constant).
	Operands []string
	// Segments are the values of each operand group, for an op with
	// AttrSizedOperandSegments; nil for any other.
	Segments []int
	// Results is the type of each result.
	Results []string
	// Attrs are the attributes given, sorted by name.
	Attrs []Attr
	// Arch is the target and PTX ISA version.
	Arch target.Target
}

// Attr is one attribute and its value as the generic form writes it.
type Attr struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Target is the target and PTX ISA version the case is judged for.
func (v Value) Target() target.Target { return v.Arch }

// codecVersion is the first byte of the canonical form.
const codecVersion = 1

// Encode is the canonical form: a version byte, then the strings and
// counts each with its length (uvarint), then the target's two bytes.
func (v Value) Encode() []byte {
	b := []byte{codecVersion}
	str := func(s string) { b = binary.AppendUvarint(b, uint64(len(s))); b = append(b, s...) }
	strs := func(list []string) {
		b = binary.AppendUvarint(b, uint64(len(list)))
		for _, s := range list {
			str(s)
		}
	}
	str(v.Op)
	strs(v.Operands)
	b = binary.AppendUvarint(b, uint64(len(v.Segments)))
	for _, n := range v.Segments {
		b = binary.AppendUvarint(b, uint64(n))
	}
	strs(v.Results)
	b = binary.AppendUvarint(b, uint64(len(v.Attrs)))
	for _, a := range v.Attrs {
		str(a.Name)
		str(a.Value)
	}
	return v.Arch.Encode(b)
}

// Generic writes the case as a function named fn whose arguments are the
// op's operands, holding the op in MLIR's generic form; an operand that
// is a constant (Constant) is an llvm.mlir.constant in the body instead.
func (v Value) Generic(fn string) string {
	var params, consts []string
	args := make([]string, len(v.Operands))
	types := make([]string, len(v.Operands))
	for i, o := range v.Operands {
		args[i], types[i] = fmt.Sprintf("%%a%d", i), operandType(o)
		if value, typ, ok := splitConstant(o); ok {
			consts = append(consts, fmt.Sprintf("  %%a%d = llvm.mlir.constant(%s : %s) : %s\n", i, value, typ, typ))
			continue
		}
		params = append(params, fmt.Sprintf("%%a%d: %s", i, o))
	}
	var props []string
	for _, a := range v.Attrs {
		props = append(props, a.Name+" = "+a.Value)
	}
	if v.Segments != nil {
		sizes := make([]string, len(v.Segments))
		for i, n := range v.Segments {
			sizes[i] = strconv.Itoa(n)
		}
		props = append(props, "operandSegmentSizes = array<i32: "+strings.Join(sizes, ", ")+">")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "llvm.func @%s(%s) {\n%s  ", fn, strings.Join(params, ", "), strings.Join(consts, ""))
	switch len(v.Results) {
	case 0:
	case 1:
		b.WriteString("%r = ")
	default:
		fmt.Fprintf(&b, "%%r:%d = ", len(v.Results))
	}
	fmt.Fprintf(&b, "%q(%s) ", v.Op, strings.Join(args, ", "))
	if len(props) > 0 {
		fmt.Fprintf(&b, "<{%s}> ", strings.Join(props, ", "))
	}
	fmt.Fprintf(&b, ": (%s) -> (%s)\n  llvm.return\n}\n", strings.Join(types, ", "), strings.Join(v.Results, ", "))
	return b.String()
}

// First is the op's first case: its first types, one value for each
// variadic or optional operand group (an immediate's first constant), its
// required attributes with their first values, on the first known target its NVVMRequiresSM traits allow
// (at that target's first PTX ISA version). An op the surface cannot
// write has none.
func First(op opsurface.Op) (Value, error) {
	if op.Unusable != nil {
		return Value{}, fmt.Errorf("%s: not instantiable: %s", op.Name, op.Unusable)
	}
	t, err := firstTarget(op.Targets)
	if err != nil {
		return Value{}, fmt.Errorf("%s: %w", op.Name, err)
	}
	v := Value{Op: op.Name, Arch: t}
	for _, o := range op.Operands {
		v.Operands = append(v.Operands, spell(op.Name, o, 0, 0))
		if op.SegmentSizes {
			v.Segments = append(v.Segments, 1)
		}
	}
	for _, r := range op.Results {
		v.Results = append(v.Results, r.Types[0])
	}
	for _, a := range op.Attrs {
		if !a.Optional {
			v.Attrs = append(v.Attrs, Attr{Name: a.Name, Value: a.First()})
		}
	}
	slices.SortFunc(v.Attrs, func(a, b Attr) int { return strings.Compare(a.Name, b.Name) })
	return v, nil
}

// firstTarget is the first known target a requirement allows.
func firstTarget(req opsurface.Requirement) (target.Target, error) {
	for _, k := range target.Known() {
		if len(req.Only) > 0 {
			if slices.Contains(req.Only, k.Arch.String()) {
				return k, nil
			}
			continue
		}
		if k.Arch.SM >= req.MinSM && k.Arch.Suffix == "" {
			return k, nil
		}
	}
	return target.Target{}, fmt.Errorf("no known target is %v", req)
}

// valueJSON is the JSON form: attributes by name, the target as every
// domain spells it.
type valueJSON struct {
	Op       string            `json:"op"`
	Operands []string          `json:"operands,omitempty"`
	Segments []int             `json:"segments,omitempty"`
	Results  []string          `json:"results,omitempty"`
	Attrs    map[string]string `json:"attrs,omitempty"`
	target.JSON
}

// defaultArch is the target of a case whose JSON names none.
var defaultArch = target.MustParse("sm_90", "").Arch

// MarshalJSON writes the JSON form.
func (v Value) MarshalJSON() ([]byte, error) {
	j := valueJSON{Op: v.Op, Operands: v.Operands, Segments: v.Segments, Results: v.Results, JSON: v.Arch.ToJSON()}
	if len(v.Attrs) > 0 {
		j.Attrs = map[string]string{}
		for _, a := range v.Attrs {
			j.Attrs[a.Name] = a.Value
		}
	}
	return json.Marshal(j)
}

// ParseJSON parses the strict JSON form: "op" is required, every type and
// attribute value is written as the generic form writes it, "segments"
// (for an op with AttrSizedOperandSegments) add up to the operands, and
// the target defaults to sm_90 at its first PTX ISA version (Check says
// the rest). Whether the op and its spellings exist is the installation's
// to say: a case names the op on every installation alike.
func ParseJSON(data []byte) (Value, error) {
	var j valueJSON
	if err := domain.DecodeStrict(data, &j); err != nil {
		return Value{}, err
	}
	t, err := j.FromJSON(defaultArch)
	if err != nil {
		return Value{}, err
	}
	v := Value{Op: j.Op, Operands: j.Operands, Segments: j.Segments, Results: j.Results, Arch: t}
	for name, value := range j.Attrs {
		v.Attrs = append(v.Attrs, Attr{Name: name, Value: value})
	}
	slices.SortFunc(v.Attrs, func(a, b Attr) int { return strings.Compare(a.Name, b.Name) })
	if err := v.Check(); err != nil {
		return Value{}, err
	}
	return v, nil
}

// OpName is the op's MLIR name: reports count the verdicts of the
// domain's cases per op by it.
func (v Value) OpName() string { return v.Op }
