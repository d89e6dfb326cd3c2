package cpasync

import (
	"encoding/json"
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// jsonForm is the JSON form. Every field is optional on input. Element
// counts and byte sizes are two spellings of one quantity: give either
// (dst_elements or cp_size, src_elements or src_size), or both when they
// agree. Likewise bypass_l1 is cache "cg". The output carries both spellings.
type jsonForm struct {
	Elem        *string `json:"elem"`
	SrcElem     *string `json:"src_elem"`
	DstElements *int    `json:"dst_elements"`
	CPSize      *int    `json:"cp_size"`
	SrcElements *int    `json:"src_elements,omitempty"`
	SrcSize     *int    `json:"src_size,omitempty"`
	Cache       *string `json:"cache"`
	BypassL1    *bool   `json:"bypass_l1"`
	Prefetch    *string `json:"prefetch"`
	CacheHint   *bool   `json:"cache_hint"`
	IgnoreSrc   *bool   `json:"ignore_src"`
	DstStride   *int    `json:"dst_stride"`
	SrcStride   *int    `json:"src_stride"`
	DstAddr     *uint32 `json:"dst_addr"`
	SrcAddr     *uint64 `json:"src_addr"`
	target.JSON
}

// DefaultArch is the target of a case that names none.
var DefaultArch = target.Arch{SM: 80}

// MarshalJSON writes every field; src_elements and src_size only when the
// copy has the operand, since their absence is what encodes "no src-size".
func (v Value) MarshalJSON() ([]byte, error) {
	u32, u64 := v.DstAddr, v.SrcAddr
	f := jsonForm{
		Elem: domain.Ptr(v.Elem.String()), SrcElem: domain.Ptr(v.SrcElem.String()),
		DstElements: domain.Ptr(int(v.DstElements)), CPSize: domain.Ptr(v.CPSize()),
		Cache: domain.Ptr(v.Cache.String()), BypassL1: domain.Ptr(v.BypassL1()), Prefetch: domain.Ptr(v.Prefetch.String()),
		CacheHint: domain.Ptr(v.CacheHint), IgnoreSrc: domain.Ptr(v.IgnoreSrc),
		DstStride: domain.Ptr(int(v.DstStride)), SrcStride: domain.Ptr(int(v.SrcStride)),
		DstAddr: &u32, SrcAddr: &u64, JSON: v.Tgt.ToJSON(),
	}
	if v.HasSrcElements {
		f.SrcElements, f.SrcSize = domain.Ptr(int(v.SrcElements)), domain.Ptr(v.SrcSize())
	}
	return json.Marshal(f)
}

// ParseJSON parses the strict JSON form. Defaults: elem f32, src_elem the
// same as elem, a 16-byte copy (dst_elements = 16 / element bytes), no
// src-size, cache "ca" ("cg" when bypass_l1 is true), prefetch "none", no
// cache hint, no ignore-src, unit strides, addresses 0, target sm_80 with
// its first PTX ISA version.
func ParseJSON(data []byte) (domain.Value, error) {
	return domain.ParseTargetForm("cpasync", data, DefaultArch, jsonForm.value)
}

func (f jsonForm) value(t target.Target) (Value, error) {
	v := Value{Elem: F32, DstStride: 1, SrcStride: 1, Tgt: t}
	if err := f.types(&v); err != nil {
		return Value{}, err
	}
	n, given, err := count("dst_elements", "cp_size", f.DstElements, f.CPSize, v.Elem.Bytes())
	if err != nil {
		return Value{}, err
	}
	v.DstElements = uint8(16 / v.Elem.Bytes())
	if given {
		v.DstElements = n
	}
	if v.SrcElements, v.HasSrcElements, err = count("src_elements", "src_size", f.SrcElements, f.SrcSize, v.Elem.Bytes()); err != nil {
		return Value{}, err
	}
	if err := f.cache(&v); err != nil {
		return Value{}, err
	}
	if err := f.strides(&v); err != nil {
		return Value{}, err
	}
	domain.Opt(f.CacheHint, &v.CacheHint)
	domain.Opt(f.IgnoreSrc, &v.IgnoreSrc)
	domain.Opt(f.DstAddr, &v.DstAddr)
	domain.Opt(f.SrcAddr, &v.SrcAddr)
	return v, nil
}

// types sets the element types; src_elem defaults to elem.
func (f jsonForm) types(v *Value) error {
	if err := domain.OptEnum(ElemTypes, "elem", f.Elem, &v.Elem); err != nil {
		return err
	}
	v.SrcElem = v.Elem
	if err := domain.OptEnum(ElemTypes, "src_elem", f.SrcElem, &v.SrcElem); err != nil {
		return err
	}
	return nil
}

// count reads an element count given as elements, as bytes, or as both
// (which must agree); given is false when neither is present.
func count(elemName, byteName string, elems, bytes *int, eltBytes int) (n uint8, given bool, err error) {
	if elems != nil {
		if err := domain.Range(elemName, int64(*elems), 0, 255); err != nil {
			return 0, false, err
		}
		n = uint8(*elems)
	}
	if bytes == nil {
		return n, elems != nil, nil
	}
	if err := domain.Range(byteName, int64(*bytes), 0, 255*int64(eltBytes)); err != nil {
		return 0, false, err
	}
	if *bytes%eltBytes != 0 {
		return 0, false, fmt.Errorf("field %q: %d bytes is not a whole number of %d-byte elements", byteName, *bytes, eltBytes)
	}
	if elems != nil && *bytes != int(n)*eltBytes {
		return 0, false, fmt.Errorf("field %q: %d, but %s %d makes %d bytes", byteName, *bytes, elemName, n, int(n)*eltBytes)
	}
	return uint8(*bytes / eltBytes), true, nil
}

// cache sets the cache operator from cache and bypass_l1, which must agree.
func (f jsonForm) cache(v *Value) error {
	if f.BypassL1 != nil && *f.BypassL1 {
		v.Cache = CG
	}
	if f.Cache != nil {
		c, err := CacheOps.Parse("cache", *f.Cache)
		if err != nil {
			return err
		}
		if f.BypassL1 != nil && *f.BypassL1 != (CacheOp(c) == CG) {
			return fmt.Errorf("field \"bypass_l1\": %v, but cache %q (bypassL1 is exactly cache \"cg\")", *f.BypassL1, *f.Cache)
		}
		v.Cache = CacheOp(c)
	}
	if err := domain.OptEnum(Prefetches, "prefetch", f.Prefetch, &v.Prefetch); err != nil {
		return err
	}
	return nil
}

// strides sets the minor-dimension strides, default 1.
func (f jsonForm) strides(v *Value) error {
	return domain.FirstErr(
		domain.OptInt("dst_stride", f.DstStride, 0, 255, &v.DstStride),
		domain.OptInt("src_stride", f.SrcStride, 0, 255, &v.SrcStride),
	)
}
