// Package cpasync is the non-bulk cp.async domain: one asynchronous
// global→shared copy seen both as seed 004's nvgpu.device_async_copy (element
// types, dstElements, bypassL1, memref minor strides) and as the PTX
// instruction it lowers to (cp-size, cache operator, src-size, ignore-src,
// L2 hints, addresses). The seed's lowering links the two views: cp-size is
// dstElements × element bytes and bypassL1 selects .cg. Field ranges are wider
// than the legal ones so that illegal copies can be judged too.
package cpasync

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Name is the domain's name.
const Name = "cpasync"

// ElemType is the element type of a memref operand.
type ElemType uint8

const (
	I8 ElemType = iota
	F16
	BF16
	F32
	I32
	F64
)

// ElemTypes spells the element types.
var ElemTypes = domain.Enum{"i8", "f16", "bf16", "f32", "i32", "f64"}

func (e ElemType) String() string { return ElemTypes.Name(int(e)) }

// Enum names the values of ElemType: package desc and mutation read its size.
func (ElemType) Enum() domain.Enum { return ElemTypes }

// Bytes is the element's size in bytes.
func (e ElemType) Bytes() int {
	switch e {
	case F16, BF16:
		return 2
	case F32, I32:
		return 4
	case F64:
		return 8
	}
	return 1
}

// CacheOp is the cache operator written on the instruction. cp.async takes
// only .ca and .cg; the load operators .cs, .lu and .cv are kept as illegal
// spellings.
type CacheOp uint8

const (
	CA CacheOp = iota
	CG
	CS
	LU
	CV
)

// CacheOps spells the cache operators.
var CacheOps = domain.Enum{"ca", "cg", "cs", "lu", "cv"}

func (c CacheOp) String() string { return CacheOps.Name(int(c)) }

// Enum names the values of CacheOp: package desc and mutation read its size.
func (CacheOp) Enum() domain.Enum { return CacheOps }

// Prefetch is the .level::prefetch_size qualifier.
type Prefetch uint8

const (
	PrefetchNone Prefetch = iota
	Prefetch64B
	Prefetch128B
	Prefetch256B
)

// Prefetches spells the prefetch sizes.
var Prefetches = domain.Enum{"none", "64B", "128B", "256B"}

func (p Prefetch) String() string { return Prefetches.Name(int(p)) }

// Enum names the values of Prefetch: package desc and mutation read its size.
func (Prefetch) Enum() domain.Enum { return Prefetches }

// Value is one cp.async. Its tags are the domain's one description of its
// fields (package desc), in the byte order of the canonical form (the bools
// share one byte, where HasSrcElements stands).
type Value struct {
	// Elem is the destination element type; SrcElem the source's. The seed
	// requires them to match; PTX's cp.async is untyped.
	Elem    ElemType `field:"elem,default=f32"`
	SrcElem ElemType `field:"src_elem,derived"`
	// DstElements is the nvgpu op's dstElements attribute.
	DstElements uint8 `field:"dst_elements,derived"`
	// HasSrcElements marks the optional srcElements operand (PTX src-size);
	// SrcElements is zero without it.
	HasSrcElements bool     `field:"has_src_elements,derived,nokey"`
	SrcElements    uint8    `field:"src_elements"`
	Cache          CacheOp  `field:"cache,derived"`
	Prefetch       Prefetch `field:"prefetch"`
	CacheHint      bool     `field:"cache_hint"` // .L2::cache_hint with a cache-policy operand
	IgnoreSrc      bool     `field:"ignore_src"` // the ignore-src predicate operand
	// DstStride and SrcStride are the memrefs' minor-dimension strides in
	// elements; 1 is unit stride.
	DstStride uint8 `field:"dst_stride,default=1"`
	SrcStride uint8 `field:"src_stride,default=1"`
	// DstAddr (shared) and SrcAddr (global) are byte addresses, for alignment.
	DstAddr uint32        `field:"dst_addr"`
	SrcAddr uint64        `field:"src_addr"`
	Tgt     target.Target `field:"target,default=sm_80"`
}

// fields is the compiled description of Value.
var fields = desc.MustCompile[Value](Name)

// Target implements domain.Value.
func (v Value) Target() target.Target { return v.Tgt }

// CPSize is the copy size in bytes the seed's lowering emits:
// dstElements × element bytes.
func (v Value) CPSize() int { return int(v.DstElements) * v.Elem.Bytes() }

// SrcSize is the src-size operand in bytes, srcElements × element bytes;
// meaningful only with HasSrcElements.
func (v Value) SrcSize() int { return int(v.SrcElements) * v.Elem.Bytes() }

// BypassL1 is the seed's bypassL1 attribute: it selects, and is read back
// from, the .cg cache operator.
func (v Value) BypassL1() bool { return v.Cache == CG }

// Encode implements domain.Value.
func (v Value) Encode() []byte { return fields.Encode(v) }

// Decode maps fuzz bytes to a value; every input decodes.
func Decode(data []byte) (domain.Value, error) { return fields.Decode(data) }

// Unused says why a field has no meaning in v: src_elements is the
// optional operand's.
func (v *Value) Unused(field string) string {
	if field == "src_elements" && !v.HasSrcElements {
		return "the copy has no src-size operand"
	}
	return ""
}

// String is a short human form, e.g. "cp.async.cg 16B f32x4 sm_80".
func (v Value) String() string {
	return fmt.Sprintf("cp.async.%s %dB %sx%d %s", v.Cache, v.CPSize(), v.Elem, v.DstElements, v.Tgt.Arch)
}

// Domain describes cpasync for the registry.
var Domain = domain.Domain{
	Name:       Name,
	Doc:        "non-bulk cp.async copies: seed 004's nvgpu.device_async_copy and the PTX cp.async it lowers to",
	FuzzTarget: "FuzzCPAsync",
	Decode:     Decode,
	ParseJSON:  ParseJSON,
	Seeds:      Seeds,
}
