package store

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"time"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"github.com/legalfuzz/legalfuzz/coordinator/signal"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// The campaign corpus: the features its judges showed and the cases that
// first showed them. Both are written in the transaction that commits the
// verdicts they come from, so a crash loses neither, and a resumed campaign
// mutates from the corpus it had.
var (
	bucketFeatures = []byte("features") // campaign \x00 feature -> Feature
	bucketCorpus   = []byte("corpus")   // campaign \x00 case -> CorpusEntry
)

// Feature is one distinct feature a campaign saw (see package signal).
type Feature struct {
	// Name is the feature, set when it is longer than its key holds
	// (featureKey); empty when the key names it.
	Name string `json:"name,omitempty"`
	// Cases counts the cases that showed it: the rarer, the more a case
	// holding it is worth mutating.
	Cases int `json:"cases"`
	// First is the case that showed it first; Domain is that case's domain.
	First  string    `json:"first"`
	Domain string    `json:"domain"`
	Seen   time.Time `json:"seen"`
}

// CorpusEntry is a case that brought a campaign something new: a feature or
// a finding bucket.
type CorpusEntry struct {
	Case   string `json:"case"`
	Domain string `json:"domain"`
	Data   []byte `json:"data"` // canonical bytes, to mutate without a lookup
	Source string `json:"source"`
	// Features are those the case brought first.
	Features []string `json:"features"`
	// Disagreement is set once the case is part of a finding: mutation
	// favours the neighbourhood of disagreements.
	Disagreement bool      `json:"disagreement,omitempty"`
	Added        time.Time `json:"added"`
}

func campaignKey(campaign, k string) []byte { return []byte(campaign + "\x00" + k) }

// maxKeyText bounds the text of a key that comes from what a tool printed
// (a feature holds a diagnostic's title): bbolt refuses keys over 32 KiB,
// and one tool printing one huge line must not fail the transaction of
// every result committed with it.
const maxKeyText = 512

// featureKey is the key of campaign's feature feat: the feature itself, or,
// when it is longer than maxKeyText, its start and a hash of the whole
// (the full name goes into the value, Feature.Name). It reports whether
// it cut.
func featureKey(campaign, feat string) ([]byte, bool) {
	if len(feat) <= maxKeyText {
		return campaignKey(campaign, feat), false
	}
	cut := maxKeyText - 20
	for cut > 0 && !utf8.RuneStart(feat[cut]) {
		cut--
	}
	h := sha256.Sum256([]byte(feat))
	return campaignKey(campaign, feat[:cut]+"…#"+hex.EncodeToString(h[:8])), true
}

// commitSignal counts the features of the verdicts newly stored by one
// commit and adds to the corpus the cases that brought new ones or are part
// of a new bucket. stored lists those verdicts, disagreeing the cases found
// in disagreement by this commit.
func commitSignal(tx *bolt.Tx, c Commit, stored []oracles.Verdict, disagreeing map[string]bool, res *CommitResult) error {
	if c.Campaign == "" {
		return nil
	}
	fresh := map[string][]string{} // case -> features it brought first
	for _, v := range stored {
		f, err := caseFeatures(tx, v)
		if err != nil {
			return err
		}
		for _, feat := range f {
			isNew, err := countFeature(tx, c.Campaign, c.Now, v, feat, res)
			if err != nil {
				return err
			}
			if isNew {
				fresh[v.Case] = append(fresh[v.Case], feat)
			}
		}
	}
	for _, b := range res.NewBuckets {
		disagreeing[b.Example] = true // news even without a new feature
	}
	for id := range disagreeing {
		if err := updateCorpus(tx, c, id, fresh[id], true, res); err != nil {
			return err
		}
		delete(fresh, id)
	}
	for id, feats := range fresh {
		if err := updateCorpus(tx, c, id, feats, false, res); err != nil {
			return err
		}
	}
	return nil
}

// caseFeatures are the features one newly stored verdict adds to its case:
// its own, and the case's verdict vector when this verdict completed it.
func caseFeatures(tx *bolt.Tx, v oracles.Verdict) ([]string, error) {
	out := []string{signal.VerdictFeature(v)}
	rec, ok, err := get[CaseRecord](tx.Bucket(bucketCases), []byte(v.Case))
	if err != nil || !ok || !slices.Contains(rec.Enqueued, v.Oracle) {
		return out, err
	}
	vs, err := caseVerdicts(tx, v.Case)
	if err != nil {
		return nil, err
	}
	if signal.Complete(vs, rec.Enqueued) {
		out = append(out, signal.VectorFeature(vs))
	}
	return out, nil
}

