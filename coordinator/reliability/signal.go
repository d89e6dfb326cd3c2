package reliability

import (
	"errors"
	"fmt"
	"slices"

	"github.com/legalfuzz/legalfuzz/coordinator/signal"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// CheckSignal checks the campaign's features and corpus against the
// verdicts stored for its cases: every feature (and how many cases showed
// it) is exactly what package signal computes from them, whatever crashes
// and redeliveries happened on the way, and every feature's first case is in
// the corpus, whose size the stats count. Where the store dropped settled
// cases, their verdicts are gone: a feature must then show in at least the
// kept cases that give it.
func CheckSignal(db *store.Store, camp store.Campaign, cases []domain.Case) error {
	want := map[string]int{}
	dropped := 0
	for _, c := range cases {
		rec, ok, err := db.Case(c.ID)
		if err != nil {
			return err
		}
		if !ok { // settled and dropped (CheckCampaign checks it): its verdicts are gone
			dropped++
			continue
		}
		vs, err := db.Verdicts(c.ID)
		if err != nil {
			return err
		}
		for _, f := range signal.Features(vs, rec.Enqueued) {
			want[f]++
		}
	}
	got, err := db.Features(camp.ID)
	if err != nil {
		return err
	}
	corpus, err := db.Corpus(camp.ID)
	if err != nil {
		return err
	}
	var errs []error
	for f, n := range want {
		if got[f].Cases < n || dropped == 0 && got[f].Cases != n {
			errs = append(errs, fmt.Errorf("feature %q: stored in %d cases, the verdicts give %d", f, got[f].Cases, n))
		}
	}
	for f, g := range got {
		if _, ok := want[f]; !ok && dropped == 0 {
			errs = append(errs, fmt.Errorf("feature %q stored, in no case's verdicts", f))
		}
		if !slices.ContainsFunc(corpus, func(e store.CorpusEntry) bool { return e.Case == g.First }) {
			errs = append(errs, fmt.Errorf("feature %q: its first case %s is not in the corpus", f, g.First))
		}
	}
	if camp.Stats.Features != len(got) || camp.Stats.Corpus != len(corpus) {
		errs = append(errs, fmt.Errorf("stats count %d features and a corpus of %d; the store holds %d and %d",
			camp.Stats.Features, camp.Stats.Corpus, len(got), len(corpus)))
	}
	return errors.Join(errs...)
}
