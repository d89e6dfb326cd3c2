package tmamode

import (
	"reflect"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

func TestSeedsRoundTrip(t *testing.T) { domaintest.SeedsRoundTrip(t, Domain, nil) }

func TestRandomBytesRoundTrip(t *testing.T) {
	seed := domaintest.Seed(t, "TMAMODE_SEED", 0x7a3a)
	domaintest.RandomBytes(t, Domain, domaintest.Random{Seed: seed, Stream: 2, N: 20000, MaxLen: 24})
}

func TestDecodeShortInputs(t *testing.T) {
	full := Value{Direction: Store, Mode: Scatter4, Rank: 2, Dst: Global, BoxDim1: 1,
		Tgt: target.MustParse("sm_100a", "")}.Encode()
	domaintest.ShortInputs(t, Domain, full, nil)
}

func TestJSONDefaults(t *testing.T) {
	sm90a := target.MustParse("sm_90a", "")
	for _, tc := range []struct {
		name string
		in   string
		want Value
	}{
		{"empty", `{}`, Value{Direction: Load, Mode: Tile, Rank: 2, Dst: SharedCluster, BoxDim1: 1, Tgt: sm90a}},
		{"store", `{"direction":"store","mode":"tile::scatter4","target":"sm_100a"}`,
			Value{Direction: Store, Mode: Scatter4, Rank: 2, Dst: Global, BoxDim1: 1, Tgt: target.MustParse("sm_100a", "")}},
		{"prefetch", `{"direction":"prefetch","rank":4,"mode":"im2col"}`,
			Value{Direction: Prefetch, Mode: Im2col, Rank: 4, Dst: L2, BoxDim1: 1, Tgt: sm90a}},
		{"explicit", `{"dst":"shared::cta","cta_group":2,"multicast":true,"w_halo":3,"w_offset":4,"interleave":"32B","box_dim1":7,"ptx":"8.6"}`,
			Value{Direction: Load, Mode: Tile, Rank: 2, Dst: SharedCTA, CTAGroup: 2, Multicast: true, WHalo: 3,
				WOffset: 4, Interleave: 2, BoxDim1: 7, Tgt: target.MustParse("sm_90a", "8.6")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseJSON([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestJSONStrict(t *testing.T) {
	for _, tc := range []struct {
		in, field string
	}{
		{`{"bogus":1}`, "bogus"},
		{`{"direction":"reduce"}`, "direction"},
		{`{"mode":"tile::gather8"}`, "mode"},
		{`{"rank":8}`, "rank"},
		{`{"rank":-1}`, "rank"},
		{`{"dst":"shared"}`, "dst"},
		{`{"cta_group":3}`, "cta_group"},
		{`{"multicast":1}`, "multicast"},
		{`{"box_dim1":-1}`, "box_dim1"},
		{`{"interleave":"64B"}`, "interleave"},
		{`{"w_halo":65536}`, "w_halo"},
		{`{"w_offset":-1}`, "w_offset"},
		{`{"target":"sm_99"}`, "target"},
		{`{"ptx":"9"}`, "ptx"},
	} {
		t.Run(tc.field, func(t *testing.T) {
			_, err := ParseJSON([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), `"`+tc.field+`"`) {
				t.Fatalf("error %v, want one naming %q", err, tc.field)
			}
		})
	}
}
