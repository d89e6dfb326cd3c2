package store

import (
	"cmp"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
)

// Rekey files bucket b under sig, the signature its minimized case shows:
// one bucket per root cause (issue 36). The key is sig's; when a bucket
// already holds that key, or has b's minimized case or sig's title (which
// names the rule), b merges into it. Members, suppression and nights move
// with b, and b's old key stays an alias of the new one, so that a finding
// under the old key and a night that names it find the bucket. It returns
// the bucket b now is.
func (s *Store) Rekey(b Bucket, sig policy.Signature) (Bucket, error) {
	var out Bucket
	err := s.update(func(tx *bolt.Tx) (err error) {
		out, err = rekey(tx, b, sig)
		return err
	})
	return out, err
}

// AddWitness files a witness split off bucket from: a minimized case (its
// example and minimized case both) showing sig, the signature of one of
// the rules from's example breaks. It joins the bucket that holds sig, as
// Rekey finds it, or starts one that inherits from's nights.
func (s *Store) AddWitness(from Bucket, sig policy.Signature, w Bucket) (Bucket, error) {
	var out Bucket
	err := s.update(func(tx *bolt.Tx) error {
		bb := tx.Bucket(bucketBuckets)
		aliases, err := tx.CreateBucketIfNotExists(bucketAliases)
		if err != nil {
			return err
		}
		id := w.Minimized
		w.Signature, w.Title, w.Example, w.Cases = sig, sig.Title(), id, 1
		w.Campaign, w.FirstSeen, w.LastSeen, w.Nights = from.Campaign, from.FirstSeen, from.LastSeen, from.History()
		to, exists := resolveBucket(bb, aliases, sig)
		w.Key = to
		if exists {
			if out, _, err = get[Bucket](bb, []byte(to)); err != nil {
				return err
			}
			w = merged(out, w)
			w.Cases = out.Cases
		}
		mark := []byte(to + "\x00" + id)
		if exists && !hasMark(tx.Bucket(bucketMembers), mark) {
			w.Cases++
		}
		if err := setMark(tx.Bucket(bucketMembers), mark); err != nil {
			return err
		}
		if exists {
			out = w
			return put(bb, []byte(to), w)
		}
		if err := countNew(tx, w, +1); err != nil {
			return err
		}
		out, err = rekey(tx, w, sig)
		return err
	})
	return out, err
}

// countNew adds delta to the new buckets of the campaign that found b
// (and of b's domain there): a bucket merged into another was not new, a
// witness split off is.
func countNew(tx *bolt.Tx, b Bucket, delta int) error {
	if b.Campaign == "" || tx.Bucket(bucketCampaigns).Get([]byte(b.Campaign)) == nil {
		return nil
	}
	return updateCampaign(tx, b.Campaign, func(c *Campaign) {
		c.Stats.NewBuckets += delta
		c.Domain(b.Signature.Domain).NewBuckets += delta
	})
}

// rekeyOld files every bucket of a store written before schema 5 under the
// key today's signature of its case gives (its diagnostic's title keeps
// the type words now, diag.Title), its old key an alias, and merges the
// buckets that then share a key, a title or a minimized case, oldest
// first. A bucket whose case has no verdicts left keeps its signature and
// only merges.
func rekeyOld(tx *bolt.Tx) error {
	bb := tx.Bucket(bucketBuckets)
	all, err := byAge(bb)
	if err != nil {
		return err
	}
	for _, old := range all {
		b, ok, err := get[Bucket](bb, []byte(old.Key)) // as merges into it left it
		if err != nil || !ok {
			return err
		}
		sig, err := signatureNow(tx, b)
		if err != nil {
			return err
		}
		if _, err := rekey(tx, b, sig); err != nil {
			return fmt.Errorf("bucket %s: %w", b.Key, err)
		}
	}
	return nil
}

// signatureNow is the signature today's policy gives a bucket's case (the
// minimized one, else its example) from its stored verdicts; the stored
// signature when they are gone.
func signatureNow(tx *bolt.Tx, b Bucket) (policy.Signature, error) {
	id := cmp.Or(b.Minimized, b.Example)
	vs, err := caseVerdicts(tx, id)
	if err != nil {
		return b.Signature, err
	}
	c := storedCase(tx, id, vs)
	for _, d := range policy.PolicyFor(b.Signature.Domain).On(b.Signature.Pair).Evaluate(c, vs) {
		if d.Pair == b.Signature.Pair && d.Finding() {
			return policy.SignatureOf(d), nil
		}
	}
	return b.Signature, nil
}

