package ldsm

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// MarshalJSON writes every field.
func (v Value) MarshalJSON() ([]byte, error) { return fields.JSON(v) }

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
func ParseJSON(data []byte) (domain.Value, error) { return fields.Parse(data) }

// Derive sets the defaults that depend on other fields, in the order the
// seed's table ties them: mode, shape and transpose, then size, the
// fragment and the spaces.
func (v *Value) Derive(given desc.Given) {
	switch {
	case given.Has("mode"):
		if !given.Has("transpose") {
			v.Transpose = v.Mode.RequiresTranspose()
		}
		if s, known := v.Mode.Shape(); known && !given.Has("shape") {
			v.Shape = s
		} else if !known && !given.Has("shape") {
			v.Shape = M16N8
		}
	default:
		if !given.Has("transpose") {
			v.Transpose = v.Shape == M16N16 || v.Shape == M16N8
		}
		v.Mode = ModeOf(v.Shape, v.Transpose)
	}
	if !given.Has("size") {
		v.Size = defaultSizes[v.Mode]
	}
	n := int(v.NumMatrices)
	if !given.Has("result_dim0") {
		v.ResultDim0 = uint8(ElementsPerLane(v.Shape, n))
	}
	if !given.Has("register_count") {
		v.RegisterCount = uint8(RegistersPerLane(v.Shape, n))
	}
	if !given.Has("cosize") {
		v.Cosize = v.RegisterCount
	}
	src, dst := Shared, Register
	if v.Op == Store {
		src, dst = Register, Shared
	}
	if !given.Has("src_space") {
		v.Src = src
	}
	if !given.Has("dst_space") {
		v.Dst = dst
	}
}

// Check refuses a known mode with another shape than its table's.
func (v *Value) Check(given desc.Given) error {
	if s, known := v.Mode.Shape(); known && given.Has("mode") && s != v.Shape {
		return fmt.Errorf("field \"shape\": %q, but mode %s has shape %s", v.Shape, v.Mode, s)
	}
	return nil
}

// defaultSizes is each mode's first size pattern in the seed's table.
var defaultSizes = [...]Size{M88: U16, MT88: U16, M816: B4P64, M832: U2to4, MT1616: U8, ModeReserved: B8}
