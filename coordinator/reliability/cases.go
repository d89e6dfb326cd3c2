// Package reliability holds the helpers shared by the reliability tests of
// the distribution layer (coordinator, queue, workers over a real NATS
// server, with real processes) and by its benchmark command: fixed case
// lists and the checks of a campaign's bookkeeping.
package reliability

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// Cases returns n distinct cases of a domain, decoded from pseudo-random
// bytes drawn from seed, in a fixed order: the same arguments give the same
// list. It fails when the domain has fewer than n values within reach.
func Cases(domainName string, n int, seed uint64) ([]domain.Case, error) {
	d, ok := fuzz.Lookup(domainName)
	if !ok {
		return nil, fmt.Errorf("unknown domain %q", domainName)
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	seen := map[string]bool{}
	var out []domain.Case
	for tries := 0; len(out) < n; tries++ {
		if tries > 100*n+1000 {
			return nil, fmt.Errorf("domain %s: only %d distinct cases in %d tries", domainName, len(out), tries)
		}
		buf := make([]byte, 48)
		for i := range buf {
			buf[i] = byte(rng.Uint32())
		}
		v, err := d.Decode(buf)
		if err != nil {
			continue
		}
		c := domain.NewCase(d.Name, v)
		if !seen[c.ID] {
			seen[c.ID] = true
			out = append(out, c)
		}
	}
	return out, nil
}

// Inputs wraps cases of one domain as new inputs for a campaign, in chunks
// of at most chunk cases (one message each); chunk <= 0 means one message.
func Inputs(campaign, domainName string, cases []domain.Case, chunk int) []queue.Inputs {
	if chunk <= 0 {
		chunk = max(len(cases), 1)
	}
	var out []queue.Inputs
	for start := 0; start < len(cases); start += chunk {
		in := queue.Inputs{V: queue.Version, Campaign: campaign, Domain: domainName, Source: "import:reliability"}
		for _, c := range cases[start:min(start+chunk, len(cases))] {
			in.Inputs = append(in.Inputs, c.Value.Encode())
		}
		out = append(out, in)
	}
	return out
}

// Expect is what a finished campaign must show about a known case list.
type Expect struct {
	// Cases are every case the campaign was given.
	Cases []domain.Case
	// Oracles are the oracles every case must have been enqueued for.
	Oracles []string
	// Dead are the cases (by ID) expected to be dead, not judged, per
	// oracle: their (case, oracle) job went to a dead letter.
	Dead map[string][]string
}

// CheckCampaign checks a finished campaign's bookkeeping against the store:
// every case stored and enqueued for every oracle; every (case, oracle) job
// judged exactly once or counted dead, never both; the counters equal to
// what the store holds; findings counted once per (bucket, case); and bbolt's
// own consistency check. It returns every violation found.
func CheckCampaign(db *store.Store, camp store.Campaign, want Expect) error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	st := camp.Stats
	if camp.State != store.StateDone {
		fail("campaign %s is %s, want done", camp.ID, camp.State)
	}
	dead := 0
	for _, orcs := range want.Dead {
		dead += len(orcs)
	}
	jobs := len(want.Cases) * len(want.Oracles)
	if st.Cases != len(want.Cases) || st.Enqueued != jobs {
		fail("stats: %d cases, %d enqueued; want %d cases, %d (case, oracle) jobs", st.Cases, st.Enqueued, len(want.Cases), jobs)
	}
	if st.Judged != jobs-dead || st.DeadCases != dead || st.Outstanding() != 0 {
		fail("stats: judged %d, dead cases %d, outstanding %d; want judged %d, dead %d, outstanding 0", st.Judged, st.DeadCases, st.Outstanding(), jobs-dead, dead)
	}
	nights, err := db.Nights()
	if err != nil {
		fail("nights: %w", err)
	}
	ledger := nights[camp.ID].Ledger
	cases, verdicts, err := db.Counts()
	if err != nil {
		fail("counts: %w", err)
	} else if cases+ledger.Dropped != st.Cases || verdicts+ledger.Verdicts != st.Judged {
		fail("store holds %d cases and %d verdicts and dropped %d and %d settled; stats say %d and %d",
			cases, verdicts, ledger.Dropped, ledger.Verdicts, st.Cases, st.Judged)
	}
	dropped := 0
	for _, c := range want.Cases {
		errs = append(errs, checkCase(db, c, want, &dropped)...)
	}
	if dropped != ledger.Dropped || ledger.Pairs != ledger.Verdicts || ledger.Pairs != dropped*len(want.Oracles) {
		fail("%d of the cases were dropped; the ledger says %d, with %d pairs and %d verdicts (want %d each)",
			dropped, ledger.Dropped, ledger.Pairs, ledger.Verdicts, dropped*len(want.Oracles))
	}
	if err := CheckFindings(db, camp); err != nil {
		errs = append(errs, err)
	}
	if err := CheckSignal(db, camp, want.Cases); err != nil {
		errs = append(errs, err)
	}
	if err := db.Check(); err != nil {
		fail("bbolt check: %w", err)
	}
	return errors.Join(errs...)
}

// checkCase checks one case: enqueued for every oracle, one verdict per
// oracle that judged it, none from an oracle whose job is dead. A case the
// store settled and dropped had every oracle's verdict (the store settles
// only then, see store/settle.go): it must not be expected dead, and it
// is counted in *dropped.
func checkCase(db *store.Store, c domain.Case, want Expect, dropped *int) []error {
	rec, ok, err := db.Case(c.ID)
	if err == nil && !ok {
		gone, err := db.Dropped([]string{c.ID})
		if err == nil && gone[c.ID] {
			*dropped++
			if len(want.Dead[c.ID]) > 0 {
				return []error{fmt.Errorf("case %s was settled with all its verdicts, want dead for %q", c.ID, want.Dead[c.ID])}
			}
			return nil
		}
	}
	if err != nil || !ok {
		return []error{fmt.Errorf("case %s not in the store (err %v)", c.ID, err)}
	}
	var errs []error
	if len(rec.Enqueued) != len(want.Oracles) {
		errs = append(errs, fmt.Errorf("case %s enqueued for %q, want %q", c.ID, rec.Enqueued, want.Oracles))
	}
	vs, err := db.Verdicts(c.ID)
	if err != nil {
		return append(errs, err)
	}
	got := map[string]int{}
	for _, v := range vs {
		got[v.Oracle]++
	}
	for _, o := range want.Oracles {
		isDead := false
		for _, d := range want.Dead[c.ID] {
			isDead = isDead || d == o
		}
		switch {
		case isDead && got[o] != 0:
			errs = append(errs, fmt.Errorf("case %s: dead for %s but has its verdict", c.ID, o))
		case !isDead && got[o] != 1:
			errs = append(errs, fmt.Errorf("case %s: %d verdicts from %s, want 1", c.ID, got[o], o))
		}
	}
	return errs
}

// CheckFindings checks that the campaign counted each (bucket, case) finding
// once: its Findings equal the members of the buckets it created. It holds
// for a campaign on a fresh store.
func CheckFindings(db *store.Store, camp store.Campaign) error {
	buckets, err := db.Buckets()
	if err != nil {
		return err
	}
	members, mine := 0, 0
	for _, b := range buckets {
		if b.Campaign == camp.ID {
			members += b.Cases
			mine++
		}
	}
	if camp.Stats.Findings != members || camp.Stats.NewBuckets != mine {
		return fmt.Errorf("stats: %d findings in %d new buckets; the store's buckets hold %d cases in %d buckets",
			camp.Stats.Findings, camp.Stats.NewBuckets, members, mine)
	}
	return nil
}