func rekey(tx *bolt.Tx, b Bucket, sig policy.Signature) (Bucket, error) {
	bb := tx.Bucket(bucketBuckets)
	aliases, err := tx.CreateBucketIfNotExists(bucketAliases)
	if err != nil {
		return b, err
	}
	if b, err = current(bb, aliases, b); err != nil {
		return b, err
	}
	to, exists := resolveBucket(bb, aliases, sig)
	if !exists || to == b.Key {
		twin, err := findTwin(bb, b, sig.Title())
		if err != nil {
			return b, err
		}
		if twin != "" {
			to, exists = twin, true
		}
	}
	if to == b.Key {
		return b, put(bb, []byte(b.Key), b)
	}
	into := b
	into.Key, into.Signature, into.Title = to, sig, sig.Title()
	if exists {
		if into, _, err = get[Bucket](bb, []byte(to)); err != nil {
			return b, err
		}
		into = merged(into, b)
		if err := countNew(tx, b, -1); err != nil {
			return b, err
		}
	}
	if into.Cases, err = moveMembers(tx, b.Key, to, into.Cases, exists); err != nil {
		return b, err
	}
	if err := moveSuppression(tx, b.Key, to); err != nil {
		return b, err
	}
	if err := bb.Delete([]byte(b.Key)); err != nil {
		return b, err
	}
	if err := realias(aliases, b.Key, to, sig); err != nil {
		return b, err
	}
	return into, put(bb, []byte(to), into)
}

// current is bucket b as the store holds it now, with the minimizer's
// results b carries: buckets are minimized side by side, and while one
// was, another may have merged into it (its cases, nights) or it into
// another (its key is an alias now: the results go to that bucket). A
// bucket the store never held (a witness) is b itself.
func current(bb, aliases *bolt.Bucket, b Bucket) (Bucket, error) {
	key := b.Key
	if bb.Get([]byte(key)) == nil {
		if to := aliases.Get([]byte(key)); to != nil && bb.Get(to) != nil {
			key = string(to)
		}
	}
	cur, ok, err := get[Bucket](bb, []byte(key))
	if err != nil || !ok {
		return b, err
	}
	cur.Minimized, cur.Reliability, cur.ReChecks, cur.MinimizeNote = b.Minimized, b.Reliability, b.ReChecks, b.MinimizeNote
	for _, k := range b.Split {
		if !slices.Contains(cur.Split, k) {
			cur.Split = append(cur.Split, k)
		}
	}
	return cur, nil
}

// findTwin is the key of another bucket with b's minimized case or with
// title: one root cause filed twice.
func findTwin(bb *bolt.Bucket, b Bucket, title string) (string, error) {
	var twin string
	err := bb.ForEach(func(k, data []byte) error {
		if twin != "" || string(k) == b.Key {
			return nil
		}
		o, _, err := get[Bucket](bb, k)
		if err != nil {
			return err
		}
		if o.Title == title || b.Minimized != "" && o.Minimized == b.Minimized && o.Signature.Domain == b.Signature.Domain {
			twin = o.Key
		}
		return nil
	})
	return twin, err
}

// merged is bucket into with b's findings added: first and last seen, the
// nights of both, a minimized case when into has none, the titles.
func merged(into, b Bucket) Bucket {
	if b.FirstSeen.Before(into.FirstSeen) {
		into.FirstSeen = b.FirstSeen
	}
	if b.LastSeen.After(into.LastSeen) {
		into.LastSeen = b.LastSeen
	}
	if into.Minimized == "" && b.Minimized != "" {
		into.Minimized, into.Reliability, into.ReChecks, into.MinimizeNote = b.Minimized, b.Reliability, b.ReChecks, ""
	}
	if len(into.Versions) == 0 {
		into.Versions = b.Versions
	}
	for _, t := range append([]string{b.Signature.Diag}, b.AltTitles...) {
		if t != into.Signature.Diag && !slices.Contains(into.AltTitles, t) {
			into.AltTitles = append(into.AltTitles, t)
		}
	}
	nights := into.History()
	for _, n := range b.History() {
		if !slices.ContainsFunc(nights, func(o Sighting) bool { return o.Campaign == n.Campaign }) {
			nights = append(nights, n)
		}
	}
	slices.SortStableFunc(nights, func(a, b Sighting) int { return cmp.Compare(a.Time.UnixNano(), b.Time.UnixNano()) })
	into.Nights = nights
	for _, k := range b.Split {
		if !slices.Contains(into.Split, k) {
			into.Split = append(into.Split, k)
		}
	}
	return into
}

