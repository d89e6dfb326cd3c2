package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/legalfuzz/legalfuzz/coordinator/store/tally"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// A case is settled once every oracle it was enqueued for has judged it:
// nothing can change what it counts for any more. Settling folds it into
// its night's tally (package tally: the counts reports show) and, unless
// something needs the case itself, drops its record and verdicts, keeping
// only its ID's hash in the seen set. What is kept: the first KeepMembers
// members of each finding bucket (CaseRecord.Finding), the corpus,
// imported cases, cases with a dead pair (never settled: their verdict may
// still come) and, with CampaignConfig.KeepAll, everything. A seed is
// kept only as one of these: seeds are in the build (domain.Seeds), and
// their claims' evidence and witness are in the tally.
var (
	bucketTallies = []byte("tallies") // campaign -> Night
	bucketSeen    = []byte("seen")    // seenKey(case) -> {}
)

// seenKeyLen is the bytes of a case ID's hash the seen set keeps: 8 bytes
// of key and bbolt's 16 bytes of leaf header per case. Two cases collide
// with probability n²/2⁶⁵ over n cases (about 3% at a billion): the later
// one passes for known and is not judged; nothing is counted twice.
const seenKeyLen = 8

// seenKey is the seen set's key of a case: the first bytes of its ID when
// the ID is a hex hash (every generated case's is), else of the ID's hash.
func seenKey(caseID string) []byte {
	if b, err := hex.DecodeString(caseID); err == nil && len(b) >= seenKeyLen {
		return b[:seenKeyLen]
	}
	h := sha256.Sum256([]byte(caseID))
	return h[:seenKeyLen]
}

// Night is what the store keeps of one campaign's settled cases beyond the
// cases it keeps: their tally, and the ledger of those it dropped.
type Night struct {
	Tally  tally.Tally `json:"tally"`
	Ledger Ledger      `json:"ledger"`
}

// Ledger counts the cases a campaign settled and dropped, and their pairs
// and verdicts: what an audit adds to the cases it can still read. Every
// dropped pair had its verdict (a case settles only then), so Pairs equals
// Verdicts, and a verdict that comes for a dropped case is a redelivery.
type Ledger struct {
	Dropped  int `json:"dropped"`
	Pairs    int `json:"pairs"`
	Verdicts int `json:"verdicts"`
}

// TallyCase is what a tally needs of the record.
func (r CaseRecord) TallyCase() tally.Case {
	_, minimized := r.MinimizedFor()
	return tally.Case{ID: r.ID, Domain: r.Domain, Data: r.Data, Seen: r.Seen, Minimized: minimized}
}

// settler settles cases inside one write transaction, reading each night
// once and writing it back once, at the end.
type settler struct {
	tx     *bolt.Tx
	nights map[string]*Night
	camps  map[string]Campaign
	// compacting settles as `store compact` does: a case kept settled
	// (Tallied) is looked at again, and KeepAll keeps nothing, so that a
	// store kept whole for debugging shrinks to what a campaign keeps.
	compacting bool
}

func newSettler(tx *bolt.Tx) *settler {
	return &settler{tx: tx, nights: map[string]*Night{}, camps: map[string]Campaign{}}
}

// settle settles the case if every oracle it was enqueued for judged it.
func (st *settler) settle(caseID string) error {
	cases := st.tx.Bucket(bucketCases)
	rec, ok, err := get[CaseRecord](cases, []byte(caseID))
	if err != nil || !ok || rec.Enqueued == nil || rec.Campaign == "" || rec.Tallied && !st.compacting {
		return err
	}
	vs, err := caseVerdicts(st.tx, caseID)
	if err != nil || !judgedAll(vs, rec.Enqueued) {
		return err
	}
	n, camp, err := st.night(rec.Campaign)
	if err != nil {
		return err
	}
	if !rec.Tallied {
		n.Tally.Add(rec.TallyCase(), vs)
	}
	if camp.Config.KeepAll && !st.compacting || st.keeps(rec) {
		if rec.Tallied {
			return nil
		}
		rec.Tallied = true
		return put(cases, []byte(caseID), rec)
	}
	n.Ledger.Dropped++
	n.Ledger.Pairs += len(rec.Enqueued)
	n.Ledger.Verdicts += len(vs)
	return dropCase(st.tx, caseID, vs)
}

