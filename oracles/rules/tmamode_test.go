package rules

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
	tm "github.com/legalfuzz/legalfuzz/fuzz/tmamode"
)

func tmLoad(m tm.Mode, rank uint8, arch, ptx string) tm.Value {
	return tm.Value{Direction: tm.Load, Mode: m, Rank: rank, Dst: tm.SharedCluster, BoxDim1: 1, Tgt: target.MustParse(arch, ptx)}
}

func tmStore(m tm.Mode, rank uint8, arch, ptx string) tm.Value {
	return tm.Value{Direction: tm.Store, Mode: m, Rank: rank, Dst: tm.Global, BoxDim1: 1, Tgt: target.MustParse(arch, ptx)}
}

func tmPrefetch(m tm.Mode, rank uint8, arch, ptx string) tm.Value {
	return tm.Value{Direction: tm.Prefetch, Mode: m, Rank: rank, Dst: tm.L2, BoxDim1: 1, Tgt: target.MustParse(arch, ptx)}
}

func tmWith(v tm.Value, f func(*tm.Value)) tm.Value { f(&v); return v }

func TestTMAModeSeedRules(t *testing.T) {
	runFiringRows(t, tmamodeSeed, []ruleRow[tm.Value]{
		{"rank 0", tmLoad(tm.Tile, 0, "sm_90a", ""), "seed.tmamode.1-rank", "require(1 <= rank && rank <= 5)"},
		{"rank 6", tmLoad(tm.Tile, 6, "sm_90a", ""), "seed.tmamode.1-rank", "require(1 <= rank && rank <= 5)"},
		{"im2col 2d", tmLoad(tm.Im2col, 2, "sm_90a", ""), "seed.tmamode.2-im2col-rank", "require(rank >= 3)"},
		{"im2col::w::128 2d", tmLoad(tm.Im2colW128, 2, "sm_100a", ""), "seed.tmamode.2-im2col-rank", "require(rank >= 3)"},
		{"scatter4 3d", tmStore(tm.Scatter4, 3, "sm_100a", ""), "seed.tmamode.3-scatter4-rank", "require(rank == 2)"},
		{"im2col::w on sm_90a", tmLoad(tm.Im2colW, 3, "sm_90a", ""), "seed.tmamode.4-im2col-w-target", "require(target.supports_blackwell_tma_modes)"},
		{"fail-first: im2col::w 2d on sm_90a", tmLoad(tm.Im2colW, 2, "sm_90a", ""), "seed.tmamode.2-im2col-rank", "require(rank >= 3)"},
	})
}

