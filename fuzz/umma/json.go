package umma

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// modeJSON is one mode: a flat mode has one shape and one stride, a nested
// one two or three of each.
type modeJSON struct {
	Shape  []int64 `json:"shape"`
	Stride []int64 `json:"stride"`
}

// jsonForm is the JSON form; on input every field is optional.
type jsonForm struct {
	Direction *int64     `json:"direction"`
	ElemBits  *int64     `json:"elem_bits"`
	Swizzle   []int64    `json:"swizzle"`
	Sparse    *bool      `json:"sparse"`
	Modes     []modeJSON `json:"modes"`
	KMode     *int64     `json:"k_mode"`
	MNMode    *int64     `json:"mn_mode"`
	target.JSON
}

// DefaultArch is the target of a case that names none.
var DefaultArch = target.Arch{SM: 100, Suffix: "a"}

// defaultModes is the layout of a case that names none: the flat K-major
// 16-bit no-swizzle operand (MN 8:8, K 16:1), which both rule sets accept.
var defaultModes = []modeJSON{{Shape: []int64{8}, Stride: []int64{8}}, {Shape: []int64{16}, Stride: []int64{1}}}

// MarshalJSON writes every field.
func (v Value) MarshalJSON() ([]byte, error) {
	sparse := v.Sparse
	f := jsonForm{
		Direction: domain.Ptr(int64(v.Direction)), ElemBits: domain.Ptr(int64(v.ElemBits)), Sparse: &sparse,
		Swizzle: []int64{int64(v.Swizzle[0]), int64(v.Swizzle[1]), int64(v.Swizzle[2])},
		KMode:   domain.Ptr(int64(v.KMode)), MNMode: domain.Ptr(int64(v.MNMode)), JSON: v.Tgt.ToJSON(),
	}
	for _, m := range v.Modes[:v.Rank] {
		var mj modeJSON
		for s := range m.Subs {
			mj.Shape = append(mj.Shape, int64(m.Shape[s]))
			mj.Stride = append(mj.Stride, int64(m.Stride[s]))
		}
		f.Modes = append(f.Modes, mj)
	}
	return json.Marshal(f)
}

// ParseJSON parses the strict JSON form. Defaults: direction 0 (UMMA_K),
// elem_bits 16, swizzle [0,4,3], sparse false, modes [{shape [8], stride
// [8]}, {shape [16], stride [1]}], mn_mode 0, k_mode 1, target sm_100a.
func ParseJSON(data []byte) (domain.Value, error) {
	return domain.ParseTargetForm("umma", data, DefaultArch, jsonForm.value)
}

func (f jsonForm) value(t target.Target) (Value, error) {
	v := Value{ElemBits: defaultElem, Swizzle: [3]uint8{0, 4, 3}, Tgt: t}
	if err := setUint8("direction", f.Direction, math.MaxUint8, &v.Direction); err != nil {
		return Value{}, err
	}
	if err := setUint8("elem_bits", f.ElemBits, math.MaxUint8, &v.ElemBits); err != nil {
		return Value{}, err
	}
	if f.Swizzle != nil {
		if len(f.Swizzle) != 3 {
			return Value{}, fmt.Errorf("field \"swizzle\": %d entries, want 3 (swz_mode, B, M)", len(f.Swizzle))
		}
		for i, x := range f.Swizzle {
			if err := setUint8(fmt.Sprintf("swizzle[%d]", i), &x, MaxSwizzle, &v.Swizzle[i]); err != nil {
				return Value{}, err
			}
		}
	}
	domain.Opt(f.Sparse, &v.Sparse)
	if err := f.setModes(&v); err != nil {
		return Value{}, err
	}
	return v, nil
}

// setModes parses the layout and the K and MN mode indices.
func (f jsonForm) setModes(v *Value) error {
	modes := f.Modes
	if modes == nil {
		modes = defaultModes
	}
	if err := domain.Range("modes", int64(len(modes)), 1, MaxModes); err != nil {
		return fmt.Errorf("%w (number of modes)", err)
	}
	v.Rank = uint8(len(modes))
	for i, mj := range modes {
		m, err := mj.mode(fmt.Sprintf("modes[%d]", i))
		if err != nil {
			return err
		}
		v.Modes[i] = m
	}
	v.MNMode, v.KMode = 0, 1%v.Rank
	if err := setUint8("mn_mode", f.MNMode, int64(v.Rank)-1, &v.MNMode); err != nil {
		return err
	}
	return setUint8("k_mode", f.KMode, int64(v.Rank)-1, &v.KMode)
}

func (mj modeJSON) mode(field string) (Mode, error) {
	if err := domain.Range(field+".shape", int64(len(mj.Shape)), 1, MaxSubs); err != nil {
		return Mode{}, fmt.Errorf("%w (number of sub-modes)", err)
	}
	if len(mj.Stride) != len(mj.Shape) {
		return Mode{}, fmt.Errorf("field %q: %d strides for %d shapes", field+".stride", len(mj.Stride), len(mj.Shape))
	}
	m := Mode{Subs: uint8(len(mj.Shape))}
	for s := range mj.Shape {
		name := fmt.Sprintf("%s.shape[%d]", field, s)
		if err := domain.Range(name, mj.Shape[s], 1, MaxShape); err != nil {
			return Mode{}, err
		}
		name = fmt.Sprintf("%s.stride[%d]", field, s)
		if err := domain.Range(name, mj.Stride[s], math.MinInt32, math.MaxInt32); err != nil {
			return Mode{}, err
		}
		m.Shape[s], m.Stride[s] = uint16(mj.Shape[s]), int32(mj.Stride[s])
	}
	return m, nil
}

// setUint8 range-checks a given field into dst; absent leaves dst alone.
func setUint8(field string, given *int64, hi int64, dst *uint8) error {
	if given == nil {
		return nil
	}
	if err := domain.Range(field, *given, 0, hi); err != nil {
		return err
	}
	*dst = uint8(*given)
	return nil
}
