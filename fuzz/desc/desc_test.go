package desc_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Color is an enumeration for the test values.
type Color uint8

func (Color) Enum() domain.Enum { return domain.Enum{"red", "green", "blue"} }

// v0 is a value type as first released.
type v0 struct {
	Size  uint16        `field:"size,range=1..100,default=8"`
	Color Color         `field:"color,default=green"`
	Odd   bool          `field:"odd,names=even|odd"`
	Skew  int8          `field:"skew,range=-3..3"`
	Wide  bool          `field:"wide"`
	Tgt   target.Target `field:"target,default=sm_90a"`
}

func (v v0) Encode() []byte          { return tables0.Encode(v) }
func (v v0) Target() target.Target   { return v.Tgt }
func (v *v0) Unused(f string) string { return unusedSkew(f, v.Wide) }

// v1 is v0 with one field added later, tagged since=1.
type v1 struct {
	Size  uint16        `field:"size,range=1..100,default=8"`
	Color Color         `field:"color,default=green"`
	Odd   bool          `field:"odd,names=even|odd"`
	Skew  int8          `field:"skew,range=-3..3"`
	Wide  bool          `field:"wide"`
	Tgt   target.Target `field:"target,default=sm_90a"`
	Shade uint8         `field:"shade,range=0..9,since=1"`
	Glow  bool          `field:"glow,since=1"`
}

func (v v1) Encode() []byte          { return tables1.Encode(v) }
func (v v1) Target() target.Target   { return v.Tgt }
func (v *v1) Unused(f string) string { return unusedSkew(f, v.Wide) }

// unusedSkew: only a wide value has a skew.
func unusedSkew(field string, wide bool) string {
	if field == "skew" && !wide {
		return "a narrow value has no skew"
	}
	return ""
}

var (
	tables0 = desc.MustCompile[v0]("test")
	tables1 = desc.MustCompile[v1]("test")
)

// TestAddedFieldKeepsOldBytesAndIDs is the promise of the version byte: a
// field added with since=1 leaves the bytes (so the case ID) of every value
// that does not use it as they were, old bytes decode with the new field
// zero, and a value that uses it round trips through its trailer.
func TestAddedFieldKeepsOldBytesAndIDs(t *testing.T) {
	rng := rand.New(rand.NewPCG(domaintest.Seed(t, "DESC_SEED", 3), 1))
	for range domaintest.Iterations(5000, 500) {
		b := domaintest.Input(rng, rng.IntN(16))
		old, _ := tables0.Decode(b)
		oldBytes := old.Encode()
		now, _ := tables1.Decode(oldBytes)
		if got := now.Encode(); !bytes.Equal(got, oldBytes) {
			t.Fatalf("%x: the version-0 value re-encodes as %x after the field was added", oldBytes, got)
		}
		if domain.ID("test", now.Encode()) != domain.ID("test", oldBytes) {
			t.Fatal("an unchanged value changed its ID")
		}
		nv := now.(v1)
		if nv.Shade != 0 || nv.Glow {
			t.Fatalf("old bytes %x decoded a new field: %+v", oldBytes, nv)
		}
		nv.Shade, nv.Glow = uint8(1+rng.IntN(9)), rng.IntN(2) == 0
		enc := nv.Encode()
		if len(enc) <= len(oldBytes) || enc[len(oldBytes)] != 1 {
			t.Fatalf("%+v encodes as %x: want the old bytes, then version 1", nv, enc)
		}
		back, _ := tables1.Decode(enc)
		if !reflect.DeepEqual(back, nv) {
			t.Fatalf("decode(%x) = %+v, want %+v", enc, back, nv)
		}
	}
}

// TestLayout pins the byte layout of version 0: numbers less their range's
// low end in their width, an enumeration in one byte, the bools of a version
// as bits of one byte where the first stands, the target last.
func TestLayout(t *testing.T) {
	v := v0{Size: 5, Color: 2, Odd: true, Skew: -1, Wide: true, Tgt: target.MustParse("sm_90a", "")}
	want := append([]byte{4, 0, 2, 0b11, 2}, v.Tgt.Encode(nil)...)
	if got := v.Encode(); !bytes.Equal(got, want) {
		t.Fatalf("encode %+v = %x, want %x", v, got, want)
	}
	// Every input decodes into the ranges, and unused fields read as zero.
	back, _ := tables0.Decode([]byte{0xff, 0xff, 0xff, 0b01, 0xff})
	bv := back.(v0)
	if bv.Size != 1+0xffff%100 || bv.Color != Color(0xff%3) || !bv.Odd || bv.Wide || bv.Skew != 0 {
		t.Fatalf("decoded %+v", bv)
	}
}

func TestJSON(t *testing.T) {
	base := v1{Size: 8, Color: 1, Tgt: target.MustParse("sm_90a", "")}
	for _, tc := range []struct {
		in   string
		want v1
	}{
		{`{}`, base},
		{`{"size":null,"odd":"odd","wide":true,"skew":-3,"shade":9}`, v1{Size: 8, Color: 1, Odd: true, Wide: true, Skew: -3, Shade: 9, Tgt: base.Tgt}},
		{`{"color":"blue","target":"sm_100a","ptx":"8.6"}`, v1{Size: 8, Color: 2, Tgt: target.MustParse("sm_100a", "8.6")}},
	} {
		got, err := tables1.Parse([]byte(tc.in))
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Fatalf("%s: got %+v, want %+v", tc.in, got, tc.want)
		}
		js, err := tables1.JSON(got.(v1))
		if err != nil {
			t.Fatal(err)
		}
		if back, err := tables1.Parse(js); err != nil || !reflect.DeepEqual(back, got) {
			t.Fatalf("own JSON %s parses to %+v, %v", js, back, err)
		}
		var m map[string]any
		err = json.Unmarshal(js, &m)
		if _, skew := m["skew"]; err != nil || len(m) != 8+b2i(skew) || skew != got.(v1).Wide {
			t.Fatalf("own JSON %s: %v, want 8 fields and skew only when wide", js, err)
		}
	}
}

