package ldsm

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// suite is ldsm's decoder checks: the value decoded from each prefix of a
// full encoding keeps the decoder's invariants (a mode's own shape, a power
// of two alignment, a valid target).
var suite = domaintest.Suite{Domain: Domain, SeedEnv: "LDSM_SEED", Seed: 0x1d5e, Stream: 3, N: 20000, MaxLen: 24,
	Full: New(Store, M16N8, 4, true, B8, target.MustParse("sm_100a", "")),
	Prefix: func(t testing.TB, n int, v domain.Value) {
		val := v.(Value)
		if s, ok := val.Mode.Shape(); ok && s != val.Shape {
			t.Fatalf("decode %d bytes: mode %s with shape %s", n, val.Mode, val.Shape)
		}
		if val.Align == 0 || val.Align&(val.Align-1) != 0 || !val.Tgt.Valid() {
			t.Fatalf("decode %d bytes: bad value %+v", n, val)
		}
	}}

func TestDomain(t *testing.T) { suite.Run(t) }

func TestParseJSONDefaults(t *testing.T) {
	sm90a := target.MustParse("sm_90a", "")
	domaintest.ParseJSON(t, Domain, []domaintest.Parsed{
		{Name: "empty", In: `{}`, Want: New(Load, M8N8, 1, false, U16, sm90a)},
		{Name: "mode MT1616", In: `{"mode":"MT1616","num_matrices":2}`, Want: New(Load, M16N16, 2, true, U8, sm90a)},
		{Name: "shape m8n8 with transpose", In: `{"shape":"m8n8","transpose":true,"num_matrices":4,"size":"b16"}`,
			Want: New(Load, M8N8, 4, true, B16, sm90a)},
		{Name: "shape m16n8 is the reserved mode with .trans", In: `{"op":"stmatrix","shape":"m16n8","target":"sm_100a"}`,
			Want: New(Store, M16N8, 1, true, B8, target.MustParse("sm_100a", ""))},
		{Name: "reserved mode defaults to m16n8", In: `{"mode":"reserved"}`,
			Want: with(New(Load, M16N8, 1, true, B8, sm90a), func(v *Value) { v.Transpose = false })},
		{Name: "mode M832", In: `{"mode":"M832","num_matrices":4}`, Want: New(Load, M8N32, 4, false, U2to4, sm90a)},
		{Name: "mode M816 defaults to a packed size", In: `{"mode":"M816"}`, Want: New(Load, M8N16, 1, false, B4P64, sm90a)},
		{Name: "rank 0 zeroes dim0", In: `{"result_rank":0}`, Want: with(New(Load, M8N8, 1, false, U16, sm90a), func(v *Value) { v.ResultRank, v.ResultDim0 = 0, 0 })},
		{Name: "cosize follows register_count", In: `{"register_count":3}`,
			Want: with(New(Load, M8N8, 1, false, U16, sm90a), func(v *Value) { v.RegisterCount, v.Cosize = 3, 3 })},
		{Name: "explicit ptx", In: `{"target":"sm_100a","ptx":"8.8","shape":"m16n16"}`,
			Want: New(Load, M16N16, 1, true, U8, target.MustParse("sm_100a", "8.8"))},
	})
}

func TestParseJSONErrorsNameTheField(t *testing.T) {
	domaintest.ParseJSONRefuses(t, Domain, []domaintest.Refused{
		{In: `{"bogus":1}`, Field: "bogus"},
		{In: `{"op":"ldsm"}`, Field: "op"},
		{In: `{"mode":"M99"}`, Field: "mode"},
		{In: `{"shape":"m8n4"}`, Field: "shape"},
		{In: `{"mode":"M88","shape":"m16n16"}`, Field: "shape"},
		{In: `{"num_matrices":16}`, Field: "num_matrices"},
		{In: `{"num_matrices":-1}`, Field: "num_matrices"},
		{In: `{"transpose":1}`, Field: "transpose"},
		{In: `{"size":"f16"}`, Field: "size"},
		{In: `{"result_rank":4}`, Field: "result_rank"},
		{In: `{"result_dim0":256}`, Field: "result_dim0"},
		{In: `{"result_rank":0,"result_dim0":2}`, Field: "result_dim0"},
		{In: `{"src_space":"tmem"}`, Field: "src_space"},
		{In: `{"dst_space":"const"}`, Field: "dst_space"},
		{In: `{"alignment":0}`, Field: "alignment"},
		{In: `{"alignment":2048}`, Field: "alignment"},
		{In: `{"alignment":24}`, Field: "alignment"},
		{In: `{"register_count":32}`, Field: "register_count"},
		{In: `{"cosize":99}`, Field: "cosize"},
		{In: `{"target":"sm_42"}`, Field: "target"},
		{In: `{"ptx":"1.0"}`, Field: "ptx"},
	})
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

func BenchmarkDecode(b *testing.B) { domaintest.BenchDecode(b, Domain, 16) }
