// Package domaintest holds the checks every domain's tests share: the seeded
// PRNG, the canonical and JSON round trips, the round trip of the seeds and
// of random bytes, and the decoding of short inputs. It exists so that each
// domain's _test.go states only its own parameters (seed variable, default
// seed, counts, lengths) and its own tests. Only tests import it.
package domaintest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// ShortN is how many random inputs RandomBytes decodes under -short.
const ShortN = 500

// Check checks one value of a domain.
type Check func(t testing.TB, v domain.Value)

// Seed returns the PRNG seed: the variable env, parsed as a Go integer
// literal, when set, else def. It logs the seed and how to override it.
func Seed(t testing.TB, env string, def uint64) uint64 {
	t.Helper()
	seed := def
	if s := os.Getenv(env); s != "" {
		n, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			t.Fatalf("%s: %v", env, err)
		}
		seed = n
	}
	t.Logf("seed %#x (override with %s)", seed, env)
	return seed
}

// RoundTrip checks that v decodes from its canonical bytes and parses from
// its own JSON to a value deeply equal to itself.
func RoundTrip(t testing.TB, d domain.Domain, v domain.Value) {
	t.Helper()
	if _, err := domain.RoundTrip(d, v); err != nil {
		t.Fatal(err)
	}
	if err := domain.JSONRoundTrip(d, v); err != nil {
		t.Fatal(err)
	}
}

// orRoundTrip returns check, or RoundTrip for d when check is nil.
func orRoundTrip(d domain.Domain, check Check) Check {
	if check != nil {
		return check
	}
	return func(t testing.TB, v domain.Value) { t.Helper(); RoundTrip(t, d, v) }
}

// SeedsRoundTrip runs check on every seed of d, one subtest per seed named by
// its index; a nil check is RoundTrip.
func SeedsRoundTrip(t *testing.T, d domain.Domain, check Check) {
	t.Helper()
	check = orRoundTrip(d, check)
	for i, v := range d.Seeds() {
		t.Run(strconv.Itoa(i), func(t *testing.T) { check(t, v) })
	}
}

// Random says which random byte strings RandomBytes decodes.
type Random struct {
	Seed   uint64 // the PCG seed, usually from Seed
	Stream uint64 // the PCG stream
	N      int    // how many inputs
	ShortN int    // how many under -short; 0 is ShortN
	MaxLen int    // lengths are drawn from [0, MaxLen)
	Check  Check  // run on each decoded value; nil is RoundTrip
}

// RandomBytes decodes r.N random byte strings with d, each of which must
// decode, and runs r.Check on each value.
func RandomBytes(t *testing.T, d domain.Domain, r Random) {
	t.Helper()
	check := orRoundTrip(d, r.Check)
	rng := rand.New(rand.NewPCG(r.Seed, r.Stream))
	short := r.ShortN
	if short == 0 {
		short = ShortN
	}
	for range Iterations(r.N, short) {
		b := Input(rng, rng.IntN(r.MaxLen))
		v, err := d.Decode(b)
		if err != nil {
			t.Fatalf("decode %x: %v", b, err)
		}
		check(t, v)
	}
}

// Input returns n bytes drawn from rng: a random input for a decoder. The
// randomized tests of the domains and of what is built on them draw their
// inputs this way, so that a seed names the same inputs in each.
func Input(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// Iterations returns n, or short under -short: how many random inputs a
// randomized test draws.
func Iterations(n, short int) int {
	if testing.Short() {
		return short
	}
	return n
}

// ShortInputs decodes every prefix of full, the empty one included: each
// must decode without error, and check, when not nil, sees each value with
// the prefix's length.
func ShortInputs(t testing.TB, d domain.Domain, full []byte, check func(n int, v domain.Value)) {
	t.Helper()
	for n := 0; n <= len(full); n++ {
		v, err := d.Decode(full[:n])
		if err != nil {
			t.Fatalf("decode of %d bytes: %v", n, err)
		}
		if check != nil {
			check(n, v)
		}
	}
}

// Parsed is a hand-written JSON input and the value it must parse to.
type Parsed struct {
	Name string       // the subtest's name; the input when empty
	In   string       // the JSON input
	Want domain.Value // the value ParseJSON must return
}

// ParseJSON checks that d parses each input to its value, one subtest per
// case: the documented defaults are part of the JSON form.
func ParseJSON(t *testing.T, d domain.Domain, cases []Parsed) {
	t.Helper()
	for _, tc := range cases {
		name := tc.Name
		if name == "" {
			name = tc.In
		}
		t.Run(name, func(t *testing.T) {
			got, err := d.ParseJSON([]byte(tc.In))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.Want) {
				t.Fatalf("%s: got %+v\nwant %+v", tc.In, got, tc.Want)
			}
		})
	}
}

