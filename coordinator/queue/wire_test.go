package queue

import (
	"fmt"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/oracles"
)

func TestSplitResultFitsAndKeepsEveryVerdict(t *testing.T) {
	res := Result{V: Version, Campaign: "c", Batch: "b", Oracle: "o", Domain: "d", Elapsed: 7,
		Bad: []BadCase{{ID: "x", Error: "undecodable"}}}
	for i := range 100 {
		res.Verdicts = append(res.Verdicts, oracles.Verdict{Oracle: "o", Case: fmt.Sprint(i), Kind: oracles.Error,
			Diagnostic: strings.Repeat("d", 3000)})
	}
	const limit = 32 << 10
	parts := SplitResult(res, limit)
	if len(parts) < 10 {
		t.Fatalf("%d parts for %d bytes, want at least 10 under %d", len(parts), len(Encode(res)), limit)
	}
	seen, bad := map[string]bool{}, 0
	for _, p := range parts {
		if len(p) > limit {
			t.Errorf("part of %d bytes over the %d limit", len(p), limit)
		}
		r, err := Decode[Result](p)
		if err != nil {
			t.Fatal(err)
		}
		bad += len(r.Bad)
		for _, v := range r.Verdicts {
			if seen[v.Case] {
				t.Errorf("verdict for %s in two parts", v.Case)
			}
			seen[v.Case] = true
		}
	}
	if len(seen) != 100 || bad != 1 {
		t.Fatalf("%d verdicts and %d bad cases across the parts, want 100 and 1", len(seen), bad)
	}
	if got := SplitResult(res, 1<<20); len(got) != 1 {
		t.Fatalf("a result under the limit split into %d parts", len(got))
	}
}
