package rules

import (
	"strconv"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
	tm "github.com/legalfuzz/legalfuzz/fuzz/tmamode"
)

func init() { register(tmamodeSeed, tmamodePTXISA) }

const seed001TMA = "seed 001, TMA Rank and Mode Gates (verify_tma_rank_and_mode)"

func tmSeedRule(n int, name, msg, doubt string) *Rule {
	return seedRule(tm.Name, strconv.Itoa(n)+"-"+name, msg, seed001TMA, doubt)
}

// tmSupportsBlackwellModes is the seed's target.supports_blackwell_tma_modes,
// which it does not define; we read it as any SM 10.0 or newer target.
func tmSupportsBlackwellModes(t target.Target) bool { return t.Arch.SM >= 100 }

// tmamodeSeed is seed 001's verify_tma_rank_and_mode as written: four
// require() gates, the seed's mode lists as they stand (IM2COL_NO_OFFS is not
// among its im2col modes, GATHER4 is gated by nothing).
var tmamodeSeed = &Ladder[tm.Value]{Set: Seed, Domain: tm.Name,
	Checks: []Check[tm.Value]{
		{Rule: tmSeedRule(1, "rank", "require(1 <= rank && rank <= 5)", ""),
			Fires: func(v tm.Value) bool { return !(1 <= v.Rank && v.Rank <= 5) }},
		{Rule: tmSeedRule(2, "im2col-rank", "require(rank >= 3)",
			"the seed's list (IM2COL, IM2COL_W, IM2COL_W128) misses the store mode .im2col_no_offs, which PTX also limits to 3d-5d"),
			Fires: func(v tm.Value) bool {
				return (v.Mode == tm.Im2col || v.Mode == tm.Im2colW || v.Mode == tm.Im2colW128) && !(v.Rank >= 3)
			}},
		{Rule: tmSeedRule(3, "scatter4-rank", "require(rank == 2)",
			"the seed does not gate .tile::gather4, which PTX also limits to .2d (box dim1 == 1, no interleave); nor scatter4's box and interleave"),
			Fires: func(v tm.Value) bool { return v.Mode == tm.Scatter4 && !(v.Rank == 2) }},
		{Rule: tmSeedRule(4, "im2col-w-target", "require(target.supports_blackwell_tma_modes)",
			"read as SM >= 100; PTX asks sm_100a/sm_101a/sm_103a/sm_110a (f-family from PTX 8.8) for .im2col::w::128 and for .im2col::w into "+
				".shared::cluster or L2 but admits any sm_100+ for .im2col::w into .shared::cta, and both need PTX 8.6; "+
				"the seed also leaves gather4/scatter4 without a target gate"),
			Fires: func(v tm.Value) bool {
				return (v.Mode == tm.Im2colW || v.Mode == tm.Im2colW128) && !tmSupportsBlackwellModes(v.Tgt)
			}},
	},
}
