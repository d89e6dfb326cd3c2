package ldsm

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

func TestSeedsRoundTrip(t *testing.T) { domaintest.SeedsRoundTrip(t, Domain, nil) }

func TestRandomBytesRoundTrip(t *testing.T) {
	seed := domaintest.Seed(t, "LDSM_SEED", 0x1d5e)
	domaintest.RandomBytes(t, Domain, domaintest.Random{Seed: seed, Stream: 3, N: 20000, MaxLen: 24})
}

// TestDecodeShortInputs decodes every prefix of a full encoding, the empty
// input included, and checks the decoder's invariants on each.
func TestDecodeShortInputs(t *testing.T) {
	full := New(Store, M16N8, 4, true, B8, target.MustParse("sm_100a", "")).Encode()
	domaintest.ShortInputs(t, Domain, full, func(n int, v domain.Value) {
		val := v.(Value)
		if s, ok := val.Mode.Shape(); ok && s != val.Shape {
			t.Fatalf("decode %d bytes: mode %s with shape %s", n, val.Mode, val.Shape)
		}
		if val.Align == 0 || val.Align&(val.Align-1) != 0 || !val.Tgt.Valid() {
			t.Fatalf("decode %d bytes: bad value %+v", n, val)
		}
	})
}

func TestParseJSONDefaults(t *testing.T) {
	sm90a := target.MustParse("sm_90a", "")
	for _, tc := range []struct {
		name, in string
		want     Value
	}{
		{"empty", `{}`, New(Load, M8N8, 1, false, U16, sm90a)},
		{"mode MT1616", `{"mode":"MT1616","num_matrices":2}`, New(Load, M16N16, 2, true, U8, sm90a)},
		{"shape m8n8 with transpose", `{"shape":"m8n8","transpose":true,"num_matrices":4,"size":"b16"}`,
			New(Load, M8N8, 4, true, B16, sm90a)},
		{"shape m16n8 is the reserved mode with .trans", `{"op":"stmatrix","shape":"m16n8","target":"sm_100a"}`,
			New(Store, M16N8, 1, true, B8, target.MustParse("sm_100a", ""))},
		{"reserved mode defaults to m16n8", `{"mode":"reserved"}`,
			with(New(Load, M16N8, 1, true, B8, sm90a), func(v *Value) { v.Transpose = false })},
		{"mode M832", `{"mode":"M832","num_matrices":4}`, New(Load, M8N32, 4, false, U2to4, sm90a)},
		{"mode M816 defaults to a packed size", `{"mode":"M816"}`, New(Load, M8N16, 1, false, B4P64, sm90a)},
		{"rank 0 zeroes dim0", `{"result_rank":0}`, with(New(Load, M8N8, 1, false, U16, sm90a), func(v *Value) { v.ResultRank, v.ResultDim0 = 0, 0 })},
		{"cosize follows register_count", `{"register_count":3}`,
			with(New(Load, M8N8, 1, false, U16, sm90a), func(v *Value) { v.RegisterCount, v.Cosize = 3, 3 })},
		{"explicit ptx", `{"target":"sm_100a","ptx":"8.8","shape":"m16n16"}`,
			New(Load, M16N16, 1, true, U8, target.MustParse("sm_100a", "8.8"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseJSON([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestParseJSONErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct{ in, field string }{
		{`{"bogus":1}`, "bogus"},
		{`{"op":"ldsm"}`, "op"},
		{`{"mode":"M99"}`, "mode"},
		{`{"shape":"m8n4"}`, "shape"},
		{`{"mode":"M88","shape":"m16n16"}`, "shape"},
		{`{"num_matrices":16}`, "num_matrices"},
		{`{"num_matrices":-1}`, "num_matrices"},
		{`{"transpose":1}`, "transpose"},
		{`{"size":"f16"}`, "size"},
		{`{"result_rank":4}`, "result_rank"},
		{`{"result_dim0":256}`, "result_dim0"},
		{`{"result_rank":0,"result_dim0":2}`, "result_dim0"},
		{`{"src_space":"tmem"}`, "src_space"},
		{`{"dst_space":"const"}`, "dst_space"},
		{`{"alignment":0}`, "alignment"},
		{`{"alignment":2048}`, "alignment"},
		{`{"alignment":24}`, "alignment"},
		{`{"register_count":32}`, "register_count"},
		{`{"cosize":99}`, "cosize"},
		{`{"target":"sm_42"}`, "target"},
		{`{"ptx":"1.0"}`, "ptx"},
	} {
		t.Run(tc.field+" "+tc.in, func(t *testing.T) {
			_, err := ParseJSON([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), `"`+tc.field+`"`) {
				t.Fatalf("error %v, want one naming %q", err, tc.field)
			}
		})
	}
}

func TestMarshalJSONWritesEveryField(t *testing.T) {
	js, err := json.Marshal(New(Store, M16N8, 2, true, B8, target.MustParse("sm_100a", "")))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"op":"stmatrix","mode":"reserved","shape":"m16n8","num_matrices":2,"transpose":true,"size":"b8",` +
		`"result_rank":1,"result_dim0":8,"src_space":"register","dst_space":"shared","alignment":16,` +
		`"register_count":2,"cosize":2,"target":"sm_100a","ptx":"8.6"}`
	if string(js) != want {
		t.Fatalf("got  %s\nwant %s", js, want)
	}
}

func TestClosedForms(t *testing.T) {
	for _, tc := range []struct {
		s           Shape
		num         int
		elems, regs int
	}{
		{M8N8, 1, 2, 1}, {M8N8, 4, 8, 4}, {M16N16, 1, 8, 2}, {M16N16, 2, 16, 4},
		{M8N16, 4, 16, 4}, {M16N8, 2, 8, 2}, {M8N32, 1, 8, 1},
	} {
		t.Run(tc.s.String()+"x"+strconv.Itoa(tc.num), func(t *testing.T) {
			if e, r := ElementsPerLane(tc.s, tc.num), RegistersPerLane(tc.s, tc.num); e != tc.elems || r != tc.regs {
				t.Fatalf("elements %d registers %d, want %d %d", e, r, tc.elems, tc.regs)
			}
		})
	}
}