func TestJSONRefuses(t *testing.T) {
	for _, tc := range []struct{ in, field, says string }{
		{`{"bogus":1}`, "bogus", "unknown field"},
		{`{"size":0}`, "size", "out of range [1, 100]"},
		{`{"size":"8"}`, "size", "want int, got JSON string"},
		{`{"size":8.5}`, "size", "want int"},
		{`{"color":"pink"}`, "color", "unknown value"},
		{`{"odd":true}`, "odd", "want string"},
		{`{"wide":1}`, "wide", "want bool"},
		{`{"skew":1}`, "skew", "a narrow value has no skew"},
		{`{"target":"sm_91"}`, "target", ""},
		{`{"ptx":"1.0"}`, "ptx", ""},
	} {
		_, err := tables1.Parse([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), `"`+tc.field+`"`) || !strings.Contains(err.Error(), tc.says) ||
			!strings.HasPrefix(err.Error(), "test: ") {
			t.Errorf("%s: error %v, want one from the domain naming %q saying %q", tc.in, err, tc.field, tc.says)
		}
	}
	for _, in := range []string{`[]`, `{} {}`, `{"size":`} {
		if _, err := tables1.Parse([]byte(in)); err == nil || !strings.Contains(err.Error(), "bad JSON") {
			t.Errorf("%s: error %v, want bad JSON", in, err)
		}
	}
}

// stub makes a type a domain.Value; Compile skips it, being unexported.
type stub struct{}

func (stub) Encode() []byte        { return nil }
func (stub) Target() target.Target { return target.Target{} }

// Bad descriptions are refused when compiled, naming the field.
type (
	noTag struct {
		stub
		A uint8
	}
	badRange struct {
		stub
		A uint8 `field:"a,range=0..300"`
	}
	badDefault struct {
		stub
		A uint8 `field:"a,range=0..3,default=4"`
	}
	noDerive struct {
		stub
		A uint8 `field:"a,derived"`
	}
	badOption struct {
		stub
		A uint8 `field:"a,optional"`
	}
	noTargetDefault struct {
		stub
		T target.Target `field:"target"`
	}
	plainInt struct {
		stub
		A int `field:"a"`
	}
	pow2NotPowers struct {
		stub
		A uint16 `field:"a,pow2,range=1..1000"`
	}
	zipNoArray struct {
		stub
		A [2]uint8 `field:"a"`
		B uint8    `field:"b,zip"`
	}
	zipOtherLength struct {
		stub
		A [2]uint8 `field:"a"`
		B [3]uint8 `field:"b,zip"`
	}
	nokeyNotDerived struct {
		stub
		A uint8 `field:"a,nokey"`
	}
	boolArray struct {
		stub
		A [2]bool `field:"a"`
	}
	clampFull struct {
		stub
		A uint8 `field:"a,clamp"`
	}
	structOption struct {
		stub
		P pair `field:"p,range=1..2"`
	}
	zipAfterStruct struct {
		stub
		P [2]pair  `field:"p"`
		Z [2]uint8 `field:"z,zip"`
	}
)

func TestCompileRefuses(t *testing.T) {
	for name, compile := range map[string]func() error{
		"no tag":              func() error { _, err := desc.Compile[noTag]("t"); return err },
		"range":               func() error { _, err := desc.Compile[badRange]("t"); return err },
		"default":             func() error { _, err := desc.Compile[badDefault]("t"); return err },
		"derived":             func() error { _, err := desc.Compile[noDerive]("t"); return err },
		"option":              func() error { _, err := desc.Compile[badOption]("t"); return err },
		"target default":      func() error { _, err := desc.Compile[noTargetDefault]("t"); return err },
		"int of no width":     func() error { _, err := desc.Compile[plainInt]("t"); return err },
		"pow2":                func() error { _, err := desc.Compile[pow2NotPowers]("t"); return err },
		"zip scalar":          func() error { _, err := desc.Compile[zipNoArray]("t"); return err },
		"zip length":          func() error { _, err := desc.Compile[zipOtherLength]("t"); return err },
		"nokey":               func() error { _, err := desc.Compile[nokeyNotDerived]("t"); return err },
		"bool array":          func() error { _, err := desc.Compile[boolArray]("t"); return err },
		"clamp without range": func() error { _, err := desc.Compile[clampFull]("t"); return err },
		"struct option":       func() error { _, err := desc.Compile[structOption]("t"); return err },
		"zip after struct":    func() error { _, err := desc.Compile[zipAfterStruct]("t"); return err },
	} {
		if err := compile(); err == nil || !strings.Contains(err.Error(), "field ") {
			t.Errorf("%s: error %v, want one naming the field", name, err)
		}
	}
}

func TestMarkdown(t *testing.T) {
	md := tables0.Markdown()
	for _, want := range []string{"| `size` | 1..100 | `8` |", "| `color` | `red`, `green`, `blue` | `green` |",
		"| `odd` | `even`, `odd` | `even` |", "| `target` | an architecture, `sm_90a` | `sm_90a` |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
