package cpasync

import (
	"reflect"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

func TestSeedsRoundTrip(t *testing.T) { domaintest.SeedsRoundTrip(t, Domain, nil) }

func TestRandomBytesRoundTrip(t *testing.T) {
	seed := domaintest.Seed(t, "CPASYNC_SEED", 0xc9a5)
	domaintest.RandomBytes(t, Domain, domaintest.Random{Seed: seed, Stream: 3, N: 20000, MaxLen: 32})
}

func TestDecodeShortInputs(t *testing.T) {
	full := Value{Elem: F64, SrcElem: I8, DstElements: 200, HasSrcElements: true, SrcElements: 9, Cache: CV,
		Prefetch: Prefetch256B, CacheHint: true, IgnoreSrc: true, DstStride: 7, SrcStride: 9,
		DstAddr: 0xdeadbeef, SrcAddr: 1 << 60, Tgt: target.MustParse("sm_120a", "")}.Encode()
	domaintest.ShortInputs(t, Domain, full, nil)
}

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
	for _, tc := range []struct {
		name string
		in   string
		want Value
	}{
		{"empty", `{}`, base},
		{"f16 defaults to a 16-byte copy", `{"elem":"f16"}`, with(func(v *Value) { v.Elem, v.SrcElem, v.DstElements = F16, F16, 8 })},
		{"cp_size alone", `{"elem":"f16","cp_size":4}`, with(func(v *Value) { v.Elem, v.SrcElem, v.DstElements = F16, F16, 2 })},
		{"bypass_l1 selects cg", `{"bypass_l1":true}`, with(func(v *Value) { v.Cache = CG })},
		{"src_size alone", `{"src_size":8}`, with(func(v *Value) { v.HasSrcElements, v.SrcElements = true, 2 })},
		{"explicit", `{"src_elem":"i32","dst_elements":2,"cp_size":8,"cache":"cs","bypass_l1":false,"prefetch":"64B","cache_hint":true,"ignore_src":true,"dst_stride":0,"src_stride":3,"dst_addr":8,"src_addr":16,"target":"sm_90a","ptx":"8.3"}`,
			Value{Elem: F32, SrcElem: I32, DstElements: 2, Cache: CS, Prefetch: Prefetch64B, CacheHint: true, IgnoreSrc: true,
				DstStride: 0, SrcStride: 3, DstAddr: 8, SrcAddr: 16, Tgt: target.MustParse("sm_90a", "8.3")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseJSON([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestJSONStrict(t *testing.T) {
	for _, tc := range []struct {
		in, field string
	}{
		{`{"bogus":1}`, "bogus"},
		{`{"elem":"f8"}`, "elem"},
		{`{"src_elem":"u4"}`, "src_elem"},
		{`{"dst_elements":256}`, "dst_elements"},
		{`{"dst_elements":-1}`, "dst_elements"},
		{`{"cp_size":6}`, "cp_size"},
		{`{"cp_size":2000}`, "cp_size"},
		{`{"dst_elements":4,"cp_size":8}`, "cp_size"},
		{`{"src_elements":300}`, "src_elements"},
		{`{"src_size":3}`, "src_size"},
		{`{"src_elements":1,"src_size":8}`, "src_size"},
		{`{"cache":"cx"}`, "cache"},
		{`{"cache":"ca","bypass_l1":true}`, "bypass_l1"},
		{`{"prefetch":"512B"}`, "prefetch"},
		{`{"dst_stride":256}`, "dst_stride"},
		{`{"src_stride":-2}`, "src_stride"},
		{`{"dst_addr":-1}`, "dst_addr"},
		{`{"dst_addr":4294967296}`, "dst_addr"},
		{`{"src_addr":"0x10"}`, "src_addr"},
		{`{"ignore_src":1}`, "ignore_src"},
		{`{"target":"sm_70"}`, "target"},
		{`{"ptx":"9.9"}`, "ptx"},
	} {
		t.Run(tc.field, func(t *testing.T) {
			_, err := ParseJSON([]byte(tc.in))
			if err == nil {
				t.Fatalf("%s parsed, want an error naming %q", tc.in, tc.field)
			}
			if !strings.Contains(err.Error(), `"`+tc.field+`"`) {
				t.Fatalf("%s: error %q does not name %q", tc.in, err, tc.field)
			}
		})
	}
}