// Refused is a JSON input that must not parse, and the field its error must
// name.
type Refused struct {
	In    string // the JSON input
	Field string // the field the error names, in double quotes
}

// ParseJSONRefuses checks that d refuses each input with an error naming the
// field in double quotes, one subtest per case: a hand-written case with a
// mistake must say where the mistake is.
func ParseJSONRefuses(t *testing.T, d domain.Domain, cases []Refused) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Field+" "+tc.In, func(t *testing.T) {
			_, err := d.ParseJSON([]byte(tc.In))
			if err == nil {
				t.Fatalf("%s parsed, want an error naming %q", tc.In, tc.Field)
			}
			if !strings.Contains(err.Error(), `"`+tc.Field+`"`) {
				t.Fatalf("%s: error %q does not name %q", tc.In, err, tc.Field)
			}
		})
	}
}

// Suite is the parameters of the three checks every domain runs on its
// decoder: the round trip of its seeds, the decoding and round trip of random
// bytes, and the decoding of every prefix of a full encoding. Each domain's
// tests once wrote these three tests out, identical but for the numbers; a
// Suite literal states only the numbers, and Run runs the three.
type Suite struct {
	Domain domain.Domain
	// SeedEnv names the variable that overrides Seed, the default PRNG seed.
	SeedEnv string
	Seed    uint64
	Stream  uint64 // the PCG stream of the random bytes
	N       int    // how many random inputs
	ShortN  int    // how many under -short; 0 is ShortN
	MaxLen  int    // random lengths are drawn from [0, MaxLen)
	// Check runs on each seed and each random value; nil is RoundTrip.
	Check Check
	// Decoded, when not nil, runs on each random value instead of Check.
	Decoded Check
	// Full is a value with every field set: each prefix of its encoding must
	// decode.
	Full domain.Value
	// Prefix, when not nil, checks the value decoded from each prefix of
	// Full's encoding, n bytes long.
	Prefix func(t testing.TB, n int, v domain.Value)
}

// RNGSeed returns the suite's PRNG seed, SeedEnv overriding Seed, for a
// domain's own randomized tests.
func (s Suite) RNGSeed(t testing.TB) uint64 {
	t.Helper()
	return Seed(t, s.SeedEnv, s.Seed)
}

// Run runs the three checks as subtests named as the tests they replace:
// SeedsRoundTrip, RandomBytesRoundTrip and DecodeShortInputs; and, for a
// domain with a GoldenFile, Golden and CorpusKeepsIDs.
func (s Suite) Run(t *testing.T) {
	t.Run("SeedsRoundTrip", func(t *testing.T) { SeedsRoundTrip(t, s.Domain, s.Check) })
	t.Run("RandomBytesRoundTrip", func(t *testing.T) {
		check := s.Decoded
		if check == nil {
			check = s.Check
		}
		RandomBytes(t, s.Domain, Random{Seed: s.RNGSeed(t), Stream: s.Stream, N: s.N, ShortN: s.ShortN, MaxLen: s.MaxLen,
			Check: check})
	})
	t.Run("DecodeShortInputs", func(t *testing.T) {
		var prefix func(n int, v domain.Value)
		if s.Prefix != nil {
			prefix = func(n int, v domain.Value) { t.Helper(); s.Prefix(t, n, v) }
		}
		ShortInputs(t, s.Domain, s.Full.Encode(), prefix)
	})
	if _, err := os.Stat(GoldenFile); err == nil {
		t.Run("Golden", func(t *testing.T) { Golden(t, s.Domain, GoldenFile) })
		t.Run("CorpusKeepsIDs", func(t *testing.T) {
			CorpusKeepsIDs(t, s.Domain, filepath.Join("..", "testdata", "fuzz", s.Domain.FuzzTarget))
		})
	}
}

