package store

import (
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Every campaign in a store is a night (a run): its buckets were found,
// replayed and reproduced, or replayed and fixed, each with the tool
// versions that did it. A bucket's Nights say which.

// What a night saw of a bucket.
const (
	// SeenFound: a case of the night showed the bucket's signature.
	SeenFound = "found"
	// SeenReproduced: the night did not find it, but its case, replayed at
	// the end of the night with the night's tools, still shows it.
	SeenReproduced = "reproduced"
	// SeenFixed: replayed at the end of the night, its case no longer
	// shows it (the tools judged it and agreed, or disagreed otherwise).
	SeenFixed = "fixed"
)

// Sighting is one night's look at a bucket.
type Sighting struct {
	Campaign string    `json:"campaign"`
	Outcome  string    `json:"outcome"` // SeenFound, SeenReproduced or SeenFixed
	Time     time.Time `json:"time"`
	// Versions are the versions of the pair's oracles that judged the case
	// (the deviating tool's and the reference's).
	Versions map[string]string `json:"versions,omitempty"`
	// Carried says the night did not replay the case: the pair's versions
	// were those of the night that last judged it, whose outcome stands.
	Carried bool `json:"carried,omitempty"`
}

// sightingOf is the sighting of a finding: the versions on its verdicts.
func sightingOf(d policy.Disagreement, campaign string, now time.Time) Sighting {
	s := Sighting{Campaign: campaign, Outcome: SeenFound, Time: now, Versions: map[string]string{}}
	for _, v := range []oracles.Verdict{d.A, d.B} {
		if v.Version != "" {
			s.Versions[v.Oracle] = v.Version
		}
	}
	return s
}

// see records a night's finding of b: once per night, the first finding's
// versions.
func (b *Bucket) see(s Sighting) {
	if s.Campaign == "" {
		return
	}
	if n := len(b.Nights); n > 0 && b.Nights[n-1].Campaign == s.Campaign {
		return
	}
	b.Nights = append(b.Nights, s)
}

// History is the bucket's nights, oldest first; a bucket stored before
// nights were recorded was seen in its first campaign.
func (b Bucket) History() []Sighting {
	if len(b.Nights) > 0 || b.Campaign == "" {
		return b.Nights
	}
	return []Sighting{{Campaign: b.Campaign, Outcome: SeenFound, Time: b.FirstSeen}}
}

// SeenIn reports whether the night already looked at the bucket.
func (b Bucket) SeenIn(campaign string) bool {
	return slices.ContainsFunc(b.History(), func(s Sighting) bool { return s.Campaign == campaign })
}

// Open reports whether the bucket's last sighting shows it: not fixed.
func (b Bucket) Open() bool {
	h := b.History()
	return len(h) == 0 || h[len(h)-1].Outcome != SeenFixed
}

// RecordSighting adds a night's replay of a bucket (SeenReproduced or
// SeenFixed). A night that already looked at the bucket keeps what it saw.
// A key merged into another bucket meanwhile (a minimization during the
// night's replay) names that bucket.
func (s *Store) RecordSighting(key string, sg Sighting) (Bucket, error) {
	var out Bucket
	err := s.update(func(tx *bolt.Tx) error {
		key = resolveKey(tx, key)
		bb := tx.Bucket(bucketBuckets)
		b, ok, err := get[Bucket](bb, []byte(key))
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("no bucket %q", key)
		}
		if b.SeenIn(sg.Campaign) {
			out = b
			return nil
		}
		b.Nights = append(b.History(), sg)
		if sg.Outcome != SeenFixed {
			b.LastSeen = sg.Time
		}
		out = b
		return put(bb, []byte(key), b)
	})
	return out, err
}
