package cpasync

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

var suite = domaintest.Suite{Domain: Domain, SeedEnv: "CPASYNC_SEED", Seed: 0xc9a5, Stream: 3, N: 20000, MaxLen: 32,
	Full: Value{Elem: F64, SrcElem: I8, DstElements: 200, HasSrcElements: true, SrcElements: 9, Cache: CV,
		Prefetch: Prefetch256B, CacheHint: true, IgnoreSrc: true, DstStride: 7, SrcStride: 9,
		DstAddr: 0xdeadbeef, SrcAddr: 1 << 60, Tgt: target.MustParse("sm_120a", "")}}

func TestDomain(t *testing.T) { suite.Run(t) }

func TestCPSize(t *testing.T) {
	for _, tc := range []struct {
		e    ElemType
		n    uint8
		want int
	}{{I8, 4, 4}, {F16, 8, 16}, {BF16, 2, 4}, {F32, 16, 64}, {I32, 2, 8}, {F64, 2, 16}} {
		if got := (Value{Elem: tc.e, DstElements: tc.n}).CPSize(); got != tc.want {
			t.Errorf("%s x %d: cp-size %d, want %d", tc.e, tc.n, got, tc.want)
		}
	}
}

func TestJSONDefaults(t *testing.T) {
	sm80 := target.MustParse("sm_80", "")
	base := Value{Elem: F32, SrcElem: F32, DstElements: 4, DstStride: 1, SrcStride: 1, Tgt: sm80}
	with := func(f func(*Value)) Value { v := base; f(&v); return v }
	domaintest.ParseJSON(t, Domain, []domaintest.Parsed{
		{Name: "empty", In: `{}`, Want: base},
		{Name: "f16 defaults to a 16-byte copy", In: `{"elem":"f16"}`, Want: with(func(v *Value) { v.Elem, v.SrcElem, v.DstElements = F16, F16, 8 })},
		{Name: "cp_size alone", In: `{"elem":"f16","cp_size":4}`, Want: with(func(v *Value) { v.Elem, v.SrcElem, v.DstElements = F16, F16, 2 })},
		{Name: "bypass_l1 selects cg", In: `{"bypass_l1":true}`, Want: with(func(v *Value) { v.Cache = CG })},
		{Name: "src_size alone", In: `{"src_size":8}`, Want: with(func(v *Value) { v.HasSrcElements, v.SrcElements = true, 2 })},
		{Name: "explicit", In: `{"src_elem":"i32","dst_elements":2,"cp_size":8,"cache":"cs","bypass_l1":false,"prefetch":"64B","cache_hint":true,"ignore_src":true,"dst_stride":0,"src_stride":3,"dst_addr":8,"src_addr":16,"target":"sm_90a","ptx":"8.3"}`,
			Want: Value{Elem: F32, SrcElem: I32, DstElements: 2, Cache: CS, Prefetch: Prefetch64B, CacheHint: true, IgnoreSrc: true,
				DstStride: 0, SrcStride: 3, DstAddr: 8, SrcAddr: 16, Tgt: target.MustParse("sm_90a", "8.3")}},
	})
}

func TestJSONStrict(t *testing.T) {
	domaintest.ParseJSONRefuses(t, Domain, []domaintest.Refused{
		{In: `{"bogus":1}`, Field: "bogus"},
		{In: `{"elem":"f8"}`, Field: "elem"},
		{In: `{"src_elem":"u4"}`, Field: "src_elem"},
		{In: `{"dst_elements":256}`, Field: "dst_elements"},
		{In: `{"dst_elements":-1}`, Field: "dst_elements"},
		{In: `{"cp_size":6}`, Field: "cp_size"},
		{In: `{"cp_size":2000}`, Field: "cp_size"},
		{In: `{"dst_elements":4,"cp_size":8}`, Field: "cp_size"},
		{In: `{"src_elements":300}`, Field: "src_elements"},
		{In: `{"src_size":3}`, Field: "src_size"},
		{In: `{"src_elements":1,"src_size":8}`, Field: "src_size"},
		{In: `{"cache":"cx"}`, Field: "cache"},
		{In: `{"cache":"ca","bypass_l1":true}`, Field: "bypass_l1"},
		{In: `{"prefetch":"512B"}`, Field: "prefetch"},
		{In: `{"dst_stride":256}`, Field: "dst_stride"},
		{In: `{"src_stride":-2}`, Field: "src_stride"},
		{In: `{"dst_addr":-1}`, Field: "dst_addr"},
		{In: `{"dst_addr":4294967296}`, Field: "dst_addr"},
		{In: `{"src_addr":"0x10"}`, Field: "src_addr"},
		{In: `{"ignore_src":1}`, Field: "ignore_src"},
		{In: `{"target":"sm_70"}`, Field: "target"},
		{In: `{"ptx":"9.9"}`, Field: "ptx"},
	})
}

func BenchmarkDecode(b *testing.B) { domaintest.BenchDecode(b, Domain, 24) }
