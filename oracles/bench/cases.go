package bench

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Streams of the case generator: the mixed set and the accepted-only set
// draw from independent streams of the same seed.
const (
	streamMixed    = 1
	streamAccepted = 2
)

// inputLen is the length of a random input; every domain reads fewer bytes,
// and reading past the end yields zeros anyway.
const inputLen = 64

// Judge-to-filter rounds: each judges between minRound and maxRound new
// candidates; maxRounds bounds them when the oracle keeps too few (late in
// the accepted-only set, when the seeds' small mutations are used up).
const (
	minRound  = 1000
	maxRound  = 4000
	maxRounds = 40
)

// generator decodes pseudo-random inputs in the domains an oracle judges.
// Half the inputs are random bytes; the other half are the canonical bytes
// of a value from the domain's pool (its seeds, plus the cases adopted so
// far) with up to two bytes changed, so that legal cases are common too. It
// never yields the same case twice.
type generator struct {
	rng     *rand.Rand
	domains []domain.Domain
	pool    map[string][][]byte
	seen    map[string]bool
}

func newGenerator(seed, stream uint64, judges func(string) bool) (*generator, error) {
	g := &generator{rng: rand.New(rand.NewPCG(seed, stream)), pool: map[string][][]byte{}, seen: map[string]bool{}}
	for _, d := range fuzz.Domains() {
		if judges(d.Name) {
			g.domains = append(g.domains, d)
			for _, v := range d.Seeds() {
				g.pool[d.Name] = append(g.pool[d.Name], v.Encode())
			}
		}
	}
	if len(g.domains) == 0 {
		return nil, fmt.Errorf("bench: the oracle judges no domain")
	}
	return g, nil
}

// next returns n new distinct cases, in generation order.
func (g *generator) next(n int) []domain.Case {
	var out []domain.Case
	for len(out) < n {
		d := g.domains[g.rng.IntN(len(g.domains))]
		b := make([]byte, inputLen)
		for i := range b {
			b[i] = byte(g.rng.Uint32())
		}
		if pool := g.pool[d.Name]; len(pool) > 0 && g.rng.IntN(2) == 0 {
			b = append([]byte(nil), pool[g.rng.IntN(len(pool))]...)
			for range g.rng.IntN(3) {
				if len(b) > 0 {
					b[g.rng.IntN(len(b))] = byte(g.rng.Uint32())
				}
			}
		}
		v, err := d.Decode(b)
		if err != nil {
			continue
		}
		c := domain.NewCase(d.Name, v)
		if g.seen[c.ID] {
			continue
		}
		g.seen[c.ID] = true
		out = append(out, c)
	}
	return out
}

// adopt adds c to the mutation pool of its domain.
func (g *generator) adopt(c domain.Case) {
	g.pool[c.Domain] = append(g.pool[c.Domain], c.Value.Encode())
}

// pick judges generated cases with o and keeps, in generation order, the
// first n whose verdict keep accepts. With breed, kept cases join the
// mutation pool, so that a rare verdict (acceptance, where most mutations
// of the seeds are illegal) keeps being found.
func pick(ctx context.Context, o oracles.Oracle, g *generator, n int, keep func(oracles.Verdict) bool, breed bool) ([]domain.Case, error) {
	var out []domain.Case
	for round := 0; len(out) < n; round++ {
		if round == maxRounds {
			return nil, fmt.Errorf("bench: %s kept %d of the %d cases wanted after %d rounds", o.Name(), len(out), n, round)
		}
		cands := g.next(min(max(2*(n-len(out)), minRound), maxRound))
		vs, err := o.Judge(ctx, cands)
		if err != nil {
			return nil, fmt.Errorf("bench: %s: %w", o.Name(), err)
		}
		for i, v := range vs {
			if !keep(v) || len(out) == n {
				continue
			}
			out = append(out, cands[i])
			if breed {
				g.adopt(cands[i])
			}
		}
	}
	return out, nil
}

// supported keeps the cases the oracle ran its tool on.
func supported(v oracles.Verdict) bool { return v.Kind != oracles.Unsupported }

// accepted keeps the cases the oracle accepted.
func accepted(v oracles.Verdict) bool { return v.Kind == oracles.Accept }
