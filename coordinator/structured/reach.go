package structured

import (
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/coordinator/signal"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// reachShare is how often, one case in reachShare, the structured
// generator spends its case on a starved oracle of the domain: a tool that
// judged few of the domain's corpus values (the others it left
// unsupported, each verdict naming why: oracles.Reason). A fuzzer finds
// what it can express; without this, a tool that spells few of a domain's
// values (an MLIR op with one layout, an llc without the target) sees
// almost none of them, however long the campaign.
const reachShare = 2

// reach indexes, per tool oracle, the corpus values of one domain it
// judged (a verdict other than unsupported), and counts those it could not
// spell.
type reach struct {
	pools     map[string][]parent
	unspelled map[string]int
}

func newReach() *reach { return &reach{pools: map[string][]parent{}, unspelled: map[string]int{}} }

// add indexes one corpus value by its verdict features.
func (r *reach) add(p parent) {
	for o, judged := range judgedBy(p.features) {
		if judged {
			r.pools[o] = append(r.pools[o], p)
		} else {
			r.unspelled[o]++
		}
	}
}

// starved draws a tool oracle that judged some of the domain's corpus
// values, each with weight 1/judged, so the tools that judged the fewest
// get the most parents and every one of them gets some; "" when no tool
// oracle judged any. An oracle that judged none has no parent to start
// from: its spellings are reached from the seeds, where one case in five
// starts.
func (r *reach) starved(rnd *rand.Rand) string {
	names := make([]string, 0, len(r.pools))
	total := 0.0
	for o, ps := range r.pools {
		names = append(names, o)
		total += 1 / float64(len(ps))
	}
	slices.Sort(names) // map order would make the draw depend on more than the seed
	x := rnd.Float64() * total
	for _, o := range names {
		if x -= 1 / float64(len(r.pools[o])); x < 0 {
			return o
		}
	}
	if len(names) == 0 {
		return ""
	}
	return names[len(names)-1]
}

// judgedBy reads a value's verdict features (signal.VerdictFeature,
// "oracle|kind|rule..."): per tool oracle, whether it judged the value
// (true) or left it unsupported (false). Spec rule sets judge every value
// and are left out, as are verdict-vector features.
func judgedBy(features []string) map[string]bool {
	out := map[string]bool{}
	for _, f := range features {
		if strings.HasPrefix(f, signal.VectorPrefix) {
			continue
		}
		parts := strings.SplitN(f, "|", 3)
		if len(parts) < 2 || isSpecOracle(parts[0]) {
			continue
		}
		out[parts[0]] = out[parts[0]] || oracles.Kind(parts[1]) != oracles.Unsupported
	}
	return out
}

// isSpecOracle reports whether the oracle is one of legalfuzz's rule sets.
func isSpecOracle(name string) bool {
	in, ok := oracles.Lookup(name)
	return ok && in.Family == "spec"
}
