package desc_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// pair is a struct inside a value: a count and up to two (shape, stride)
// entries, shapes clamped into 1..9.
type pair struct {
	N      uint8    `field:"n,range=1..2,derived,nokey"`
	Shape  [2]uint8 `field:"shape,range=1..9,clamp"`
	Stride [2]int8  `field:"stride,zip"`
}

func (p *pair) Count(string) int        { return int(p.N) }
func (p *pair) Derive(given desc.Given) { p.N = uint8(given.Len("shape")) }
func (p *pair) Check(given desc.Given) error {
	if p.N == 0 {
		return desc.Errorf("shape", "no entries")
	}
	return nil
}

// nested holds up to three pairs, Rank of them.
type nested struct {
	Rank  uint8         `field:"rank,range=1..3,derived,nokey"`
	Pairs [3]pair       `field:"pairs,derived"`
	Tgt   target.Target `field:"target,default=sm_90a"`
}

func (v nested) Encode() []byte           { return nestedTable.Encode(v) }
func (v nested) Target() target.Target    { return v.Tgt }
func (v *nested) Count(string) int        { return int(v.Rank) }
func (v *nested) Derive(given desc.Given) { v.Rank = uint8(given.Len("pairs")) }

var nestedTable = desc.MustCompile[nested]("nested")

// TestStructFields pins the layout of an array of structs (each entry's
// fields in place, zipped arrays alternating, entries past the count as
// zero bytes), the clamp of a shape read as 0 or 200, and the JSON form:
// objects, with errors naming the path of the field.
func TestStructFields(t *testing.T) {
	in := []byte{1, 1, 0, 0xff, 200, 3, 0, 5, 7, 9, 9, 9, 9, 9, 9, 9, 9, 9}
	v, _ := nestedTable.Decode(in)
	got := v.(nested)
	want := nested{Rank: 2, Pairs: [3]pair{{N: 2, Shape: [2]uint8{1, 9}, Stride: [2]int8{-1, 3}}, {N: 1, Shape: [2]uint8{5}, Stride: [2]int8{7}}},
		Tgt: got.Tgt}
	if got != want {
		t.Fatalf("decode %x: got %+v, want %+v", in, got, want)
	}
	wantBytes := []byte{1, 1, 1, 0xff, 9, 3, 0, 5, 7, 0, 0, 0, 0, 0, 0, 0}
	if enc := got.Encode(); !bytes.Equal(enc[:len(wantBytes)], wantBytes) {
		t.Fatalf("encode: got %x, want %x...", enc, wantBytes)
	}
	js, err := nestedTable.JSON(got)
	if err != nil || !strings.HasPrefix(string(js), `{"pairs":[{"shape":[1,9],"stride":[-1,3]},{"shape":[5],"stride":[7]}],`) {
		t.Fatalf("JSON %s (%v)", js, err)
	}
	back, err := nestedTable.Parse(js)
	if err != nil || back.(nested) != got {
		t.Fatalf("parse %s: got %+v (%v)", js, back, err)
	}
	for in, field := range map[string]string{
		`{"pairs":[{"shape":[1],"stride":[1]},{"shape":[0],"stride":[1]}]}`: `"pairs[1].shape"`,
		`{"pairs":[{"shape":[1,2],"stride":[1]}]}`:                          `"pairs[0].stride"`,
		`{"pairs":[{"stride":[]}]}`:                                         `"pairs[0].shape"`,
		`{"pairs":[{"shape":[1],"bogus":1}]}`:                               `"pairs[0].bogus"`,
		`{"pairs":[1]}`:                                                     `"pairs[0]"`,
		`{"pairs":[{},{},{},{}]}`:                                           `"pairs"`,
	} {
		if _, err := nestedTable.Parse([]byte(in)); err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: error %v, want one naming %s", in, err, field)
		}
	}
}
