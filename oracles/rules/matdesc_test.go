package rules

import (
	"math/rand/v2"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	md "github.com/legalfuzz/legalfuzz/fuzz/matdesc"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

var (
	mdWG = md.Value{Format: md.WGMMA, StartAddr: 0x400, LBO: 16, SBO: 1024, Swizzle: 1, Uniform: true,
		Tgt: target.MustParse("sm_90a", "")}
	mdTC = md.Value{Format: md.TCGen05, StartAddr: 0x1000, LBO: 16, SBO: 1024, Swizzle: 2, Fixed46: 1, Uniform: true,
		Tgt: target.MustParse("sm_100a", "")}
)

func mdWith(v md.Value, f func(*md.Value)) md.Value { f(&v); return v }

const (
	mdQuant   = "WGMMA descriptor quantization: `matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4` (16B granularity)."
	mdSwzEnum = "WGMMA descriptor has enumerated swizzle modes and disallows invalid bit patterns."
	mdUniform = "WGMMA descriptors must be warpgroup-uniform (“identical across all warps in a warpgroup”)."
	mdAlign   = "WGMMA shared-memory multiplicand addresses must be 16B-aligned; non-16B offsets break encodability."
	mdAvail   = "WGMMA availability is a Hopper feature gated by target notes (e.g., `sm_90a`)."
)

func TestMatDescSeedLadder(t *testing.T) {
	runRuleRows(t, matdescSeed, []ruleRow[md.Value]{
		{"wgmma K-major 128B", mdWG, "", "0x0010001000004040"},
		{"tcgen05 128B", mdTC, "", "0x0020001000004100"},
		{"wgmma below the floor", mdWith(mdWG, func(v *md.Value) { v.Tgt = target.MustParse("sm_90", "") }),
			"seed.matdesc.floor", "nvgpu.warpgroup.descriptor | sm_90a | (no PTX; SMEM descriptor synthesis) | n/a"},
		{"start beyond 18 bits", mdWith(mdWG, func(v *md.Value) { v.StartAddr = 0x40000 }), "seed.matdesc.quantization", mdQuant},
		{"wgmma 32B swizzle", mdWith(mdWG, func(v *md.Value) { v.Swizzle = 3 }), "seed.matdesc.swizzle-enum", mdSwzEnum},
		{"tcgen05 swizzle 7", mdWith(mdTC, func(v *md.Value) { v.Swizzle = 7 }), "seed.matdesc.swizzle-enum", mdSwzEnum},
		{"not uniform", mdWith(mdWG, func(v *md.Value) { v.Uniform = false }), "seed.matdesc.uniform", mdUniform},
		{"tcgen05 not uniform", mdWith(mdTC, func(v *md.Value) { v.Uniform = false }), "seed.matdesc.uniform", mdUniform},
		{"SBO not 16-byte aligned", mdWith(mdWG, func(v *md.Value) { v.SBO = 1000 }), "seed.matdesc.alignment", mdAlign},
		{"wgmma on sm_100a", mdWith(mdWG, func(v *md.Value) { v.Tgt = target.MustParse("sm_100a", "") }),
			"seed.matdesc.availability", mdAvail},
		{"tcgen05 64B swizzle", mdWith(mdTC, func(v *md.Value) { v.Swizzle = 4 }), "seed.matdesc.layout-004",
			seed004LayoutText + ": swizzle_mode 4 does not fit 2 bits"},
		{"tcgen05 on Hopper passes the wgmma gates", mdWith(mdTC, func(v *md.Value) { v.Tgt = mdWG.Tgt }), "", "0x0020001000004100"},
	})
}

func TestMatDescPTXISALadder(t *testing.T) {
	runRuleRows(t, matdescPTXISA, []ruleRow[md.Value]{
		{"wgmma K-major 128B", mdWG, "", "0x4000004000010040"},
		{"wgmma 32B swizzle", mdWith(mdWG, func(v *md.Value) { v.Swizzle = 3 }), "", "0xc000004000010040"},
		{"tcgen05 128B", mdTC, "", "0x4000404000010100"},
		{"tcgen05 64B swizzle", mdWith(mdTC, func(v *md.Value) { v.Swizzle = 4 }), "", "0x8000404000010100"},
		{"tcgen05 not uniform", mdWith(mdTC, func(v *md.Value) { v.Uniform = false }), "", "0x4000404000010100"},
		{"tcgen05 absolute LBO on sm_103a", mdWith(mdTC, func(v *md.Value) { v.LBOMode, v.Tgt = true, target.MustParse("sm_103a", "") }),
			"", "0x4010404000010100"},
		{"old PTX", mdWith(mdWG, func(v *md.Value) { v.Tgt = target.MustParse("sm_90a", "7.8") }),
			"ptxisa.matdesc.target-ptx-version", "PTX ISA version does not know the .target: sm_90a (PTX 7.8)"},
		{"wgmma on sm_100a", mdWith(mdWG, func(v *md.Value) { v.Tgt = mdTC.Tgt }), "ptxisa.matdesc.wgmma-target",
			"wgmma matrix descriptors require sm_90a"},
		{"tcgen05 on sm_90a", mdWith(mdTC, func(v *md.Value) { v.Tgt = mdWG.Tgt }), "ptxisa.matdesc.tcgen05-target",
			"tcgen05 shared memory descriptors require sm_100a, sm_101a, sm_103a or sm_110a, or an f-family target from PTX 8.8"},
		{"LBO beyond 18 bits", mdWith(mdWG, func(v *md.Value) { v.LBO = 0x40010 }), "ptxisa.matdesc.field-range",
			"matrix-descriptor-encode keeps bits 4-17: start address, LBO and SBO must be below 2^18: LBO 0x40010"},
		{"start and SBO misaligned", mdWith(mdWG, func(v *md.Value) { v.StartAddr, v.SBO = 0x408, 1000 }), "ptxisa.matdesc.alignment",
			"matrix start address, LBO and SBO must be 16-byte aligned: start address 0x408, SBO 0x3e8"},
		{"tcgen05 swizzle 5", mdWith(mdTC, func(v *md.Value) { v.Swizzle = 5 }), "ptxisa.matdesc.swizzle-invalid",
			"tcgen05 swizzle mode values 3, 5 and 7 are invalid"},
		{"tcgen05 version bits unset", mdWith(mdTC, func(v *md.Value) { v.Fixed46 = 0 }), "ptxisa.matdesc.fixed-46-48",
			"tcgen05 descriptor bits 46-48 must hold the fixed value 0b001"},
		{"tcgen05 bits 53-60 set", mdWith(mdTC, func(v *md.Value) { v.Fixed53 = 2 }), "ptxisa.matdesc.fixed-53-60",
			"tcgen05 descriptor bits 53-60 must be zero"},
		{"reserved bit 30", mdWith(mdWG, func(v *md.Value) { v.Reserved = 1 << 30 }), "ptxisa.matdesc.reserved",
			"descriptor bits outside the listed fields are reserved and must be zero: 0x0000000040000000"},
		{"absolute LBO on sm_100a", mdWith(mdTC, func(v *md.Value) { v.LBOMode = true }), "ptxisa.matdesc.lbo-mode-target",
			"the absolute leading-dimension address mode (bit 52) requires sm_103a"},
		{"base offset without swizzle", mdWith(mdWG, func(v *md.Value) { v.Swizzle, v.BaseOffset = 0, 2 }),
			"ptxisa.matdesc.base-offset-no-swizzle", "the wgmma matrix base offset is not valid in the no-swizzle mode"},
		{"not uniform", mdWith(mdWG, func(v *md.Value) { v.Uniform = false }), "ptxisa.matdesc.uniform",
			"wgmma matrix descriptor contents must be identical across the warps of the warpgroup"},
	})
}

// TestMatDescLayoutsDiffer pins seed 004's layout against the PTX ISA's on
// the same fields: the words differ, which is data, and each round-trips.
func TestMatDescLayoutsDiffer(t *testing.T) {
	if packSeed004(mdWG) == mdWG.Raw() {
		t.Fatal("seed 004 and PTX layouts agree on a descriptor with LBO and SBO set")
	}
	if got := unpackSeed004(packSeed004(mdWG)); got != seed004Fields(mdWG) {
		t.Fatalf("seed 004 round trip %v", got)
	}
	odd := mdWith(mdTC, func(v *md.Value) { v.Swizzle, v.StartAddr = 6, 0xfffff })
	if err := SelfCheck(md.Name, odd); err != nil {
		t.Fatal(err)
	}
}

// TestMatDescSelfCheckRandom runs the round-trip self-check over random
// fields and words of both formats.
func TestMatDescSelfCheckRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(0xde5c, 7))
	for range domaintest.Iterations(5000, 300) {
		for _, f := range []md.Format{md.WGMMA, md.TCGen05} {
			v := md.FromRaw(f, rng.Uint64(), rng.IntN(2) == 0, mdWG.Tgt)
			v.StartAddr, v.LBO, v.SBO = rng.Uint32(), rng.Uint32(), rng.Uint32()
			if err := SelfCheck(md.Name, v); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestMatDescSeedProvenance(t *testing.T) {
	for _, r := range matdescSeed.Rules() {
		if r.Source == "" {
			t.Errorf("%s: no source", r.ID)
		}
	}
	for _, id := range []string{"seed.matdesc.swizzle-enum", "seed.matdesc.uniform", "seed.matdesc.layout-004"} {
		if r := ruleByID(matdescSeed.Rules(), id); r == nil || r.Doubtful == "" {
			t.Errorf("%s should be marked doubtful", id)
		}
	}
}

func ruleByID(rules []*Rule, id string) *Rule {
	for _, r := range rules {
		if r.ID == id {
			return r
		}
	}
	return nil
}
