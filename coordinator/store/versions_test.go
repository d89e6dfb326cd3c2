package store

import (
	"strings"
	"testing"
)

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
		{"trunk passes it on", []VersionVerdict{vv("mlir@23", "mlir-opt 23.1.4", Reproduces), vv("mlir@trunk", "mlir-opt 24.0.0", DecidedLater)}, true, "23"},
		{"trunk stops earlier", []VersionVerdict{vv("mlir@23", "mlir-opt 23.1.4", Reproduces), vv("mlir@trunk", "mlir-opt 24.0.0", StopsEarlier)}, false, "23"},
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

// TestRegression: a bug the oldest version that ran the stage under test
// lacks and a newer one has is a regression; a version that stops earlier
// or cannot judge says nothing either way, also for the newest version.
func TestRegression(t *testing.T) {
	vv := func(label, outcome string) VersionVerdict {
		return VersionVerdict{Oracle: "mlir@" + label, Outcome: outcome}
	}
	for _, tc := range []struct {
		name                  string
		versions              []VersionVerdict
		regression, newestHas bool
		cells                 string
	}{
		{"19 passes it on, 22 crashes", []VersionVerdict{vv("19", DecidedLater), vv("22", Reproduces)}, true, true, "later yes"},
		{"19 fixed, trunk has it", []VersionVerdict{vv("19", Fixed), vv("22", CannotJudge), vv("trunk", Reproduces)}, true, true, "fixed n/a yes"},
		{"19 stops earlier", []VersionVerdict{vv("19", StopsEarlier), vv("22", Reproduces)}, false, true, "earlier yes"},
		{"always there", []VersionVerdict{vv("19", Reproduces), vv("22", Reproduces)}, false, true, "yes yes"},
		{"trunk stops earlier", []VersionVerdict{vv("22", Reproduces), vv("trunk", StopsEarlier)}, false, true, "yes earlier"},
		{"trunk fails otherwise", []VersionVerdict{vv("22", Reproduces), vv("trunk", Differs)}, false, true, "yes other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := Bucket{Versions: tc.versions}
			var cells []string
			for _, v := range b.Versions {
				cells = append(cells, v.Cell())
			}
			if b.Regression() != tc.regression || b.NewestReproduces() != tc.newestHas || strings.Join(cells, " ") != tc.cells {
				t.Errorf("%s: regression %t, newest reproduces %t, cells %q; want %t, %t, %q", b.FoundIn(),
					b.Regression(), b.NewestReproduces(), cells, tc.regression, tc.newestHas, tc.cells)
			}
		})
	}
}
