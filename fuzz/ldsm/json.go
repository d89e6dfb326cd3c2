package ldsm

import (
	"encoding/json"
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// jsonForm is the JSON form; on input every field is optional.
type jsonForm struct {
	Op            *string `json:"op"`
	Mode          *string `json:"mode"`
	Shape         *string `json:"shape"`
	NumMatrices   *int    `json:"num_matrices"`
	Transpose     *bool   `json:"transpose"`
	Size          *string `json:"size"`
	ResultRank    *int    `json:"result_rank"`
	ResultDim0    *int    `json:"result_dim0"`
	SrcSpace      *string `json:"src_space"`
	DstSpace      *string `json:"dst_space"`
	Alignment     *int    `json:"alignment"`
	RegisterCount *int    `json:"register_count"`
	Cosize        *int    `json:"cosize"`
	target.JSON
}

// DefaultArch is the target of a case that names none.
var DefaultArch = target.Arch{SM: 90, Suffix: "a"}

// MarshalJSON writes every field.
func (v Value) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonForm{
		Op: domain.Ptr(v.Op.String()), Mode: domain.Ptr(v.Mode.String()), Shape: domain.Ptr(v.Shape.String()),
		NumMatrices: domain.Ptr(int(v.NumMatrices)), Transpose: &v.Transpose, Size: domain.Ptr(v.Size.String()),
		ResultRank: domain.Ptr(int(v.ResultRank)), ResultDim0: domain.Ptr(int(v.ResultDim0)),
		SrcSpace: domain.Ptr(v.Src.String()), DstSpace: domain.Ptr(v.Dst.String()), Alignment: domain.Ptr(int(v.Align)),
		RegisterCount: domain.Ptr(int(v.RegisterCount)), Cosize: domain.Ptr(int(v.Cosize)), JSON: v.Tgt.ToJSON(),
	})
}

// ParseJSON parses the strict JSON form. Defaults, so a hand-written case
// names only what it cares about: op ldmatrix; mode from shape and
// transpose when a shape is given, else M88; shape the mode's table shape
// (m16n8 for the reserved mode); transpose the mode's table column, or,
// with only a shape, PTX's mandatory .trans (m16n16, m16n8); num_matrices 1;
// size the mode's first table size (u16, b8x16.b4x16_p64, u2to4, u8; b8 for
// the reserved mode); result rank 1 with ElementsPerLane elements; spaces
// shared→register for ldmatrix and register→shared for stmatrix; alignment
// 16; register_count RegistersPerLane and cosize equal to it; target sm_90a
// at its first PTX ISA version. A known mode with another shape is an error.
func ParseJSON(data []byte) (domain.Value, error) {
	return domain.ParseTargetForm("ldsm", data, DefaultArch, jsonForm.value)
}

func (f jsonForm) value(t target.Target) (Value, error) {
	v := Value{Tgt: t}
	if err := f.instruction(&v); err != nil {
		return Value{}, err
	}
	if err := f.fragment(&v); err != nil {
		return Value{}, err
	}
	return v, f.operands(&v)
}

// instruction fills op, mode, shape, transpose, num_matrices and size.
func (f jsonForm) instruction(v *Value) error {
	v.NumMatrices = 1
	err := domain.FirstErr(
		domain.OptEnum(Ops, "op", f.Op, &v.Op),
		domain.OptEnum(Shapes, "shape", f.Shape, &v.Shape),
		domain.OptInt("num_matrices", f.NumMatrices, 0, MaxNum, &v.NumMatrices),
	)
	if err != nil {
		return err
	}
	switch {
	case f.Mode != nil:
		if err := domain.OptEnum(Modes, "mode", f.Mode, &v.Mode); err != nil {
			return err
		}
		v.Transpose = v.Mode.RequiresTranspose()
		if err := f.shapeOfMode(v); err != nil {
			return err
		}
	default:
		v.Transpose = v.Shape == M16N16 || v.Shape == M16N8
	}
	domain.Opt(f.Transpose, &v.Transpose)
	if f.Mode == nil {
		v.Mode = ModeOf(v.Shape, v.Transpose)
	}
	v.Size = defaultSizes[v.Mode]
	return domain.OptEnum(Sizes, "size", f.Size, &v.Size)
}

// shapeOfMode ties the shape to a given mode: the table shape for a known
// mode (a different shape given is an error), m16n8 by default otherwise.
func (f jsonForm) shapeOfMode(v *Value) error {
	s, known := v.Mode.Shape()
	switch {
	case known && f.Shape != nil && s != v.Shape:
		return fmt.Errorf("field \"shape\": %q, but mode %s has shape %s", *f.Shape, v.Mode, s)
	case known:
		v.Shape = s
	case f.Shape == nil:
		v.Shape = M16N8
	}
	return nil
}

// defaultSizes is each mode's first size pattern in the seed's table.
var defaultSizes = [...]Size{M88: U16, MT88: U16, M816: B4P64, M832: U2to4, MT1616: U8, ModeReserved: B8}

// fragment fills the result shape, register count and cosize.
func (f jsonForm) fragment(v *Value) error {
	n := int(v.NumMatrices)
	v.ResultRank, v.ResultDim0 = 1, uint8(ElementsPerLane(v.Shape, n))
	v.RegisterCount = uint8(RegistersPerLane(v.Shape, n))
	err := domain.FirstErr(
		domain.OptInt("result_rank", f.ResultRank, 0, MaxRank, &v.ResultRank),
		domain.OptInt("result_dim0", f.ResultDim0, 0, 255, &v.ResultDim0),
		domain.OptInt("register_count", f.RegisterCount, 0, MaxRegs, &v.RegisterCount),
	)
	if err != nil {
		return err
	}
	if v.ResultRank == 0 {
		if f.ResultDim0 != nil && *f.ResultDim0 != 0 {
			return fmt.Errorf("field \"result_dim0\": %d, but a rank-0 result has no dim 0", *f.ResultDim0)
		}
		v.ResultDim0 = 0
	}
	v.Cosize = v.RegisterCount
	return domain.OptInt("cosize", f.Cosize, 0, MaxRegs, &v.Cosize)
}

// operands fills the memory spaces and the alignment.
func (f jsonForm) operands(v *Value) error {
	v.Src, v.Dst = Shared, Register
	if v.Op == Store {
		v.Src, v.Dst = Register, Shared
	}
	v.Align = 16
	err := domain.FirstErr(
		domain.OptEnum(Spaces, "src_space", f.SrcSpace, &v.Src),
		domain.OptEnum(Spaces, "dst_space", f.DstSpace, &v.Dst),
		domain.OptInt("alignment", f.Alignment, 1, MaxAlign, &v.Align),
	)
	if err != nil {
		return err
	}
	if v.Align&(v.Align-1) != 0 {
		return fmt.Errorf("field \"alignment\": %d is not a power of two", v.Align)
	}
	return nil
}
