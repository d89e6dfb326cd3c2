package store

import "testing"

// TestRename: every old name maps to an installation's oracle, a pair's
// sides are renamed each, and today's names stay.
func TestRename(t *testing.T) {
	for from, want := range map[string]string{
		"mlir":               "mlir@19",
		"mlir22-passes":      "mlir-passes@22",
		"llc19":              "llc@19",
		"amdgpu-mc22":        "amdgpu-mc@22",
		"ptxas~mlir22":       "ptxas~mlir@22",
		"llc@trunk":          "llc@trunk",
		"spec/ptxisa":        "spec/ptxisa",
		"mlir@23~mlir@trunk": "mlir@23~mlir@trunk",
	} {
		if got := rename(from); got != want {
			t.Errorf("rename(%q) = %q, want %q", from, got, want)
		}
	}
	if len(renamed) != 8 {
		t.Errorf("the table has %d names, want the 8 of the release-named oracles: %v", len(renamed), renamed)
	}
}
