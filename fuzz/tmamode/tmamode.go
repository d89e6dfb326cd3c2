// Package tmamode is the cp.async.bulk.tensor domain: direction (load,
// store, L2 prefetch), load/store mode, rank, destination state space,
// .cta_group, .multicast::cluster, the tensor map's box dim1 and interleave
// (gather4/scatter4 constrain them), the im2col::w operands wHalo and
// wOffset, and the target. Ranks go to 7 and modes carry a reserved value,
// so illegal instructions are representable and can be judged.
package tmamode

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Name is the domain's name.
const Name = "tmamode"

// Direction is the copy's direction.
type Direction uint8

const (
	Load     Direction = iota // global -> shared
	Store                     // shared::cta -> global
	Prefetch                  // cp.async.bulk.prefetch.tensor, global -> L2
)

// Directions spells the directions.
var Directions = domain.Enum{"load", "store", "prefetch"}

func (d Direction) String() string { return Directions.Name(int(d)) }

// Enum names the values of Direction: package desc and mutation read its size.
func (Direction) Enum() domain.Enum { return Directions }

// Mode is the load or store mode qualifier.
type Mode uint8

const (
	Tile Mode = iota
	Gather4
	Im2col
	Im2colW
	Im2colW128
	Scatter4
	Im2colNoOffs
	ModeReserved
)

// Modes spells the modes as PTX writes them.
var Modes = domain.Enum{"tile", "tile::gather4", "im2col", "im2col::w", "im2col::w::128",
	"tile::scatter4", "im2col_no_offs", "reserved7"}

func (m Mode) String() string { return Modes.Name(int(m)) }

// Enum names the values of Mode: package desc and mutation read its size.
func (Mode) Enum() domain.Enum { return Modes }

// IsIm2col reports whether m is one of the im2col modes.
func (m Mode) IsIm2col() bool {
	return m == Im2col || m == Im2colW || m == Im2colW128 || m == Im2colNoOffs
}

// IsW reports whether m takes the im2col::w operands wHalo and wOffset.
func (m Mode) IsW() bool { return m == Im2colW || m == Im2colW128 }

// Space is the destination state space as PTX spells it.
type Space uint8

const (
	SharedCluster Space = iota
	SharedCTA
	Global
	L2
)

// Spaces spells the destination state spaces.
var Spaces = domain.Enum{"shared::cluster", "shared::cta", "global", "L2"}

func (s Space) String() string { return Spaces.Name(int(s)) }

// Enum names the values of Space: package desc and mutation read its size.
func (Space) Enum() domain.Enum { return Spaces }

// DefaultDst is the destination of a direction: loads write
// .shared::cluster, stores .global, prefetches .L2.
func DefaultDst(d Direction) Space {
	switch d {
	case Store:
		return Global
	case Prefetch:
		return L2
	}
	return SharedCluster
}

// Interleave is the tensor map's interleave layout.
type Interleave uint8

// InterleaveNone is the plain layout; the others are 16B and 32B.
const InterleaveNone Interleave = 0

// Interleaves spells the interleave layouts.
var Interleaves = domain.Enum{"none", "16B", "32B"}

func (i Interleave) String() string { return Interleaves.Name(int(i)) }

// Enum names the values of Interleave: package desc and mutation read its size.
func (Interleave) Enum() domain.Enum { return Interleaves }

// Value is one cp.async.bulk.tensor instruction with the tensor-map facts
// its mode constrains. Its tags are the domain's one description of its
// fields (package desc).
type Value struct {
	Direction Direction `field:"direction"`
	Mode      Mode      `field:"mode"`
	// Rank is the .dim qualifier, 0..7.
	Rank uint8 `field:"rank,range=0..7,default=2"`
	Dst  Space `field:"dst,derived"`
	// CTAGroup is 0 for none, else .cta_group::1 or ::2.
	CTAGroup uint8 `field:"cta_group,range=0..2"`
	// BoxDim1 and Interleave describe the tensor map; only gather4 and
	// scatter4 constrain them.
	Interleave Interleave `field:"interleave"`
	Multicast  bool       `field:"multicast"`
	CacheHint  bool       `field:"cache_hint,since=1"` // .L2::cache_hint with a 64-bit cache-policy operand
	BoxDim1    uint32     `field:"box_dim1,default=1"`
	// WHalo and WOffset are the im2col::w operands; zero when absent.
	WHalo   uint16        `field:"w_halo"`
	WOffset uint16        `field:"w_offset"`
	Tgt     target.Target `field:"target,default=sm_90a"`
}

// fields is the compiled description of Value.
var fields = desc.MustCompile[Value](Name)

// Target implements domain.Value.
func (v Value) Target() target.Target { return v.Tgt }

// Encode implements domain.Value.
func (v Value) Encode() []byte { return fields.Encode(v) }

// Decode maps fuzz bytes to a value; every input decodes.
func Decode(data []byte) (domain.Value, error) { return fields.Decode(data) }

// String is a short human form, e.g. "load tile::gather4 2d shared::cta sm_100a".
func (v Value) String() string {
	return fmt.Sprintf("%s %s %dd %s cta_group=%d multicast=%v %s", v.Direction, v.Mode, v.Rank, v.Dst,
		v.CTAGroup, v.Multicast, v.Tgt.Arch)
}

// Domain describes tmamode for the registry.
var Domain = domain.Domain{
	Name:       Name,
	Doc:        "cp.async.bulk.tensor direction, mode, rank, state space, cta_group and multicast by target",
	FuzzTarget: "FuzzTMAMode",
	Decode:     Decode,
	ParseJSON:  ParseJSON,
	Seeds:      Seeds,
}
