package domain_test

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

func TestTypeBits(t *testing.T) {
	for name, want := range map[string]int{"b1": 1, "u4": 4, "e5m2": 8, "bf16": 16, "tf32": 32, "f64": 64, "?3": 0, "e2m1": 0} {
		if got := domain.TypeBits(name); got != want {
			t.Errorf("TypeBits(%q) = %d, want %d", name, got, want)
		}
	}
}
