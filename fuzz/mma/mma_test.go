package mma

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

var suite = domaintest.Suite{Domain: Domain, SeedEnv: "MMA_SEED", Seed: 0x3a3a, Stream: 5, N: 20000, MaxLen: 32,
	Full: Value{Sparsity: SPOrdered, ShapeRank: 4, Shape: [MaxShapeRank]uint16{511, 8, 256, 3}, ALayout: Col,
		AType: S32, BType: B1, CType: E5M2, DType: U4, TF32: true, Satfinite: true, BitOp: XorPopc, Selector: 3,
		Tgt: target.MustParse("sm_120a", "")}}

func TestDomain(t *testing.T) { suite.Run(t) }

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
	domaintest.ParseJSON(t, Domain, []domaintest.Parsed{
		{Name: "empty", In: `{}`, Want: base},
		{Name: "tf32 spelling", In: `{"a_type":"tf32","shape":[16,8,8]}`, Want: with(func(v *Value) {
			v.AType, v.BType, v.TF32, v.Shape[2] = F32, F32, true, 8
		})},
		{Name: "integer accumulators", In: `{"a_type":"s8","b_type":"u8"}`, Want: with(func(v *Value) {
			v.AType, v.BType, v.CType, v.DType = S8, U8, S32, S32
		})},
		{Name: "f64 accumulators", In: `{"a_type":"f64"}`, Want: with(func(v *Value) { v.AType, v.BType, v.CType, v.DType = F64, F64, F64, F64 })},
		{Name: "b1 defaults to and.popc", In: `{"a_type":"b1"}`, Want: with(func(v *Value) {
			v.AType, v.BType, v.CType, v.DType, v.BitOp = B1, B1, S32, S32, AndPopc
		})},
		{Name: "sparse", In: `{"sparsity":"sp::ordered_metadata","selector":3,"shape":[16,8,32],"d_type":"f16","ptx":"8.5"}`,
			Want: with(func(v *Value) {
				v.Sparsity, v.Selector, v.Shape[2], v.DType, v.Tgt = SPOrdered, 3, 32, F16, target.MustParse("sm_80", "8.5")
			})},
		{Name: "short shape", In: `{"shape":[16,8],"a_layout":"col","b_layout":"row","satfinite":true,"tf32_enabled":true}`,
			Want: with(func(v *Value) {
				v.ShapeRank, v.Shape, v.ALayout, v.BLayout = 2, [MaxShapeRank]uint16{16, 8}, Col, Row
				v.Satfinite, v.TF32 = true, true
			})},
	})
}

func TestJSONStrict(t *testing.T) {
	domaintest.ParseJSONRefuses(t, Domain, []domaintest.Refused{
		{In: `{"bogus":1}`, Field: "bogus"},
		{In: `{"sparsity":"sp2"}`, Field: "sparsity"},
		{In: `{"shape":[1,2,3,4,5]}`, Field: "shape"},
		{In: `{"shape":[16,8,512]}`, Field: "shape"},
		{In: `{"shape":[-1]}`, Field: "shape"},
		{In: `{"a_layout":"diag"}`, Field: "a_layout"},
		{In: `{"b_layout":"rows"}`, Field: "b_layout"},
		{In: `{"a_type":"fp8"}`, Field: "a_type"},
		{In: `{"b_type":"i8"}`, Field: "b_type"},
		{In: `{"c_type":"tf32"}`, Field: "c_type"},
		{In: `{"d_type":"x"}`, Field: "d_type"},
		{In: `{"a_type":"tf32","tf32_enabled":false}`, Field: "tf32_enabled"},
		{In: `{"satfinite":"yes"}`, Field: "satfinite"},
		{In: `{"bit_op":"or"}`, Field: "bit_op"},
		{In: `{"sparsity":"sp","selector":4}`, Field: "selector"},
		{In: `{"selector":1}`, Field: "selector"},
		{In: `{"target":"sm_75"}`, Field: "target"},
		{In: `{"ptx":"6.x"}`, Field: "ptx"},
	})
}

func BenchmarkDecode(b *testing.B) { domaintest.BenchDecode(b, Domain, 16) }
