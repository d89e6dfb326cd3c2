package mma

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// MarshalJSON writes every field.
func (v Value) MarshalJSON() ([]byte, error) { return fields.JSON(v) }

// ParseJSON parses the strict JSON form. The types use PTX spellings, and
// "tf32" stands for an f32 operand with tf32_enabled. Defaults: dense,
// shape [16, 8, 16] (its length is the rank), a_layout row, b_layout
// col, a_type f16, b_type = a_type, c_type s32 for integer and .b1 inputs,
// f64 for f64, f32 otherwise, d_type = c_type, tf32_enabled false (true
// when a type is written "tf32"), no satfinite, bit_op "and" for .b1 and
// "none" otherwise, selector 0, target sm_80 with its first PTX ISA
// version.
func ParseJSON(data []byte) (domain.Value, error) { return fields.Parse(data) }

// Alias reads "tf32" as a_type or b_type: an f32 operand with tf32_enabled.
func (v *Value) Alias(field, name string) (string, bool) {
	if name == "tf32" && (field == "a_type" || field == "b_type") {
		return "f32", true
	}
	return "", false
}

// Derive sets the defaults that depend on other fields.
func (v *Value) Derive(given desc.Given) {
	if !given.Has("shape") {
		v.Shape = [MaxShapeRank]uint16{16, 8, 16}
	}
	v.ShapeRank = 3
	if given.Has("shape") {
		v.ShapeRank = uint8(given.Len("shape"))
	}
	aTF32 := given.Spelled("a_type") == "tf32"
	bTF32 := given.Spelled("b_type") == "tf32" || !given.Has("b_type") && aTF32
	if !given.Has("b_type") {
		v.BType = v.AType
	}
	if !given.Has("tf32_enabled") {
		v.TF32 = aTF32 || bTF32
	}
	if !given.Has("c_type") {
		v.CType = F32
		switch {
		case v.AType == F64:
			v.CType = F64
		case !v.AType.Float():
			v.CType = S32
		}
	}
	if !given.Has("d_type") {
		v.DType = v.CType
	}
	if !given.Has("bit_op") && v.AType == B1 {
		v.BitOp = AndPopc
	}
}

// Check refuses tf32_enabled false beside a type written "tf32".
func (v *Value) Check(given desc.Given) error {
	if given.Has("tf32_enabled") && !v.TF32 && (given.Spelled("a_type") == "tf32" || given.Spelled("b_type") == "tf32") {
		return fmt.Errorf("field \"tf32_enabled\": false, but a type is written \"tf32\" (f32 with tf32_enabled)")
	}
	return nil
}
