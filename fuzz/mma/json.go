package mma

import (
	"encoding/json"
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// jsonForm is the JSON form; every field is optional on input. The types
// use PTX spellings, and "tf32" stands for an f32 operand with tf32_enabled.
type jsonForm struct {
	Sparsity    *string `json:"sparsity"`
	Shape       []int   `json:"shape"`
	ALayout     *string `json:"a_layout"`
	BLayout     *string `json:"b_layout"`
	AType       *string `json:"a_type"`
	BType       *string `json:"b_type"`
	CType       *string `json:"c_type"`
	DType       *string `json:"d_type"`
	TF32Enabled *bool   `json:"tf32_enabled"`
	Satfinite   *bool   `json:"satfinite"`
	BitOp       *string `json:"bit_op"`
	Selector    *int    `json:"selector"`
	target.JSON
}

// DefaultArch is the target of a case that names none.
var DefaultArch = target.Arch{SM: 80}

// MarshalJSON writes every field.
func (v Value) MarshalJSON() ([]byte, error) {
	shape := make([]int, v.ShapeRank)
	for i := range shape {
		shape[i] = int(v.Shape[i])
	}
	sel := int(v.Selector)
	return json.Marshal(jsonForm{
		Sparsity: domain.Ptr(v.Sparsity.String()), Shape: shape,
		ALayout: domain.Ptr(v.ALayout.String()), BLayout: domain.Ptr(v.BLayout.String()),
		AType: domain.Ptr(v.TypeName(v.AType)), BType: domain.Ptr(v.TypeName(v.BType)),
		CType: domain.Ptr(v.CType.String()), DType: domain.Ptr(v.DType.String()),
		TF32Enabled: domain.Ptr(v.TF32), Satfinite: domain.Ptr(v.Satfinite), BitOp: domain.Ptr(v.BitOp.String()),
		Selector: &sel, JSON: v.Tgt.ToJSON(),
	})
}

// ParseJSON parses the strict JSON form. Defaults: dense, shape [16, 8, 16],
// a_layout row, b_layout col, a_type f16, b_type = a_type, c_type s32 for
// integer and .b1 inputs, f64 for f64, f32 otherwise, d_type = c_type,
// tf32_enabled false (true when a type is written "tf32"), no satfinite,
// bit_op "and" for .b1 and "none" otherwise, selector 0, target sm_80 with
// its first PTX ISA version.
func ParseJSON(data []byte) (domain.Value, error) {
	return domain.ParseTargetForm("mma", data, DefaultArch, jsonForm.value)
}

func (f jsonForm) value(t target.Target) (Value, error) {
	v := Value{ShapeRank: 3, Shape: [MaxShapeRank]uint16{16, 8, 16}, BLayout: Col, Tgt: t}
	for _, step := range []func(*Value) error{f.opcode, f.shape, f.layouts, f.inputTypes, f.accumulators} {
		if err := step(&v); err != nil {
			return Value{}, err
		}
	}
	domain.Opt(f.Satfinite, &v.Satfinite)
	if v.AType == B1 {
		v.BitOp = AndPopc
	}
	if err := domain.OptEnum(BitOps, "bit_op", f.BitOp, &v.BitOp); err != nil {
		return Value{}, err
	}
	return v, nil
}

// opcode sets the sparsity and the selector, which only sparse forms carry.
func (f jsonForm) opcode(v *Value) error {
	if err := domain.OptEnum(Sparsities, "sparsity", f.Sparsity, &v.Sparsity); err != nil {
		return err
	}
	if f.Selector == nil {
		return nil
	}
	if err := domain.Range("selector", int64(*f.Selector), 0, 3); err != nil {
		return err
	}
	if *f.Selector != 0 && !v.Sparse() {
		return fmt.Errorf("field \"selector\": %d, but a dense mma has no sparsity selector", *f.Selector)
	}
	v.Selector = uint8(*f.Selector)
	return nil
}

func (f jsonForm) shape(v *Value) error {
	if f.Shape == nil {
		return nil
	}
	if len(f.Shape) > MaxShapeRank {
		return fmt.Errorf("field \"shape\": %d entries, at most %d", len(f.Shape), MaxShapeRank)
	}
	v.ShapeRank, v.Shape = uint8(len(f.Shape)), [MaxShapeRank]uint16{}
	for i, d := range f.Shape {
		if err := domain.Range("shape", int64(d), 0, MaxDim); err != nil {
			return err
		}
		v.Shape[i] = uint16(d)
	}
	return nil
}

func (f jsonForm) layouts(v *Value) error {
	return domain.FirstErr(
		domain.OptEnum(Layouts, "a_layout", f.ALayout, &v.ALayout),
		domain.OptEnum(Layouts, "b_layout", f.BLayout, &v.BLayout),
	)
}

// inputTypes sets A and B (b_type defaults to a_type) and tf32Enabled,
// which a "tf32" spelling implies.
func (f jsonForm) inputTypes(v *Value) error {
	a, aTF32, err := parseInput("a_type", f.AType, F16)
	if err != nil {
		return err
	}
	b, bTF32, err := parseInput("b_type", f.BType, a)
	if err != nil {
		return err
	}
	if f.BType == nil {
		bTF32 = aTF32
	}
	v.AType, v.BType, v.TF32 = a, b, aTF32 || bTF32
	if f.TF32Enabled != nil {
		if !*f.TF32Enabled && v.TF32 {
			return fmt.Errorf("field \"tf32_enabled\": false, but a type is written \"tf32\" (f32 with tf32_enabled)")
		}
		v.TF32 = *f.TF32Enabled
	}
	return nil
}

func parseInput(field string, given *string, def Type) (Type, bool, error) {
	if given == nil {
		return def, false, nil
	}
	if *given == "tf32" {
		return F32, true, nil
	}
	t, err := Types.Parse(field, *given)
	return Type(t), false, err
}

// accumulators sets C (default from A's type) and D (default C).
func (f jsonForm) accumulators(v *Value) error {
	v.CType = F32
	switch {
	case v.AType == F64:
		v.CType = F64
	case !v.AType.Float():
		v.CType = S32
	}
	if err := domain.OptEnum(Types, "c_type", f.CType, &v.CType); err != nil {
		return err
	}
	v.DType = v.CType
	if err := domain.OptEnum(Types, "d_type", f.DType, &v.DType); err != nil {
		return err
	}
	return nil
}
