package tmamode

import (
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Seeds are legal instructions of every direction and mode, one instruction
// on each side of every gate of seed 001's verify_tma_rank_and_mode, and
// one-field changes of legal instructions that each cross one PTX ISA rule.
func Seeds() []domain.Value {
	var (
		sm90    = target.MustParse("sm_90", "8.0")
		sm90a   = target.MustParse("sm_90a", "")
		sm90a86 = target.MustParse("sm_90a", "8.6")
		sm100   = target.MustParse("sm_100", "")
		sm100a  = target.MustParse("sm_100a", "")
		sm100f  = target.MustParse("sm_100f", "")
		sm120a  = target.MustParse("sm_120a", "")
	)
	load := func(m Mode, rank uint8, t target.Target) Value {
		return Value{Direction: Load, Mode: m, Rank: rank, Dst: SharedCluster, BoxDim1: 1, Tgt: t}
	}
	with := func(v Value, f func(*Value)) domain.Value { f(&v); return v }
	store := func(m Mode, rank uint8, t target.Target) Value {
		return Value{Direction: Store, Mode: m, Rank: rank, Dst: Global, BoxDim1: 1, Tgt: t}
	}
	prefetch := func(m Mode, rank uint8, t target.Target) Value {
		return Value{Direction: Prefetch, Mode: m, Rank: rank, Dst: L2, BoxDim1: 1, Tgt: t}
	}
	return []domain.Value{
		// Legal instructions.
		load(Tile, 1, sm90), load(Tile, 5, sm90a), load(Im2col, 3, sm90), load(Im2col, 5, sm90a),
		with(load(Tile, 2, sm90), func(v *Value) { v.Multicast = true }),
		with(load(Tile, 2, sm90a86), func(v *Value) { v.Dst = SharedCTA }),
		with(load(Gather4, 2, sm100a), func(v *Value) { v.CTAGroup = 2; v.Multicast = true }),
		with(load(Gather4, 2, sm100), func(v *Value) { v.Dst = SharedCTA }),
		with(load(Im2colW, 4, sm100a), func(v *Value) { v.WHalo, v.WOffset = 511, 31 }),
		with(load(Im2colW, 3, sm100), func(v *Value) { v.Dst = SharedCTA }),
		with(load(Im2colW128, 5, sm100f), func(v *Value) { v.WHalo, v.CTAGroup = 31, 1 }),
		store(Tile, 3, sm90), store(Im2colNoOffs, 3, sm90a), store(Scatter4, 2, sm100a),
		prefetch(Tile, 2, sm90), prefetch(Im2col, 4, sm90a), prefetch(Gather4, 2, sm100a),
		with(load(Im2col, 3, sm90a), func(v *Value) { v.CacheHint, v.Multicast = true, true }),
		with(store(Tile, 2, sm90), func(v *Value) { v.CacheHint = true }),
		with(prefetch(Tile, 1, sm90a), func(v *Value) { v.CacheHint = true }),
		// Seed gates, both sides.
		load(Tile, 0, sm90a), load(Tile, 6, sm90a), load(Im2col, 2, sm90a), load(Im2colW, 2, sm100a),
		store(Scatter4, 3, sm100a), load(Im2colW, 3, sm90a), load(Im2colW128, 3, sm120a),
		load(Gather4, 3, sm100a), store(Im2colNoOffs, 2, sm90a), load(ModeReserved, 2, sm90a),
		// PTX ISA boundaries.
		load(Tile, 2, target.MustParse("sm_100a", "8.4")),
		load(Tile, 2, target.MustParse("sm_80", "")),
		load(Tile, 2, target.MustParse("sm_90", "7.8")),
		with(load(Tile, 2, target.MustParse("sm_90", "7.8")), func(v *Value) { v.CacheHint = true }),
		store(Gather4, 2, sm100a),
		with(load(Tile, 2, sm90a), func(v *Value) { v.Dst = Global }),
		with(load(Tile, 2, sm90a), func(v *Value) { v.Dst = SharedCTA }),
		with(load(Gather4, 2, sm100a), func(v *Value) { v.BoxDim1 = 2 }),
		with(load(Gather4, 2, sm100a), func(v *Value) { v.Interleave = 2 }),
		with(load(Tile, 2, sm90a), func(v *Value) { v.WHalo = 1 }),
		with(load(Im2colW, 3, sm100a), func(v *Value) { v.WHalo = 512 }),
		with(load(Im2colW128, 3, sm100a), func(v *Value) { v.WHalo = 32 }),
		with(load(Im2colW, 3, sm100a), func(v *Value) { v.WOffset = 32 }),
		load(Gather4, 2, sm90a),
		load(Gather4, 2, sm100),
		with(load(Gather4, 2, target.MustParse("sm_90", "8.6")), func(v *Value) { v.Dst = SharedCTA }),
		store(Scatter4, 2, sm100),
		with(store(Tile, 2, sm90a), func(v *Value) { v.Multicast = true }),
		with(load(Tile, 2, sm90a86), func(v *Value) { v.Dst, v.Multicast = SharedCTA, true }),
		with(store(Tile, 2, sm100a), func(v *Value) { v.CTAGroup = 1 }),
		with(load(Tile, 2, sm90a), func(v *Value) { v.CTAGroup = 1 }),
		with(load(Tile, 2, sm90a86), func(v *Value) { v.CTAGroup = 2 }),
		prefetch(Gather4, 2, sm100),
	}
}
