package corpus

import (
	"cmp"
	"slices"
)

// Candidate is one input to Cover: a case with its size and the features
// it covers (for legalfuzz, legality-rule coverage: which oracle gave which
// verdict by which rule, and which buckets the case stands for).
type Candidate struct {
	ID       string
	Size     int
	Features []string
}

// Cover picks a small set of candidates that together cover every feature
// any candidate covers, libFuzzer's merge with rule coverage in place of
// code coverage, and returns their indices in increasing order. It is the
// greedy set cover (repeatedly take the candidate adding the most features
// not yet covered; ties go to the smaller, then the lower ID, so the result
// is deterministic) followed by a pruning pass that drops, latest pick
// first, any pick whose features the others all cover. Greedy is within a
// logarithmic factor of the minimum; the pruning removes the early broad
// picks that later ones made redundant.
func Cover(cands []Candidate) []int {
	count := map[string]int{} // how many picks cover each feature
	uncovered := map[string]bool{}
	features := make([][]string, len(cands))
	for i, c := range cands {
		features[i] = dedup(c.Features)
		for _, f := range features[i] {
			uncovered[f] = true
		}
	}
	var picks []int
	for len(uncovered) > 0 {
		best, gain := -1, 0
		for i, c := range cands {
			g := 0
			for _, f := range features[i] {
				if uncovered[f] {
					g++
				}
			}
			if g > gain || (g == gain && g > 0 && better(c, cands[best])) {
				best, gain = i, g
			}
		}
		picks = append(picks, best)
		for _, f := range features[best] {
			delete(uncovered, f)
			count[f]++
		}
	}
	kept := make([]bool, len(picks))
	for i := range picks {
		kept[i] = true
	}
	for i := len(picks) - 1; i >= 0; i-- {
		fs := features[picks[i]]
		if slices.ContainsFunc(fs, func(f string) bool { return count[f] == 1 }) {
			continue
		}
		kept[i] = false
		for _, f := range fs {
			count[f]--
		}
	}
	var out []int
	for i, p := range picks {
		if kept[i] {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// better orders candidates of equal gain: smaller first, then by ID.
func better(a, b Candidate) bool {
	if a.Size != b.Size {
		return a.Size < b.Size
	}
	return cmp.Less(a.ID, b.ID)
}

// dedup returns the distinct features, sorted.
func dedup(fs []string) []string {
	out := slices.Clone(fs)
	slices.Sort(out)
	return slices.Compact(out)
}