func TestTMAModePTXISARules(t *testing.T) {
	const (
		gather4W  = ".tile::gather4 and .im2col::w require sm_100+ into .shared::cta, else sm_100a, sm_101a, sm_103a, sm_110a or their f-family"
		scatterW  = ".tile::scatter4 and .im2col::w::128 require sm_100a, sm_101a, sm_103a, sm_110a or their f-family"
		multicast = ".multicast::cluster requires a load into .shared::cluster"
		wHalo     = "wHalo must be below 512 for .im2col::w and below 32 for .im2col::w::128"
	)
	runFiringRows(t, tmamodePTXISA, []ruleRow[tm.Value]{
		{"sm_100a at PTX 8.4", tmLoad(tm.Tile, 2, "sm_100a", "8.4"), "ptxisa.tmamode.target-ptx-version",
			"PTX ISA version does not know the .target: sm_100a (PTX 8.4)"},
		{"sm_90 at PTX 7.8", tmLoad(tm.Tile, 2, "sm_90", "7.8"), "ptxisa.tmamode.base-target", "cp.async.bulk.tensor requires sm_90 and PTX ISA 8.0"},
		{"sm_89", tmLoad(tm.Tile, 2, "sm_89", "8.0"), "ptxisa.tmamode.base-target", "cp.async.bulk.tensor requires sm_90 and PTX ISA 8.0"},
		{"reserved mode", tmLoad(tm.ModeReserved, 2, "sm_90a", ""), "ptxisa.tmamode.mode", "no load or store mode matches this encoding"},
		{"6d", tmLoad(tm.Tile, 6, "sm_90a", ""), "ptxisa.tmamode.dim", ".dim must be .1d to .5d (6d)"},
		{"store gather4", tmStore(tm.Gather4, 2, "sm_100a", ""), "ptxisa.tmamode.mode-direction",
			"loads and prefetches take .tile, .tile::gather4 and the .im2col modes; stores take .tile, .tile::scatter4 and .im2col_no_offs (store .tile::gather4)"},
		{"prefetch scatter4", tmPrefetch(tm.Scatter4, 2, "sm_100a", ""), "ptxisa.tmamode.mode-direction",
			"loads and prefetches take .tile, .tile::gather4 and the .im2col modes; stores take .tile, .tile::scatter4 and .im2col_no_offs (prefetch .tile::scatter4)"},
		{"load to global", tmWith(tmLoad(tm.Tile, 2, "sm_90a", ""), func(v *tm.Value) { v.Dst = tm.Global }), "ptxisa.tmamode.dst-direction",
			"loads write .shared::cluster or .shared::cta, stores .global (from .shared::cta), prefetches .L2 (load to .global)"},
		{"shared::cta at PTX 8.0", tmWith(tmLoad(tm.Tile, 2, "sm_90a", ""), func(v *tm.Value) { v.Dst = tm.SharedCTA }), "ptxisa.tmamode.shared-cta-ptx",
			"a .shared::cta destination requires PTX ISA 8.6"},
		{"im2col_no_offs 2d", tmStore(tm.Im2colNoOffs, 2, "sm_90a", ""), "ptxisa.tmamode.im2col-dims", "the .im2col modes require .3d to .5d"},
		{"gather4 3d", tmLoad(tm.Gather4, 3, "sm_100a", ""), "ptxisa.tmamode.gather-scatter-dims", ".tile::gather4 and .tile::scatter4 require .2d"},
		{"gather4 box dim1 2", tmWith(tmLoad(tm.Gather4, 2, "sm_100a", ""), func(v *tm.Value) { v.BoxDim1 = 2 }), "ptxisa.tmamode.gather-scatter-box",
			".tile::gather4 and .tile::scatter4 require a tensor map with box dim1 == 1 (box dim1 = 2)"},
		{"scatter4 interleaved", tmWith(tmStore(tm.Scatter4, 2, "sm_100a", ""), func(v *tm.Value) { v.Interleave = 1 }), "ptxisa.tmamode.gather-scatter-interleave",
			".tile::gather4 and .tile::scatter4 require a tensor map without interleave"},
		{"tile with wOffset", tmWith(tmLoad(tm.Tile, 2, "sm_90a", ""), func(v *tm.Value) { v.WOffset = 1 }), "ptxisa.tmamode.w-operands",
			"wHalo and wOffset exist only for .im2col::w and .im2col::w::128"},
		{"im2col::w wHalo 512", tmWith(tmLoad(tm.Im2colW, 3, "sm_100a", ""), func(v *tm.Value) { v.WHalo = 512 }), "ptxisa.tmamode.w-halo", wHalo + " (wHalo = 512)"},
		{"im2col::w::128 wHalo 32", tmWith(tmLoad(tm.Im2colW128, 3, "sm_100a", ""), func(v *tm.Value) { v.WHalo = 32 }), "ptxisa.tmamode.w-halo", wHalo + " (wHalo = 32)"},
		{"wOffset 32", tmWith(tmLoad(tm.Im2colW, 3, "sm_100a", ""), func(v *tm.Value) { v.WOffset = 32 }), "ptxisa.tmamode.w-offset", "wOffset must be below 32 (wOffset = 32)"},
		{"gather4 at PTX 8.0", tmLoad(tm.Gather4, 2, "sm_90a", ""), "ptxisa.tmamode.new-modes-ptx",
			".tile::gather4, .tile::scatter4, .im2col::w and .im2col::w::128 require PTX ISA 8.6"},
		{"gather4 into shared::cluster on sm_100", tmLoad(tm.Gather4, 2, "sm_100", ""), "ptxisa.tmamode.gather4-w-target", gather4W},
		{"im2col::w into shared::cta on sm_90", tmWith(tmLoad(tm.Im2colW, 3, "sm_90", "8.6"), func(v *tm.Value) { v.Dst = tm.SharedCTA }),
			"ptxisa.tmamode.gather4-w-target", gather4W},
		{"prefetch gather4 on sm_120", tmPrefetch(tm.Gather4, 2, "sm_120", ""), "ptxisa.tmamode.gather4-w-target", gather4W},
		{"scatter4 on sm_100", tmStore(tm.Scatter4, 2, "sm_100", ""), "ptxisa.tmamode.scatter4-w128-target", scatterW},
		{"im2col::w::128 on sm_120a", tmLoad(tm.Im2colW128, 3, "sm_120a", ""), "ptxisa.tmamode.scatter4-w128-target", scatterW},
		{"im2col::w::128 on sm_120f", tmLoad(tm.Im2colW128, 3, "sm_120f", ""), "ptxisa.tmamode.scatter4-w128-target", scatterW},
		{"store multicast", tmWith(tmStore(tm.Tile, 2, "sm_90a", ""), func(v *tm.Value) { v.Multicast = true }), "ptxisa.tmamode.multicast", multicast},
		{"shared::cta multicast", tmWith(tmLoad(tm.Tile, 2, "sm_90a", "8.6"), func(v *tm.Value) { v.Dst, v.Multicast = tm.SharedCTA, true }),
			"ptxisa.tmamode.multicast", multicast},
		{"prefetch cta_group", tmWith(tmPrefetch(tm.Tile, 2, "sm_100a", ""), func(v *tm.Value) { v.CTAGroup = 1 }), "ptxisa.tmamode.cta-group-direction",
			".cta_group applies to loads only"},
		{"cta_group at PTX 8.0", tmWith(tmLoad(tm.Tile, 2, "sm_90a", ""), func(v *tm.Value) { v.CTAGroup = 1 }), "ptxisa.tmamode.cta-group-ptx",
			".cta_group requires PTX ISA 8.6"},
		{"cta_group on sm_100", tmWith(tmLoad(tm.Tile, 2, "sm_100", ""), func(v *tm.Value) { v.CTAGroup = 2 }), "ptxisa.tmamode.cta-group-target",
			".cta_group requires sm_100a, sm_101a, sm_103a, sm_110a or their f-family"},
	})
}