// GoldenFile is where a described domain keeps what its hand-written codec
// did, relative to its package: Run checks it, and that the domain's fuzz
// corpus keeps its case IDs, when it is there. (The helpers that wrote the
// golden files and compared the two codecs went with the last hand-written
// codec, umma's; see its migration commit.)
const GoldenFile = "testdata/golden.jsonl"

// CorpusKeepsIDs reads the domain's seed corpus as main wrote it (dir holds
// "go test fuzz v1" files of one []byte): each entry re-encodes to its own
// bytes, so each case keeps the ID main gave it.
func CorpusKeepsIDs(t *testing.T, d domain.Domain, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus in %s: %v", dir, err)
	}
	for _, p := range files {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[1], "[]byte(") {
			t.Fatalf("%s: not a one-value fuzz corpus file", p)
		}
		s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		v, err := d.Decode([]byte(s))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if got := v.Encode(); !bytes.Equal(got, []byte(s)) {
			t.Fatalf("%s: re-encodes to %x, want %x", p, got, s)
		}
	}
}

// BenchDecode times d's decoder on random inputs of n bytes: decoding runs
// in the native fuzz loop.
func BenchDecode(b *testing.B, d domain.Domain, n int) {
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := make([][]byte, 256)
	for i := range inputs {
		inputs[i] = Input(rng, n)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := d.Decode(inputs[i%len(inputs)]); err != nil {
			b.Fatal(err)
		}
	}
}

// A golden file keeps what a domain's hand-written codec and JSON form did,
// once the described ones were proven equal to them and the hand-written
// code deleted: each line a JSON object, either a decoded input
// ({"in": hex, "canon": hex, "json": the value's JSON}) or a JSON input
// ({"parse": text, "canon": hex, or "" where it was refused}).
type goldenLine struct {
	In    string `json:"in,omitempty"`
	Parse string `json:"parse,omitempty"`
	Canon string `json:"canon"`
	JSON  string `json:"json,omitempty"`
}

// Golden checks d against the golden file its hand-written code wrote: each
// input decodes to the value of the canonical bytes (inputs no longer than
// them; longer ones may reach a later version's fields), which re-encode
// to themselves and parse from their old JSON; each JSON input parses to
// a value with the same bytes (so the same case ID), or is refused as it
// was.
func Golden(t *testing.T, d domain.Domain, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	for i, text := range lines {
		var g goldenLine
		if err := json.Unmarshal([]byte(text), &g); err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		canon, _ := hex.DecodeString(g.Canon)
		if g.Parse != "" {
			goldenParse(t, d, g.Parse, canon)
			continue
		}
		in, _ := hex.DecodeString(g.In)
		want, _ := d.Decode(canon)
		if got := want.Encode(); !bytes.Equal(got, canon) {
			t.Fatalf("%s:%d: %x re-encodes to %x", path, i+1, canon, got)
		}
		if got, _ := d.Decode(in); len(in) <= len(canon) && !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:%d: %x decodes to %+v, want %+v", path, i+1, in, got, want)
		}
		if got, err := d.ParseJSON([]byte(g.JSON)); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:%d: old JSON %s parses to %+v (%v), want %+v", path, i+1, g.JSON, got, err, want)
		}
	}
}

// goldenParse checks one JSON input of a golden file.
func goldenParse(t *testing.T, d domain.Domain, in string, canon []byte) {
	t.Helper()
	got, err := d.ParseJSON([]byte(in))
	if len(canon) == 0 {
		if err == nil {
			t.Fatalf("%s parses to %+v, was refused", in, got)
		}
		return
	}
	if err != nil || !bytes.Equal(got.Encode(), canon) {
		t.Fatalf("%s parses to %+v (%v), want the value of %x", in, got, err, canon)
	}
}
