package store

import "testing"

// TestFixedUpstream: a bucket LLVM main no longer shows while a release
// does is fixed upstream; one main still shows, or no release shows, is
// not.
func TestFixedUpstream(t *testing.T) {
	vv := func(oracle, version, outcome string) VersionVerdict {
		return VersionVerdict{Oracle: oracle, Version: version, Outcome: outcome}
	}
	for _, tc := range []struct {
		name     string
		versions []VersionVerdict
		want     bool
		on       string // a label it reproduces on
	}{
		{"trunk fixed, 23 has it", []VersionVerdict{vv("mlir@23", "mlir-opt 23.1.4", Reproduces), vv("mlir@trunk", "mlir-opt 24.0.0", Fixed)}, true, "23"},
		{"trunk still has it", []VersionVerdict{vv("mlir@23", "mlir-opt 23.1.4", Reproduces), vv("mlir@trunk", "mlir-opt 24.0.0", Reproduces)}, false, "trunk"},
		{"a git build fixed it", []VersionVerdict{vv("llc@22", "22.1.8", Reproduces), vv("llc@mine", "24.0.0git", Fixed)}, true, "22"},
		{"trunk cannot judge", []VersionVerdict{vv("llc@22", "22.1.8", Reproduces), vv("llc@trunk", "24.0.0", CannotJudge)}, false, "22"},
		{"no release has it", []VersionVerdict{vv("llc@22", "22.1.8", Fixed), vv("llc@trunk", "24.0.0", Fixed)}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := Bucket{Versions: tc.versions}
			if got := b.FixedUpstream(); got != tc.want {
				t.Errorf("FixedUpstream = %t, want %t", got, tc.want)
			}
			if tc.on != "" && !b.ReproducesOn(tc.on) {
				t.Errorf("does not reproduce on %s: %s", tc.on, b.FoundIn())
			}
			if b.ReproducesOn("19") {
				t.Errorf("reproduces on 19, which never replayed it")
			}
		})
	}
}
