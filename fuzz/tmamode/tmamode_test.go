package tmamode

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

var suite = domaintest.Suite{Domain: Domain, SeedEnv: "TMAMODE_SEED", Seed: 0x7a3a, Stream: 2, N: 20000, MaxLen: 24,
	Full: Value{Direction: Store, Mode: Scatter4, Rank: 2, Dst: Global, BoxDim1: 1, Tgt: target.MustParse("sm_100a", "")}}

func TestDomain(t *testing.T) { suite.Run(t) }

func TestJSONDefaults(t *testing.T) {
	sm90a := target.MustParse("sm_90a", "")
	domaintest.ParseJSON(t, Domain, []domaintest.Parsed{
		{Name: "empty", In: `{}`, Want: Value{Direction: Load, Mode: Tile, Rank: 2, Dst: SharedCluster, BoxDim1: 1, Tgt: sm90a}},
		{Name: "store", In: `{"direction":"store","mode":"tile::scatter4","target":"sm_100a"}`,
			Want: Value{Direction: Store, Mode: Scatter4, Rank: 2, Dst: Global, BoxDim1: 1, Tgt: target.MustParse("sm_100a", "")}},
		{Name: "prefetch", In: `{"direction":"prefetch","rank":4,"mode":"im2col"}`,
			Want: Value{Direction: Prefetch, Mode: Im2col, Rank: 4, Dst: L2, BoxDim1: 1, Tgt: sm90a}},
		{Name: "explicit", In: `{"dst":"shared::cta","cta_group":2,"multicast":true,"w_halo":3,"w_offset":4,"interleave":"32B","box_dim1":7,"ptx":"8.6"}`,
			Want: Value{Direction: Load, Mode: Tile, Rank: 2, Dst: SharedCTA, CTAGroup: 2, Multicast: true, WHalo: 3,
				WOffset: 4, Interleave: 2, BoxDim1: 7, Tgt: target.MustParse("sm_90a", "8.6")}},
	})
}

func TestJSONStrict(t *testing.T) {
	domaintest.ParseJSONRefuses(t, Domain, []domaintest.Refused{
		{In: `{"bogus":1}`, Field: "bogus"},
		{In: `{"direction":"reduce"}`, Field: "direction"},
		{In: `{"mode":"tile::gather8"}`, Field: "mode"},
		{In: `{"rank":8}`, Field: "rank"},
		{In: `{"rank":-1}`, Field: "rank"},
		{In: `{"dst":"shared"}`, Field: "dst"},
		{In: `{"cta_group":3}`, Field: "cta_group"},
		{In: `{"multicast":1}`, Field: "multicast"},
		{In: `{"box_dim1":-1}`, Field: "box_dim1"},
		{In: `{"interleave":"64B"}`, Field: "interleave"},
		{In: `{"w_halo":65536}`, Field: "w_halo"},
		{In: `{"w_offset":-1}`, Field: "w_offset"},
		{In: `{"target":"sm_99"}`, Field: "target"},
		{In: `{"ptx":"9"}`, Field: "ptx"},
	})
}

func BenchmarkDecode(b *testing.B) { domaintest.BenchDecode(b, Domain, 16) }