// moveMembers moves the member marks of bucket from to bucket to and
// returns to's case count: from's added when merging (each case once),
// unchanged when from is moving.
func moveMembers(tx *bolt.Tx, from, to string, cases int, merging bool) (int, error) {
	mb := tx.Bucket(bucketMembers)
	prefix := []byte(from + "\x00")
	var ids []string
	c := mb.Cursor()
	for k, _ := c.Seek(prefix); k != nil && hasPrefix(k, prefix); k, _ = c.Next() {
		ids = append(ids, string(k[len(prefix):]))
	}
	for _, id := range ids {
		if err := mb.Delete([]byte(from + "\x00" + id)); err != nil {
			return cases, err
		}
		mark := []byte(to + "\x00" + id)
		if hasMark(mb, mark) {
			continue
		}
		if err := setMark(mb, mark); err != nil {
			return cases, err
		}
		if merging {
			cases++
		}
	}
	return cases, nil
}

// moveSuppression carries a suppression of bucket from over to bucket to,
// unless to has its own.
func moveSuppression(tx *bolt.Tx, from, to string) error {
	sb := tx.Bucket(bucketSuppressions)
	if sb == nil || sb.Get([]byte(from)) == nil {
		return nil
	}
	sup, _, err := get[Suppression](sb, []byte(from))
	if err != nil {
		return err
	}
	if err := sb.Delete([]byte(from)); err != nil {
		return err
	}
	if sb.Get([]byte(to)) != nil {
		return nil
	}
	sup.Bucket = to
	return put(sb, []byte(to), sup)
}

// realias points the old key, and every alias that named it, at the new
// one, and the new signature's alternative keys too.
func realias(aliases *bolt.Bucket, from, to string, sig policy.Signature) error {
	var repoint [][]byte
	err := aliases.ForEach(func(k, v []byte) error {
		if string(v) == from {
			repoint = append(repoint, append([]byte(nil), k...))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("aliases: %w", err)
	}
	for _, k := range append(repoint, []byte(from)) {
		if string(k) != to {
			if err := aliases.Put(k, []byte(to)); err != nil {
				return err
			}
		}
	}
	for _, k := range append(sig.AltKeys(), sig.Key()) {
		if k != to && aliases.Get([]byte(k)) == nil {
			if err := aliases.Put([]byte(k), []byte(to)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Bucket returns the bucket that key names: its own, or the one an alias
// of an old key leads to (a bucket re-keyed or merged since).
func (s *Store) Bucket(key string) (Bucket, bool, error) {
	var b Bucket
	var ok bool
	err := s.view(func(tx *bolt.Tx) (err error) {
		b, ok, err = get[Bucket](tx.Bucket(bucketBuckets), []byte(resolveKey(tx, key)))
		return err
	})
	return b, ok, err
}

// resolveKey is the key of the bucket that key names: itself, or where the
// alias of an old key leads.
func resolveKey(tx *bolt.Tx, key string) string {
	if al := tx.Bucket(bucketAliases); tx.Bucket(bucketBuckets).Get([]byte(key)) == nil && al != nil {
		if to := al.Get([]byte(key)); to != nil {
			return string(to)
		}
	}
	return key
}

// byAge lists the buckets oldest first (first sighting, then key).
func byAge(bb *bolt.Bucket) ([]Bucket, error) {
	var all []Bucket
	err := bb.ForEach(func(k, _ []byte) error {
		b, _, err := get[Bucket](bb, k)
		all = append(all, b)
		return err
	})
	slices.SortStableFunc(all, func(a, b Bucket) int {
		return cmp.Or(a.FirstSeen.Compare(b.FirstSeen), cmp.Compare(a.Key, b.Key))
	})
	return all, err
}

// MergeTwins merges each bucket that has a twin, another bucket with its
// minimized case (in its domain) or its title, into it, newest first, and
// returns how many merged. Rekey merges a twin when a minimization ends,
// yet a 60 s and an 8-minute campaign on one store left mlir@trunk's and
// mlir-nvvm@trunk's refusal of one stmatrix case in two buckets: the tail
// ends with this pass.
func (s *Store) MergeTwins() (n int, err error) {
	err = s.update(func(tx *bolt.Tx) error {
		n = 0
		bb := tx.Bucket(bucketBuckets)
		all, err := byAge(bb)
		if err != nil {
			return err
		}
		for _, old := range slices.Backward(all) {
			b, ok, err := get[Bucket](bb, []byte(old.Key))
			if err != nil {
				return err
			}
			twin := ""
			if ok { // else merged into another already
				if twin, err = findTwin(bb, b, b.Title); err != nil {
					return err
				}
			}
			if twin == "" {
				continue
			}
			if _, err := rekey(tx, b, b.Signature); err != nil {
				return fmt.Errorf("bucket %s: %w", b.Key, err)
			}
			n++
		}
		return nil
	})
	return n, err
}
