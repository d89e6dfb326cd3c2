package valuecheck

import "testing"

func TestValueCheckInput(t *testing.T) {
	for _, c := range []struct {
		line, assign string
		lowered      bool
	}{
		{"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [1024], [4096, {param0, param1}], [?]",
			"op=cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes", false},
		{"mgpuTensorMapEncodeTiledMemref(?, ?, 6, 0, 1, 2, 1, [32, 64])", "callee=mgpuTensorMapEncodeTiledMemref", true},
	} {
		if a, l := Input(c.line); a != c.assign || l != c.lowered {
			t.Errorf("%s: got %s %v, want %s %v", c.line, a, l, c.assign, c.lowered)
		}
	}
}

func TestEmittedLine(t *testing.T) {
	diag := "ptx: cp.async src-size 16, want 8\nemitted: cp.async.ca.shared.global [256], [1048576], 16, 16\neffect: x"
	if got := EmittedLine(diag); got != "cp.async.ca.shared.global [256], [1048576], 16, 16" {
		t.Errorf("got %q", got)
	}
	if got := EmittedLine("ptx: no emitted line"); got != "" {
		t.Errorf("got %q", got)
	}
}
