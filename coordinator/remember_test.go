package coordinator

import (
	"context"
	"slices"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
	"github.com/legalfuzz/legalfuzz/oracles/testoracle"
)

// TestReplayVersionsRemembers: a bucket's found-in is replayed on llc@19
// and llc@22; replayed again with the same installations, neither is asked;
// with llc@22 at another version (a test oracle whose verdict, and so
// version string, changed), only llc@22 is asked, and found-in says what
// the new version did.
func TestReplayVersionsRemembers(t *testing.T) {
	s := storetest.Open(t, "")
	c := rejectedSeed(t)
	ref := spec.New(spec.PTXISA)
	llc19 := testoracle.New(testoracle.Config{Name: "llc@19", Kind: oracles.Accept})
	llc22 := testoracle.New(testoracle.Config{Name: "llc@22", Kind: oracles.Reject})
	pair := policy.Pair{A: oracles.SpecPTXISA, B: "llc@19", On: policy.OnVerdict}
	bs := storetest.Plant(t, s, c, policy.Policy{Domain: c.Domain, Pairs: []policy.Pair{pair}}, storetest.Judge(t, []oracles.Oracle{ref, llc19}, c))
	if len(bs) != 1 {
		t.Fatalf("planting: %d buckets", len(bs))
	}
	planted := llc19.Cases() // judged once to plant the bucket
	replay := func(orcs ...oracles.Oracle) store.Bucket {
		t.Helper()
		b, err := ReplayVersions(context.Background(), s, oracles.Local{Oracles: append([]oracles.Oracle{ref}, orcs...)}, bs[0])
		if err != nil {
			t.Fatal(err)
		}
		bs[0] = b
		return b
	}
	if b := replay(llc19, llc22); b.FoundIn() != "19: reproduces, 22: fixed" || llc19.Cases()-planted != 1 || llc22.Cases() != 1 {
		t.Fatalf("first replay: found in %q, llc19 judged %d, llc22 %d; want both asked once", b.FoundIn(), llc19.Cases()-planted, llc22.Cases())
	}
	if b := replay(llc19, llc22); b.FoundIn() != "19: reproduces, 22: fixed" || llc19.Cases()-planted != 1 || llc22.Cases() != 1 {
		t.Fatalf("same versions: found in %q, llc19 judged %d, llc22 %d; want neither asked again", b.FoundIn(), llc19.Cases()-planted, llc22.Cases())
	}
	llc22new := testoracle.New(testoracle.Config{Name: "llc@22", Kind: oracles.Accept})
	if b := replay(llc19, llc22new); b.FoundIn() != "19: reproduces, 22: reproduces" || llc19.Cases()-planted != 1 || llc22new.Cases() != 1 {
		t.Fatalf("llc@22 changed: found in %q, llc19 judged %d, the new llc22 %d; want only llc22 asked", b.FoundIn(), llc19.Cases()-planted, llc22new.Cases())
	}
	stored, ok, err := s.Bucket(bs[0].Key)
	if err != nil || !ok || stored.FoundIn() != "19: reproduces, 22: reproduces" {
		t.Fatalf("stored bucket %+v (%v)", stored, err)
	}
}

// otherVersion is a real oracle under another version string: an
// installation upgraded to a release that judges the same.
type otherVersion struct{ oracles.Oracle }

func (o otherVersion) Version() string { return o.Oracle.Version() + " (rebuilt)" }

// TestNightReplaysChangedAndRotates: the first night replays every bucket;
// the next, with the same versions, replays only the rotating sample (the
// share 1/rotateNights, judged longest ago first) and carries the others'
// outcome; the night after samples other buckets; a night whose reference
// changed version replays them all.
func TestNightReplaysChangedAndRotates(t *testing.T) {
	s := storetest.Open(t, "")
	n := 0
	for _, d := range fuzz.Domains() {
		for _, v := range d.Seeds() {
			if _, ok := plant(t, s, specOracles(), domain.NewCase(d.Name, v)); ok {
				n++
			}
		}
	}
	sample := (n + rotateNights - 1) / rotateNights
	if n < 2*sample+1 {
		t.Fatalf("%d buckets planted; want enough for two disjoint samples", n)
	}
	same := oracles.Local{Oracles: specOracles()}
	night := func(name string, panel oracles.Panel) (NightReplay, []string) {
		t.Helper()
		got, err := ReplayNight(context.Background(), s, panel, name)
		if err != nil {
			t.Fatal(err)
		}
		buckets, err := s.Buckets()
		if err != nil {
			t.Fatal(err)
		}
		var judged []string
		for _, b := range buckets {
			h := b.History()
			if last := h[len(h)-1]; last.Campaign != name {
				t.Errorf("night %s: bucket %s has no sighting of it: %+v", name, b.Key, h)
			} else if !last.Carried {
				judged = append(judged, b.Key)
			}
		}
		return got, judged
	}
	if got, _ := night("n1", same); got.Reproduced != n || got.Carried != 0 {
		t.Fatalf("first night %+v; want all %d replayed", got, n)
	}
	got2, judged2 := night("n2", same)
	if got2.Reproduced != sample || got2.Carried != n-sample || len(judged2) != sample {
		t.Fatalf("same versions: %+v, judged %v; want %d replayed (the sample), %d carried", got2, judged2, sample, n-sample)
	}
	got3, judged3 := night("n3", same)
	if got3.Reproduced != sample || slices.ContainsFunc(judged3, func(k string) bool { return slices.Contains(judged2, k) }) {
		t.Fatalf("next night %+v replayed %v, last night %v; want another sample of %d", got3, judged3, judged2, sample)
	}
	changed := oracles.Local{Oracles: []oracles.Oracle{otherVersion{spec.New(spec.PTXISA)}, spec.New(spec.Seed)}}
	if got, _ := night("n4", changed); got.Reproduced != n || got.Carried != 0 {
		t.Fatalf("spec/ptxisa changed: %+v; want all %d replayed", got, n)
	}
}
