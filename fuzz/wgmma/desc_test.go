package wgmma

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
)

// TestDescribedCodecMatchesLegacy is the proof that the described codec is
// version 0 of the hand-written one: random bytes decode to the same value
// under both, and every value encodes to the same bytes, so every stored case
// ID and corpus entry keeps its meaning.
func TestDescribedCodecMatchesLegacy(t *testing.T) {
	rng := rand.New(rand.NewPCG(suite.RNGSeed(t), 11))
	for range domaintest.Iterations(20000, 2000) {
		b := domaintest.Input(rng, rng.IntN(40))
		got, _ := Decode(b)
		want, _ := legacyDecode(b)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decode %x: got %+v, legacy %+v", b, got, want)
		}
		if g, w := got.Encode(), legacyEncode(want.(Value)); !bytes.Equal(g, w) {
			t.Fatalf("encode %+v: got %x, legacy %x", got, g, w)
		}
	}
}

// TestDescribedJSONMatchesLegacy checks that the described JSON form writes
// the bytes the hand-written one wrote and parses what it parsed to the same
// values, and refuses what it refused.
func TestDescribedJSONMatchesLegacy(t *testing.T) {
	for _, v := range Seeds() {
		got, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := legacyMarshalJSON(v.(Value))
		if !bytes.Equal(got, want) {
			t.Fatalf("marshal %+v:\n got %s\nwant %s", v, got, want)
		}
	}
	inputs := []string{`{}`, `{"a_type":"s8"}`, `{"a_type":"b1","sparse":true}`, `{"a_type":"tf32","sparse":true,"sp_sel":2}`,
		`{"k":null,"m":null}`, `{"d_type":"f16","b_type":"e5m2","a_type":"e4m3"}`, `{"a_source":"register","scale_a":-1}`,
		`{"sp_sel":0}`, `{"sparse":false,"sp_sel":3}`, `{"m":"64"}`, `{"m":64.5}`, `{"trans_a":"yes"}`, `[]`, `{} {}`, `{"ptx":"9.9"}`}
	matches, _ := filepath.Glob("../../corpus/repro/testdata/*/wgmma.*.json")
	for _, p := range matches {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, string(b))
	}
	for _, in := range inputs {
		got, gerr := ParseJSON([]byte(in))
		want, werr := legacyParseJSON([]byte(in))
		if (gerr == nil) != (werr == nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("parse %s:\n got %+v, %v\nwant %+v, %v", in, got, gerr, want, werr)
		}
	}
}

// TestOldCorpusKeepsIDs reads the seed corpus main wrote before package
// desc: each entry decodes and re-encodes to its own bytes, so the case ID
// of each is what main gave it.
func TestOldCorpusKeepsIDs(t *testing.T) {
	files, err := filepath.Glob("../testdata/fuzz/FuzzWGMMA/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	for _, p := range files {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b := corpusBytes(t, string(raw))
		v, _ := Decode(b)
		if got := v.Encode(); !bytes.Equal(got, b) {
			t.Fatalf("%s: re-encodes to %x, want %x", p, got, b)
		}
		if got, want := domain.NewCase(Name, v).ID, domain.ID(Name, b); got != want {
			t.Fatalf("%s: ID %s, want %s", p, got, want)
		}
	}
}

// corpusBytes reads the []byte of a "go test fuzz v1" file.
func corpusBytes(t *testing.T, s string) []byte {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "[]byte(") {
		t.Fatalf("not a one-value fuzz corpus file: %q", s)
	}
	q := strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")")
	out, err := strconv.Unquote(q)
	if err != nil {
		t.Fatalf("corpus value %s: %v", q, err)
	}
	return []byte(out)
}

// BenchmarkDecode compares the described decoder with the hand-written one
// it replaced, on the same inputs: the decoder runs in the native fuzz loop.
func BenchmarkDecode(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := make([][]byte, 256)
	for i := range inputs {
		inputs[i] = domaintest.Input(rng, 22)
	}
	for _, c := range []struct {
		name   string
		decode func([]byte) (domain.Value, error)
	}{{"legacy", legacyDecode}, {"described", Decode}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := c.decode(inputs[i%len(inputs)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEncode compares the described encoder with the hand-written one:
// every case's ID hashes its canonical bytes.
func BenchmarkEncode(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	values := make([]Value, 256)
	for i := range values {
		v, _ := Decode(domaintest.Input(rng, 22))
		values[i] = v.(Value)
	}
	for _, c := range []struct {
		name   string
		encode func(Value) []byte
	}{{"legacy", legacyEncode}, {"described", Value.Encode}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				c.encode(values[i%len(values)])
			}
		})
	}
}