// countFeature counts one case showing feat, and reports whether the
// campaign had not seen feat before (counted in res).
func countFeature(tx *bolt.Tx, campaign string, now time.Time, v oracles.Verdict, feat string, res *CommitResult) (bool, error) {
	b := tx.Bucket(bucketFeatures)
	key, cut := featureKey(campaign, feat)
	f, ok, err := get[Feature](b, key)
	if err != nil {
		return false, err
	}
	if !ok {
		f = Feature{First: v.Case, Domain: v.Domain, Seen: now}
		if cut {
			f.Name = feat
		}
		if res.featuresByDomain == nil {
			res.featuresByDomain = map[string]int{}
		}
		res.featuresByDomain[v.Domain]++
		res.NewFeatures++
	}
	f.Cases++
	return !ok, put(b, key, f)
}

// updateCorpus adds a case to the corpus, or marks the entry it has, when
// the case brought features or a disagreement. A disagreeing case that
// brought nothing new and is not in the corpus stays out.
func updateCorpus(tx *bolt.Tx, c Commit, id string, feats []string, disagree bool, res *CommitResult) error {
	b := tx.Bucket(bucketCorpus)
	key := campaignKey(c.Campaign, id)
	e, ok, err := get[CorpusEntry](b, key)
	if err != nil {
		return err
	}
	if !ok && len(feats) == 0 && !isNewBucketExample(res, id) {
		return nil
	}
	if !ok {
		rec, found, err := get[CaseRecord](tx.Bucket(bucketCases), []byte(id))
		if err != nil || !found {
			return err
		}
		e = CorpusEntry{Case: id, Domain: rec.Domain, Data: rec.Data, Source: rec.Source, Added: c.Now}
	}
	e.Features = append(e.Features, feats...)
	e.Disagreement = e.Disagreement || disagree
	if err := put(b, key, e); err != nil {
		return err
	}
	if ok {
		return nil
	}
	res.NewCorpus = append(res.NewCorpus, e)
	return nil
}

// lateVector counts the verdict vector of a case whose verdicts all came
// before its jobs were marked enqueued (a fast oracle, or an enqueue retried
// after a failure): no verdict commit will complete it any more. Call it in
// the transaction that sets rec.Enqueued.
func lateVector(tx *bolt.Tx, campaign string, now time.Time, rec CaseRecord, res *CommitResult) error {
	if campaign == "" {
		return nil
	}
	vs, err := caseVerdicts(tx, rec.ID)
	if err != nil || !signal.Complete(vs, rec.Enqueued) {
		return err
	}
	isNew, err := countFeature(tx, campaign, now, vs[0], signal.VectorFeature(vs), res)
	if err != nil || !isNew {
		return err
	}
	c := Commit{Campaign: campaign, Now: now}
	return updateCorpus(tx, c, rec.ID, []string{signal.VectorFeature(vs)}, false, res)
}

// countSignal adds the features and corpus entries of res to the
// campaign's counters.
func (res *CommitResult) countSignal(c *Campaign) {
	c.Stats.Features += res.NewFeatures
	c.Stats.Corpus += len(res.NewCorpus)
	for d, n := range res.featuresByDomain {
		c.Domain(d).Features += n
	}
}

func isNewBucketExample(res *CommitResult, id string) bool {
	return slices.ContainsFunc(res.NewBuckets, func(b Bucket) bool { return b.Example == id })
}

// Corpus returns a campaign's corpus, in case ID order.
func (s *Store) Corpus(campaign string) ([]CorpusEntry, error) {
	return scanCampaign[CorpusEntry](s, bucketCorpus, campaign)
}

// Features returns a campaign's features by name.
func (s *Store) Features(campaign string) (map[string]Feature, error) {
	out := map[string]Feature{}
	prefix := campaignKey(campaign, "")
	err := s.view(func(tx *bolt.Tx) error {
		// a schema-1 store, read-only, has no features bucket: no features yet
		return eachPrefix(tx.Bucket(bucketFeatures), prefix, "feature", func(k []byte, f Feature) error {
			name := f.Name
			if name == "" {
				name = string(k[len(prefix):])
			}
			out[name] = f
			return nil
		})
	})
	return out, err
}

// scanCampaign reads every record of one campaign in bucket b.
func scanCampaign[T any](s *Store, b []byte, campaign string) ([]T, error) {
	return scan[T](s, b, campaignKey(campaign, ""), "record")
}

func hasPrefix(k, prefix []byte) bool {
	return len(k) >= len(prefix) && string(k[:len(prefix)]) == string(prefix)
}
