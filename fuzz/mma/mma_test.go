package mma

import (
	"reflect"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

func TestSeedsRoundTrip(t *testing.T) { domaintest.SeedsRoundTrip(t, Domain, nil) }

func TestRandomBytesRoundTrip(t *testing.T) {
	seed := domaintest.Seed(t, "MMA_SEED", 0x3a3a)
	domaintest.RandomBytes(t, Domain, domaintest.Random{Seed: seed, Stream: 5, N: 20000, MaxLen: 32})
}

func TestDecodeShortInputs(t *testing.T) {
	full := Value{Sparsity: SPOrdered, ShapeRank: 4, Shape: [MaxShapeRank]uint16{511, 8, 256, 3}, ALayout: Col,
		AType: S32, BType: B1, CType: E5M2, DType: U4, TF32: true, Satfinite: true, BitOp: XorPopc, Selector: 3,
		Tgt: target.MustParse("sm_120a", "")}.Encode()
	domaintest.ShortInputs(t, Domain, full, nil)
}

func TestDecodeZeroesUnusedParts(t *testing.T) {
	b := Value{Sparsity: SP, ShapeRank: 4, Shape: [MaxShapeRank]uint16{1, 2, 3, 4}, Selector: 3}.Encode()
	b[0], b[1] = byte(Dense), 2 // dense, rank 2: shape[2:] and the selector must read back as zero
	v, _ := Decode(b)
	got := v.(Value)
	if got.Shape != [MaxShapeRank]uint16{1, 2, 0, 0} || got.Selector != 0 {
		t.Fatalf("shape %v selector %d, want [1 2 0 0] and 0", got.Shape, got.Selector)
	}
}

func TestJSONDefaults(t *testing.T) {
	sm80 := target.MustParse("sm_80", "")
	base := Value{ShapeRank: 3, Shape: [MaxShapeRank]uint16{16, 8, 16}, BLayout: Col,
		AType: F16, BType: F16, CType: F32, DType: F32, Tgt: sm80}
	with := func(f func(*Value)) Value { v := base; f(&v); return v }
	for _, tc := range []struct {
		name string
		in   string
		want Value
	}{
		{"empty", `{}`, base},
		{"tf32 spelling", `{"a_type":"tf32","shape":[16,8,8]}`, with(func(v *Value) {
			v.AType, v.BType, v.TF32, v.Shape[2] = F32, F32, true, 8
		})},
		{"integer accumulators", `{"a_type":"s8","b_type":"u8"}`, with(func(v *Value) {
			v.AType, v.BType, v.CType, v.DType = S8, U8, S32, S32
		})},
		{"f64 accumulators", `{"a_type":"f64"}`, with(func(v *Value) { v.AType, v.BType, v.CType, v.DType = F64, F64, F64, F64 })},
		{"b1 defaults to and.popc", `{"a_type":"b1"}`, with(func(v *Value) {
			v.AType, v.BType, v.CType, v.DType, v.BitOp = B1, B1, S32, S32, AndPopc
		})},
		{"sparse", `{"sparsity":"sp::ordered_metadata","selector":3,"shape":[16,8,32],"d_type":"f16","ptx":"8.5"}`,
			with(func(v *Value) {
				v.Sparsity, v.Selector, v.Shape[2], v.DType, v.Tgt = SPOrdered, 3, 32, F16, target.MustParse("sm_80", "8.5")
			})},
		{"short shape", `{"shape":[16,8],"a_layout":"col","b_layout":"row","satfinite":true,"tf32_enabled":true}`,
			with(func(v *Value) {
				v.ShapeRank, v.Shape, v.ALayout, v.BLayout = 2, [MaxShapeRank]uint16{16, 8}, Col, Row
				v.Satfinite, v.TF32 = true, true
			})},
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
		{`{"sparsity":"sp2"}`, "sparsity"},
		{`{"shape":[1,2,3,4,5]}`, "shape"},
		{`{"shape":[16,8,512]}`, "shape"},
		{`{"shape":[-1]}`, "shape"},
		{`{"a_layout":"diag"}`, "a_layout"},
		{`{"b_layout":"rows"}`, "b_layout"},
		{`{"a_type":"fp8"}`, "a_type"},
		{`{"b_type":"i8"}`, "b_type"},
		{`{"c_type":"tf32"}`, "c_type"},
		{`{"d_type":"x"}`, "d_type"},
		{`{"a_type":"tf32","tf32_enabled":false}`, "tf32_enabled"},
		{`{"satfinite":"yes"}`, "satfinite"},
		{`{"bit_op":"or"}`, "bit_op"},
		{`{"sparsity":"sp","selector":4}`, "selector"},
		{`{"selector":1}`, "selector"},
		{`{"target":"sm_75"}`, "target"},
		{`{"ptx":"6.x"}`, "ptx"},
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
