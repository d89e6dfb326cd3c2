// Package umma is the UMMA canonical layout domain: the inputs of seed 001's
// UMMA layout verifier (a direction, an element width, a swizzle triple, a
// sparse flag) and the shared-memory operand layout being verified, as a
// small CuTe layout of up to 4 modes, each a flat integer mode or a tuple of
// up to 3 (shape, stride) sub-modes, with the K and MN modes named.
package umma

import (
	"fmt"
	"strings"

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

// Layout bounds: modes per layout, sub-modes per mode, largest triple entry.
const (
	MaxModes    = 4
	MaxSubs     = 3
	MaxSwizzle  = 15
	MaxShape    = 1<<16 - 1
	defaultElem = 16
)

// Mode is one top-level mode of a CuTe layout. Subs is its sub-mode count:
// 1 is a flat integer mode, 2 or 3 a nested tuple; 0 marks an unused slot.
// Entries at and beyond Subs are zero, so the encoding stays canonical.
type Mode struct {
	Subs   uint8
	Shape  [MaxSubs]uint16
	Stride [MaxSubs]int32
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
	Direction uint8
	// ElemBits is the element width in bits; 4, 8, 16 and 32 are legal.
	ElemBits uint8
	// Swizzle is the seed's swz_triple (swz_mode, B, M); its values are
	// those of CuTe's Swizzle<B,M,S>, e.g. (3,4,3) for 128B.
	Swizzle [3]uint8
	Sparse  bool
	// Rank is the number of used modes, 1..MaxModes.
	Rank  uint8
	Modes [MaxModes]Mode
	// KMode and MNMode index the K and MN modes, both below Rank.
	KMode, MNMode uint8
	Tgt           target.Target
}

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
func (v Value) Encode() []byte {
	var w domain.Writer
	w.U8(v.Direction)
	w.U8(v.ElemBits)
	for _, x := range v.Swizzle {
		w.U8(x)
	}
	w.Bool(v.Sparse)
	w.U8(v.Rank - 1)
	for _, m := range v.Modes {
		w.U8(max(m.Subs, 1) - 1)
		for s := range MaxSubs {
			w.U16(m.Shape[s])
			w.U32(uint32(m.Stride[s]))
		}
	}
	w.U8(v.KMode)
	w.U8(v.MNMode)
	w.Bytes = v.Tgt.Encode(w.Bytes)
	return w.Bytes
}

// Decode maps fuzz bytes to a value; every input decodes. Shapes read as 0
// become 1, and unused modes and sub-modes are zeroed.
func Decode(data []byte) (domain.Value, error) {
	r := domain.NewReader(data)
	v := Value{Direction: r.U8(), ElemBits: r.U8()}
	for i := range v.Swizzle {
		v.Swizzle[i] = r.U8() % (MaxSwizzle + 1)
	}
	v.Sparse = r.Bool()
	v.Rank = uint8(1 + r.Index(MaxModes))
	for i := range v.Modes {
		m := Mode{Subs: uint8(1 + r.Index(MaxSubs))}
		for s := range MaxSubs {
			m.Shape[s], m.Stride[s] = max(r.U16(), 1), int32(r.U32())
			if s >= int(m.Subs) {
				m.Shape[s], m.Stride[s] = 0, 0
			}
		}
		if i < int(v.Rank) {
			v.Modes[i] = m
		}
	}
	v.KMode = uint8(r.Index(int(v.Rank)))
	v.MNMode = uint8(r.Index(int(v.Rank)))
	v.Tgt = target.Decode(r.U8(), r.U8())
	return v, nil
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
