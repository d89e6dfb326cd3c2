// Package umma is the UMMA canonical layout domain: the inputs of seed 001's
// UMMA layout verifier (a direction, an element width, a swizzle triple, a
// sparse flag) and the shared-memory operand layout being verified, as a
// small CuTe layout of up to 4 modes, each a flat integer mode or a tuple of
// up to 3 (shape, stride) sub-modes, with the K and MN modes named.
package umma

import (
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Name is the domain's name.
const Name = "umma"

// Directions as seed 001 numbers them; other values are representable (the
// seed calls them "a bug").
const (
	DirK  uint8 = 0 // UMMA_K, K-major
	DirMN uint8 = 1 // UMMA_MN, MN-major
)

// Layout bounds: modes per layout, sub-modes per mode.
const (
	MaxModes = 4
	MaxSubs  = 3
)

// Mode is one top-level mode of a CuTe layout. Subs is its sub-mode count:
// 1 is a flat integer mode, 2 or 3 a nested tuple; 0 marks an unused slot.
// Entries at and beyond Subs are zero, so the encoding stays canonical. In
// the bytes a shape is the number itself, read as 1 when 0 (clamp), as the
// hand-written decoder did; in JSON the sub-mode count is the shape's length.
type Mode struct {
	Subs   uint8           `field:"subs,range=1..3,derived,nokey"`
	Shape  [MaxSubs]uint16 `field:"shape,range=1..65535,clamp"`
	Stride [MaxSubs]int32  `field:"stride,zip"`
}

// Count implements desc's Count: a mode carries Subs shapes and strides.
func (m *Mode) Count(string) int { return int(m.Subs) }

// Derive implements desc's Derive: the sub-mode count is the shape's length.
func (m *Mode) Derive(given desc.Given) { m.Subs = uint8(given.Len("shape")) }

// Check refuses a mode without a shape.
func (m *Mode) Check(desc.Given) error {
	if m.Subs == 0 {
		return desc.Errorf("shape", "0 entries, want 1..%d (number of sub-modes)", MaxSubs)
	}
	return nil
}

// Flat reports whether the mode is a single integer rather than a tuple.
func (m Mode) Flat() bool { return m.Subs == 1 }

// Size is the product of the mode's shapes (1 for an unused slot).
func (m Mode) Size() uint64 {
	n := uint64(1)
	for i := range m.Subs {
		n *= uint64(m.Shape[i])
	}
	return n
}

// Offset is the mode's offset at the 1-D coordinate i, split over the
// sub-modes colexicographically (sub-mode 0 fastest), as CuTe does.
func (m Mode) Offset(i uint64) int64 {
	var off int64
	for s := range m.Subs {
		n := uint64(m.Shape[s])
		if n == 0 {
			return off
		}
		off += int64(i%n) * int64(m.Stride[s])
		i /= n
	}
	return off
}

func (m Mode) String() string {
	if m.Flat() {
		return fmt.Sprintf("%d:%d", m.Shape[0], m.Stride[0])
	}
	shapes, strides := make([]string, m.Subs), make([]string, m.Subs)
	for i := range m.Subs {
		shapes[i], strides[i] = fmt.Sprint(m.Shape[i]), fmt.Sprint(m.Stride[i])
	}
	return "(" + strings.Join(shapes, ",") + "):(" + strings.Join(strides, ",") + ")"
}

// Value is one verifier input.
type Value struct {
	// Direction is 1 for UMMA_MN, 0 for UMMA_K; any other value is kept.
	Direction uint8 `field:"direction"`
	// ElemBits is the element width in bits; 4, 8, 16 and 32 are legal.
	ElemBits uint8 `field:"elem_bits,default=16"`
	// Swizzle is the seed's swz_triple (swz_mode, B, M); its values are
	// those of CuTe's Swizzle<B,M,S>, e.g. (3,4,3) for 128B.
	Swizzle [3]uint8 `field:"swizzle,range=0..15,derived"`
	Sparse  bool     `field:"sparse"`
	// Rank is the number of used modes, 1..MaxModes: in JSON, the length
	// of modes.
	Rank  uint8          `field:"rank,range=1..4,derived,nokey"`
	Modes [MaxModes]Mode `field:"modes,derived"`
	// KMode and MNMode index the K and MN modes, both below Rank (the
	// decoder reduces them modulo Rank, Canonical).
	KMode  uint8         `field:"k_mode,derived"`
	MNMode uint8         `field:"mn_mode,derived"`
	Tgt    target.Target `field:"target,default=sm_100a"`
}

var fields = desc.MustCompile[Value](Name)

// Target implements domain.Value.
func (v Value) Target() target.Target { return v.Tgt }

// KSize is the product of the K mode's shape.
func (v Value) KSize() uint64 { return v.Modes[v.KMode].Size() }

// MNSize is the product of the MN mode's shape.
func (v Value) MNSize() uint64 { return v.Modes[v.MNMode].Size() }

// Size is the number of coordinates of the layout.
func (v Value) Size() uint64 {
	n := uint64(1)
	for _, m := range v.Modes[:v.Rank] {
		n *= m.Size()
	}
	return n
}

// Cosize is the layout's largest offset plus one, in closed form: each
// sub-mode contributes (shape-1)*stride when that is positive.
func (v Value) Cosize() int64 {
	c := int64(1)
	for _, m := range v.Modes[:v.Rank] {
		for s := range m.Subs {
			c += max(0, (int64(m.Shape[s])-1)*int64(m.Stride[s]))
		}
	}
	return c
}

// Triple spells the swizzle triple as the seed serializes it: "(3,4,3)".
func (v Value) Triple() string {
	return fmt.Sprintf("(%d,%d,%d)", v.Swizzle[0], v.Swizzle[1], v.Swizzle[2])
}

// Layout spells the layout in CuTe's notation: "(8:64,(8,2):(1,8))".
func (v Value) Layout() string {
	modes := make([]string, v.Rank)
	for i, m := range v.Modes[:v.Rank] {
		modes[i] = m.String()
	}
	return "(" + strings.Join(modes, ",") + ")"
}

// Encode implements domain.Value: direction, element bits, triple, sparse,
// rank, the four mode slots, K and MN mode, target.
func (v Value) Encode() []byte { return fields.Encode(v) }

// Decode maps fuzz bytes to a value; every input decodes. Shapes read as 0
// become 1, and unused modes and sub-modes are zeroed.
func Decode(data []byte) (domain.Value, error) { return fields.Decode(data) }

// Count implements desc's Count: the value carries Rank modes.
func (v *Value) Count(field string) int {
	if field == "modes" {
		return int(v.Rank)
	}
	return len(v.Swizzle)
}

// Canonical reduces the mode indices below the rank, as the hand-written
// decoder read them (a byte modulo the rank).
func (v *Value) Canonical() {
	v.KMode %= v.Rank
	v.MNMode %= v.Rank
}

// String is a short human form.
func (v Value) String() string {
	return fmt.Sprintf("dir=%d elem=%d swz=%s %s k=%d mn=%d %s",
		v.Direction, v.ElemBits, v.Triple(), v.Layout(), v.KMode, v.MNMode, v.Tgt.Arch)
}

// Domain describes umma for the registry.
var Domain = domain.Domain{
	Name:       Name,
	Doc:        "UMMA canonical shared-memory operand layouts (direction, element width, swizzle, CuTe layout)",
	FuzzTarget: "FuzzUMMA",
	Decode:     Decode,
	ParseJSON:  ParseJSON,
	Seeds:      Seeds,
}
