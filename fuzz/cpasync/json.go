package cpasync

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// MarshalJSON writes every field, and each count also in bytes.
func (v Value) MarshalJSON() ([]byte, error) { return fields.JSON(v) }

// ParseJSON parses the strict JSON form. Element counts and byte sizes are
// two spellings of one quantity: give either (dst_elements or cp_size,
// src_elements or src_size), or both when they agree; likewise bypass_l1 is
// cache "cg". Defaults: elem f32, src_elem the same as elem, a 16-byte copy
// (dst_elements = 16 / element bytes), no src-size operand unless
// src_elements or src_size is given, cache "ca" ("cg" when
// bypass_l1 is true), prefetch "none", no cache hint, no ignore-src, unit
// strides, addresses 0, target sm_80 with its first PTX ISA version.
func ParseJSON(data []byte) (domain.Value, error) { return fields.Parse(data) }

// Spellings are the byte sizes of the two counts and bypass_l1.
func (v *Value) Spellings() []string { return []string{"cp_size", "src_size", "bypass_l1"} }

// Spell writes cp_size, bypass_l1 and, with the operand, src_size.
func (v *Value) Spell(key string) any {
	switch key {
	case "cp_size":
		return v.CPSize()
	case "src_size":
		if v.HasSrcElements {
			return v.SrcSize()
		}
	case "bypass_l1":
		return v.BypassL1()
	}
	return nil
}

// Derive sets the defaults that depend on other fields or spellings.
func (v *Value) Derive(given desc.Given) {
	if !given.Has("src_elem") {
		v.SrcElem = v.Elem
	}
	eb := v.Elem.Bytes()
	if !given.Has("dst_elements") {
		v.DstElements = uint8(16 / eb)
		if n, ok, err := desc.Extra[int](given, "cp_size"); ok && err == nil {
			v.DstElements = uint8(n / eb)
		}
	}
	_, srcSize := given.Raw("src_size")
	v.HasSrcElements = given.Has("src_elements") || srcSize
	if n, ok, err := desc.Extra[int](given, "src_size"); ok && err == nil && !given.Has("src_elements") {
		v.SrcElements = uint8(n / eb)
	}
	if bypass, _, _ := desc.Extra[bool](given, "bypass_l1"); !given.Has("cache") && bypass {
		v.Cache = CG
	}
}

// Check refuses a byte size that is no whole number of elements, or that
// disagrees with its count, and a bypass_l1 that disagrees with the cache.
func (v *Value) Check(given desc.Given) error {
	eb := v.Elem.Bytes()
	for _, c := range []struct {
		bytes, elems string
		n            uint8
	}{{"cp_size", "dst_elements", v.DstElements}, {"src_size", "src_elements", v.SrcElements}} {
		b, ok, err := desc.Extra[int](given, c.bytes)
		switch {
		case err != nil:
			return err
		case !ok:
		case b < 0 || b > 255*eb:
			return fmt.Errorf("field %q: %d out of range [0, %d]", c.bytes, b, 255*eb)
		case b%eb != 0:
			return fmt.Errorf("field %q: %d bytes is not a whole number of %d-byte elements", c.bytes, b, eb)
		case given.Has(c.elems) && b != int(c.n)*eb:
			return fmt.Errorf("field %q: %d, but %s %d makes %d bytes", c.bytes, b, c.elems, c.n, int(c.n)*eb)
		}
	}
	bypass, ok, err := desc.Extra[bool](given, "bypass_l1")
	if err != nil {
		return err
	}
	if ok && given.Has("cache") && bypass != v.BypassL1() {
		return fmt.Errorf("field \"bypass_l1\": %v, but cache %q (bypassL1 is exactly cache \"cg\")", bypass, v.Cache)
	}
	return nil
}