// TestTMAModeDisagreements pins where the seed's gate is looser or tighter
// than the PTX ISA.
func TestTMAModeDisagreements(t *testing.T) {
	runDisagreements(t, tmamodeSeed, tmamodePTXISA, []disagreement[tm.Value]{
		{"gather4 3d: the seed does not gate gather4", tmLoad(tm.Gather4, 3, "sm_100a", ""), "", "ptxisa.tmamode.gather-scatter-dims"},
		{"im2col_no_offs 2d: not in the seed's im2col list", tmStore(tm.Im2colNoOffs, 2, "sm_90a", ""), "", "ptxisa.tmamode.im2col-dims"},
		{"im2col::w::128 on sm_120a: SM >= 100 but not sm_100a-class", tmLoad(tm.Im2colW128, 3, "sm_120a", ""), "", "ptxisa.tmamode.scatter4-w128-target"},
		{"im2col::w into shared::cluster on sm_100", tmLoad(tm.Im2colW, 3, "sm_100", ""), "", "ptxisa.tmamode.gather4-w-target"},
		{"scatter4 on sm_90a: no target gate in the seed", tmStore(tm.Scatter4, 2, "sm_90a", "8.6"), "", "ptxisa.tmamode.scatter4-w128-target"},
		{"im2col::w into shared::cta on sm_100: both accept", tmWith(tmLoad(tm.Im2colW, 3, "sm_100", ""), func(v *tm.Value) { v.Dst = tm.SharedCTA }), "", ""},
	})
}

// TestTMAModeAccepted pins accepted instructions and their spellings.
func TestTMAModeAccepted(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    tm.Value
		want string
	}{
		{"gather4 worked spelling", tmLoad(tm.Gather4, 2, "sm_100a", ""),
			"cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes"},
		{"tile 1d on sm_90", tmLoad(tm.Tile, 1, "sm_90", "8.0"),
			"cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"},
		{"multicast im2col 5d", tmWith(tmLoad(tm.Im2col, 5, "sm_90a", ""), func(v *tm.Value) { v.Multicast = true }),
			"cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster"},
		{"cta_group::2 im2col::w::128 on sm_100f", tmWith(tmLoad(tm.Im2colW128, 4, "sm_100f", ""), func(v *tm.Value) { v.CTAGroup, v.WHalo, v.WOffset = 2, 31, 31 }),
			"cp.async.bulk.tensor.4d.shared::cluster.global.im2col::w::128.mbarrier::complete_tx::bytes.cta_group::2"},
		{"gather4 into shared::cta on sm_120", tmWith(tmLoad(tm.Gather4, 2, "sm_120", ""), func(v *tm.Value) { v.Dst = tm.SharedCTA }),
			"cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes"},
		{"im2col::w wHalo 511", tmWith(tmLoad(tm.Im2colW, 3, "sm_110a", ""), func(v *tm.Value) { v.WHalo = 511 }),
			"cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes"},
		{"scatter4 store", tmStore(tm.Scatter4, 2, "sm_103a", ""), "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group"},
		{"im2col_no_offs store", tmStore(tm.Im2colNoOffs, 3, "sm_90a", ""), "cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group"},
		{"prefetch im2col::w", tmPrefetch(tm.Im2colW, 4, "sm_100a", ""), "cp.async.bulk.prefetch.tensor.4d.L2.global.im2col::w"},
		// .L2::cache_hint has no rule of its own: PTX ISA 8.0 and sm_90
		// bring it with each direction (ptxas 12.4 takes all three).
		{"cache hint multicast load", tmWith(tmLoad(tm.Im2col, 3, "sm_90", "8.0"), func(v *tm.Value) { v.CacheHint, v.Multicast = true, true }),
			"cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint"},
		{"cache hint store", tmWith(tmStore(tm.Tile, 2, "sm_90", "8.0"), func(v *tm.Value) { v.CacheHint = true }),
			"cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group.L2::cache_hint"},
		{"cache hint prefetch", tmWith(tmPrefetch(tm.Tile, 1, "sm_90", "8.0"), func(v *tm.Value) { v.CacheHint = true }),
			"cp.async.bulk.prefetch.tensor.1d.L2.global.tile.L2::cache_hint"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkAcceptsAll(t, tmamodePTXISA, tc.v, tc.want)
			checkAcceptsAll(t, tmamodeSeed, tc.v, "")
		})
	}
}
