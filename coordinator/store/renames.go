package store

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/legalfuzz/legalfuzz/oracles"
)

// renamedOracles is the table of old oracle names (renamed-oracles.txt).
//
//go:embed renamed-oracles.txt
var renamedOracles string

// renamed maps an old oracle name to its installation's oracle.
var renamed = parseRenames(renamedOracles)

// keyNames marks, in the meta bucket, a store whose oracle names are
// installations' (BASE@LABEL): renamed, or written so from the start.
var keyNames = []byte("oracle-names")

// namesInstalled is keyNames' value.
const namesInstalled = "installations"

func parseRenames(table string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(table, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) != 2 {
			panic(fmt.Sprintf("renamed-oracles.txt: %q is not OLD NEW", line)) // our own table
		}
		out[f[0]] = f[1]
	}
	return out
}

// rename is the oracle's name today: its installation's for an old name,
// each side of a pair "A~B" renamed, else the name as it is.
func rename(name string) string {
	if a, b, ok := strings.Cut(name, "~"); ok {
		return rename(a) + "~" + rename(b)
	}
	if n, ok := renamed[name]; ok {
		return n
	}
	return name
}

// renameOracles renames, once, the old oracle names (mlir22, llc19, ...)
// of a store written before LLVM installations were data: its buckets
// (deviating tool, pair, found-in, nights) and its verdicts, so that a
// night replays old buckets with the installations' oracles and finds
// their cases' verdicts under the same names. Campaign records keep the
// names their night ran with.
func renameOracles(tx *bolt.Tx, fresh bool) error {
	meta := tx.Bucket(bucketMeta)
	if string(meta.Get(keyNames)) == namesInstalled {
		return nil
	}
	if !fresh {
		if err := renameBuckets(tx.Bucket(bucketBuckets)); err != nil {
			return fmt.Errorf("rename oracles in buckets: %w", err)
		}
		if err := renameVerdicts(tx); err != nil {
			return fmt.Errorf("rename oracles in verdicts: %w", err)
		}
	}
	return meta.Put(keyNames, []byte(namesInstalled))
}

func renameBuckets(b *bolt.Bucket) error {
	changed := map[string]Bucket{}
	err := b.ForEach(func(k, data []byte) error {
		var bk Bucket
		if err := json.Unmarshal(data, &bk); err != nil {
			return fmt.Errorf("%w bucket %q: %w", errRecord, k, err)
		}
		if renameBucket(&bk) {
			changed[string(k)] = bk
		}
		return nil
	})
	if err != nil {
		return err
	}
	for k, bk := range changed {
		if err := put(b, []byte(k), bk); err != nil {
			return err
		}
	}
	return nil
}

// renameBucket renames the bucket's oracles and reports whether any was old.
func renameBucket(b *Bucket) bool {
	was, _ := json.Marshal(b)
	sig := &b.Signature
	sig.Tool, sig.Pair.A, sig.Pair.B = rename(sig.Tool), rename(sig.Pair.A), rename(sig.Pair.B)
	for i := range b.Versions {
		b.Versions[i].Oracle = rename(b.Versions[i].Oracle)
	}
	for _, n := range b.Nights {
		for name, v := range n.Versions {
			if to := rename(name); to != name {
				delete(n.Versions, name)
				n.Versions[to] = v
			}
		}
	}
	now, _ := json.Marshal(b)
	return string(was) != string(now)
}

func renameVerdicts(tx *bolt.Tx) error {
	type move struct {
		from []byte
		v    oracles.Verdict
	}
	var moves []move
	b := tx.Bucket(bucketVerdicts)
	err := b.ForEach(func(k, data []byte) error {
		_, oracle, ok := strings.Cut(string(k), "\x00")
		if !ok || rename(oracle) == oracle {
			return nil
		}
		v, err := readVerdict(tx, k, data)
		if err != nil {
			return err
		}
		v.Oracle = rename(oracle)
		moves = append(moves, move{from: append([]byte(nil), k...), v: v})
		return nil
	})
	if err != nil {
		return err
	}
	for _, m := range moves {
		if err := b.Delete(m.from); err != nil {
			return err
		}
		if err := putVerdict(tx, m.v); err != nil {
			return err
		}
	}
	return nil
}