// judgedAll reports whether every oracle in enqueued has a verdict in vs.
func judgedAll(vs []oracles.Verdict, enqueued []string) bool {
	for _, o := range enqueued {
		found := false
		for _, v := range vs {
			found = found || v.Oracle == o
		}
		if !found {
			return false
		}
	}
	return true
}

// keeps reports whether a settled case is needed itself: one of the
// members a bucket keeps, in its campaign's corpus, or imported.
func (st *settler) keeps(rec CaseRecord) bool {
	return rec.Finding || strings.HasPrefix(rec.Source, ImportSource) ||
		st.tx.Bucket(bucketCorpus).Get(campaignKey(rec.Campaign, rec.ID)) != nil
}

// dropCase deletes a settled case's record and verdicts and keeps its
// ID's hash in the seen set.
func dropCase(tx *bolt.Tx, caseID string, vs []oracles.Verdict) error {
	vb := tx.Bucket(bucketVerdicts)
	for _, v := range vs {
		if err := vb.Delete(verdictKey(caseID, v.Oracle)); err != nil {
			return err
		}
	}
	if err := markSeen(tx, caseID); err != nil {
		return err
	}
	return tx.Bucket(bucketCases).Delete([]byte(caseID))
}

// dropped reports whether the case was settled and dropped: its verdicts
// are all counted, and any that comes again is a redelivery.
func dropped(tx *bolt.Tx, caseID string) bool {
	return hasMark(tx.Bucket(bucketSeen), seenKey(caseID)) && tx.Bucket(bucketCases).Get([]byte(caseID)) == nil
}

func markSeen(tx *bolt.Tx, caseID string) error {
	return setMark(tx.Bucket(bucketSeen), seenKey(caseID))
}

// night returns campaign's night and campaign record, read once per
// transaction.
func (st *settler) night(campaign string) (*Night, Campaign, error) {
	if n := st.nights[campaign]; n != nil {
		return n, st.camps[campaign], nil
	}
	camp, _, err := get[Campaign](st.tx.Bucket(bucketCampaigns), []byte(campaign))
	if err != nil {
		return nil, camp, err
	}
	n, _, err := get[Night](st.tx.Bucket(bucketTallies), []byte(campaign))
	if err != nil {
		return nil, camp, fmt.Errorf("night %s: %w", campaign, err)
	}
	st.nights[campaign], st.camps[campaign] = &n, camp
	return &n, camp, nil
}

// flush writes back the nights the transaction changed.
func (st *settler) flush() error {
	b := st.tx.Bucket(bucketTallies)
	for id, n := range st.nights {
		data, err := json.Marshal(n)
		if err != nil {
			return fmt.Errorf("night %s: %w", id, err)
		}
		if err := b.Put([]byte(id), data); err != nil {
			return err
		}
	}
	return nil
}

// Nights returns every campaign's night (tally and ledger), by campaign;
// a store from before tallies has none.
func (s *Store) Nights() (map[string]Night, error) {
	out := map[string]Night{}
	err := s.view(func(tx *bolt.Tx) error {
		return eachPrefix(tx.Bucket(bucketTallies), nil, "night", func(k []byte, n Night) error {
			out[string(k)] = n
			return nil
		})
	})
	return out, err
}

// Tallies returns every campaign's tally, by campaign.
func (s *Store) Tallies() (map[string]tally.Tally, error) {
	nights, err := s.Nights()
	out := make(map[string]tally.Tally, len(nights))
	for id, n := range nights {
		out[id] = n.Tally
	}
	return out, err
}

// Dropped reports which of the IDs name cases settled and dropped: a
// verdict for one is a redelivery, counted already.
func (s *Store) Dropped(ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	err := s.view(func(tx *bolt.Tx) error {
		for _, id := range ids {
			if dropped(tx, id) {
				out[id] = true
			}
		}
		return nil
	})
	return out, err
}
