package corpus

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"testing"
)

// minimumCover is the size of the smallest cover, by brute force.
func minimumCover(cands []Candidate) int {
	all := map[string]bool{}
	for _, c := range cands {
		for _, f := range c.Features {
			all[f] = true
		}
	}
	best := len(cands)
	for mask := 0; mask < 1<<len(cands); mask++ {
		got := map[string]bool{}
		for i, c := range cands {
			if mask&(1<<i) != 0 {
				for _, f := range c.Features {
					got[f] = true
				}
			}
		}
		if len(got) == len(all) {
			best = min(best, bits.OnesCount(uint(mask)))
		}
	}
	return best
}

func features(s string) []string { return strings.Fields(s) }

func TestCover(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cands []Candidate
		want  []int
	}{
		{
			// Greedy alone takes the broad c first and then needs a and b
			// as well; pruning drops c: the minimum is a and b.
			name: "pruning undoes a greedy first pick",
			cands: []Candidate{
				{ID: "a", Size: 1, Features: features("1 2 3 4 5 6")},
				{ID: "b", Size: 1, Features: features("7 8 9 10 11 12")},
				{ID: "c", Size: 1, Features: features("1 2 3 4 7 8 9")},
			},
			want: []int{0, 1},
		},
		{
			name: "ties go to the smaller case",
			cands: []Candidate{
				{ID: "big", Size: 9, Features: features("rule.x bucket.1")},
				{ID: "small", Size: 2, Features: features("rule.x bucket.1")},
				{ID: "other", Size: 5, Features: features("rule.y")},
			},
			want: []int{1, 2},
		},
		{
			name: "duplicated features count once",
			cands: []Candidate{
				{ID: "a", Size: 1, Features: features("x x x x")},
				{ID: "b", Size: 1, Features: features("x y")},
			},
			want: []int{1},
		},
		{name: "nothing to cover", cands: []Candidate{{ID: "a"}}, want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Cover(tc.cands)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Cover = %v, want %v", got, tc.want)
			}
			if len(tc.cands) > 0 && len(got) != minimumCover(tc.cands) {
				t.Fatalf("Cover took %d cases, the minimum is %d", len(got), minimumCover(tc.cands))
			}
		})
	}
}

// TestCoverRandomCoversEverything checks on pseudo-random instances that
// the cover is complete and within greedy's bound: H(d) times the minimum,
// d the largest candidate's feature count.
func TestCoverRandomCoversEverything(t *testing.T) {
	for seed := range 200 {
		var cands []Candidate
		n := 1 + seed%9
		for i := range n {
			var fs []string
			for f := range 10 {
				if (seed*31+i*17+f*7)%5 < 2 {
					fs = append(fs, fmt.Sprint(f))
				}
			}
			cands = append(cands, Candidate{ID: fmt.Sprint(i), Size: (i * 7) % 3, Features: fs})
		}
		got := Cover(cands)
		covered := map[string]bool{}
		for _, i := range got {
			for _, f := range cands[i].Features {
				covered[f] = true
			}
		}
		for _, c := range cands {
			for _, f := range c.Features {
				if !covered[f] {
					t.Fatalf("seed %d: feature %s not covered by %v", seed, f, got)
				}
			}
		}
		h, d := 0.0, 0
		for _, c := range cands {
			d = max(d, len(c.Features))
		}
		for k := 1; k <= d; k++ {
			h += 1 / float64(k)
		}
		if m := minimumCover(cands); float64(len(got)) > h*float64(m) {
			t.Fatalf("seed %d: %d picks, minimum %d", seed, len(got), m)
		}
	}
}

func TestWithExpectations(t *testing.T) {
	text := "module {\n  %a = op\n  %b = op\n}\n"
	got := withExpectations(text, []mlirDiag{
		{line: 3, kind: "error", msg: "first"},
		{line: 3, kind: "note", msg: "second }} cut"},
		{line: 1, kind: "warning", msg: "w"},
	})
	want := "// expected-warning @+1 {{w}}\nmodule {\n  %a = op\n  // expected-error @+2 {{first}}\n  // expected-note @+1 {{second}}\n  %b = op\n}\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestParseFormats(t *testing.T) {
	got, err := ParseFormats([]string{"go,ptx", "go", " mlir"})
	if err != nil || !slices.Equal(got, []Format{FormatGo, FormatPTX, FormatMLIR}) {
		t.Fatalf("ParseFormats = %v, %v", got, err)
	}
	if _, err := ParseFormats([]string{"pdf"}); err == nil || !strings.Contains(err.Error(), `"pdf"`) {
		t.Fatalf("ParseFormats(pdf) error %v", err)
	}
}
