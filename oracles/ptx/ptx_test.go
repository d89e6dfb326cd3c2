package ptx

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/blockscale"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/matdesc"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/fuzz/tmamode"
	"github.com/legalfuzz/legalfuzz/fuzz/wgmma"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// render renders v of domain d or fails the test.
func render(t *testing.T, d string, v domain.Value) Entry {
	t.Helper()
	e, err := Render(domain.NewCase(d, v))
	if err != nil {
		t.Fatalf("Render(%v): %v", v, err)
	}
	return e
}

// instruction is the entry's line that starts with prefix, without its tab.
func instruction(t *testing.T, e Entry, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(e.Text, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, prefix) {
			return l
		}
	}
	t.Fatalf("no %q line in\n%s", prefix, e.Text)
	return ""
}

func TestEveryRenderedDomainIsRegistered(t *testing.T) {
	for _, name := range Domains() {
		if _, ok := fuzz.Lookup(name); !ok {
			t.Errorf("ptx renders %q, which fuzz.Domains does not list", name)
		}
	}
}

// TestSeedsRender renders every seed of every rendered domain: each either
// renders to a well-formed entry or has no spelling, never another error.
func TestSeedsRender(t *testing.T) {
	for _, name := range Domains() {
		d, _ := fuzz.Lookup(name)
		t.Run(name, func(t *testing.T) {
			for _, v := range d.Seeds() {
				c := domain.NewCase(name, v)
				e, err := Render(c)
				if _, ok := oracles.AsNoSpelling(err); ok {
					continue
				}
				if err != nil {
					t.Fatalf("%v: %v", v, err)
				}
				checkEntry(t, c, e)
			}
		})
	}
}

// checkEntry checks the entry's frame: its name, target, braces and ret.
func checkEntry(t *testing.T, c domain.Case, e Entry) {
	t.Helper()
	if e.Name != "case_"+c.ID || e.CaseID != c.ID || e.Target != c.Value.Target() {
		t.Fatalf("entry %s/%s/%v for case %s", e.Name, e.CaseID, e.Target, c.ID)
	}
	decls, entry, ok := strings.Cut(e.Text, ".visible .entry "+e.Name+"()\n")
	if !ok || !strings.HasSuffix(e.Text, "\tret;\n}\n") {
		t.Fatalf("malformed entry:\n%s", e.Text)
	}
	for _, l := range strings.Split(entry, "\n") {
		if l == "{" {
			break
		}
		if !strings.HasPrefix(l, ".") { // performance directives only
			t.Fatalf("malformed entry header %q:\n%s", l, e.Text)
		}
	}
	// Module-scope declarations name only the entry's own symbols.
	for _, l := range strings.Split(decls, "\n") {
		if strings.HasPrefix(l, ".") && !strings.Contains(l, " "+e.Name+"$") {
			t.Fatalf("module-scope line %q does not declare a symbol of %s", l, e.Name)
		}
	}
}

// TestRandomValuesRender decodes random bytes in every rendered domain: no
// panic, and no error but a NoSpelling of a declared reason.
func TestRandomValuesRender(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 2000
	if testing.Short() {
		n = 200
	}
	for _, name := range Domains() {
		d, _ := fuzz.Lookup(name)
		for range n {
			b := make([]byte, 48)
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			v, err := d.Decode(b)
			if err != nil {
				continue
			}
			_, err = Render(domain.NewCase(name, v))
			if ns, ok := oracles.AsNoSpelling(err); ok && !Reasons.Declared(ns.Reason) {
				t.Errorf("%s %v: reason %s=%s is not declared", name, v, ns.Field, ns.Class)
			} else if !ok && err != nil {
				t.Fatalf("%s %v: %v", name, v, err)
			}
		}
	}
}

func isNoSpelling(err error) bool {
	_, ok := oracles.AsNoSpelling(err)
	return ok
}

func TestRenderErrors(t *testing.T) {
	sm90a := target.MustParse("sm_90a", "")
	if _, err := Render(domain.NewCase("nosuch", kindword.Value{Tgt: sm90a})); err == nil || isNoSpelling(err) {
		t.Errorf("unknown domain: %v, want a plain error", err)
	}
	if _, err := Render(domain.Case{Domain: kindword.Name, Value: ldsm.Value{Tgt: sm90a}, ID: "00"}); err == nil || isNoSpelling(err) {
		t.Errorf("wrong value type: %v, want a plain error", err)
	}
}

// TestNoSpelling lists the values PTX cannot write at all.
func TestNoSpelling(t *testing.T) {
	sm100a, sm90a := target.MustParse("sm_100a", ""), target.MustParse("sm_90a", "")
	for _, tc := range []struct {
		name, domain string
		v            domain.Value
		reason       string
	}{
		{"reserved kind", kindword.Name, kindword.Value{Kind: kindword.Reserved6, CTAGroup: 1, Tgt: sm100a}, "reserved mma kind 6"},
		{"cta_group 0", kindword.Name, kindword.Value{Kind: kindword.F16, Tgt: sm100a}, "cta_group field value 0"},
		{"reserved scale", kindword.Name, kindword.Value{Kind: kindword.MXF4, CTAGroup: 1, ScaleVec: kindword.ScaleReserved3, Tgt: sm100a}, "scale_vector_size"},
		{"ldsm size", ldsm.Name, ldsm.New(ldsm.Load, ldsm.M8N8, 4, false, ldsm.SizeReserved, sm90a), "size 10"},
		{"tma mode", tmamode.Name, tmamode.Value{Mode: tmamode.ModeReserved, Rank: 2, Tgt: sm90a}, "mode 7"},
		{"mma rank", mma.Name, mma.Value{ShapeRank: 2, Tgt: sm90a}, "rank-2"},
		{"wgmma result", wgmma.Name, wgmma.Value{Rank: 2, M: 64, N: 8, K: 16, BK: 16, ResultType: wgmma.AccF16, DType: wgmma.AccF32, Tgt: sm90a}, "result type"},
		{"blockscale svs", blockscale.Name, blockscale.Value{K: 32, ScaleVecSize: 24, Tgt: sm100a}, "scale vector size 24"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Render(domain.NewCase(tc.domain, tc.v))
			if !isNoSpelling(err) || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("err %v, want a NoSpelling about %q", err, tc.reason)
			}
			if strings.Contains(err.Error(), "case") {
				t.Fatalf("reason %q names the case; verdicts must not depend on it", err)
			}
		})
	}
}

// TestSpellings pins instructions whose syntax no tool here can assemble
// (ptxas 12.4 has no tcgen05, no im2col::w, no block-scaled mma.sync): the
// expected lines are what llc-22 prints for the same operations.
func TestSpellings(t *testing.T) {
	sm100a, sm120a := target.MustParse("sm_100a", "8.8"), target.MustParse("sm_120a", "")
	for _, tc := range []struct {
		name, domain string
		v            domain.Value
		want         string
	}{
		{"tcgen05 block scale", kindword.Name,
			kindword.Value{Kind: kindword.MXF8F6F4, CTAGroup: 1, BlockScale: true, CollectorA: kindword.LastUse, Tgt: sm100a},
			"tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.collector::a::lastuse [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;"},
		{"tcgen05 ws sp tmem", kindword.Name,
			kindword.Value{Kind: kindword.I8, CTAGroup: 1, WS: true, Sparse: true, ATMem: true, Tgt: sm100a},
			"tcgen05.mma.ws.sp.cta_group::1.kind::i8 [%r1], [%r2], %rd2, [%r3], %r4, %p1;"},
		{"tcgen05 ashift scale_d", kindword.Name,
			kindword.Value{Kind: kindword.F16, CTAGroup: 2, AShift: true, ATMem: true, ScaleInputAcc: true, ScaleInputD: 3, Tgt: sm100a},
			"tcgen05.mma.cta_group::2.kind::f16.ashift [%r1], [%r2], %rd2, %r3, %p1, 3;"},
		{"tma im2col::w multicast", tmamode.Name,
			tmamode.Value{Mode: tmamode.Im2colW, Rank: 3, Multicast: true, CTAGroup: 2, WHalo: 5, WOffset: 1, Tgt: sm100a},
			"cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes.multicast::cluster.cta_group::2 [%r4], [%rd1, {%r1, %r2, %r3}], [%r5], {%h1, %h2}, %h3;"},
		{"tma prefetch", tmamode.Name,
			tmamode.Value{Direction: tmamode.Prefetch, Dst: tmamode.L2, Mode: tmamode.Im2colW, Rank: 3, Tgt: sm100a},
			"cp.async.bulk.prefetch.tensor.3d.L2.global.im2col::w [%rd1, {%r1, %r2, %r3}], {%h1, %h2};"},
		{"block-scaled mma.sync", blockscale.Name,
			blockscale.Value{K: 32, AType: blockscale.E4M3, BType: blockscale.E4M3, ScaleVecSize: 32, Kind: blockscale.MXF8F6F4, Tgt: sm120a},
			"mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8}, %r7, {%h1, %h2}, %r8, {%h3, %h4};"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := render(t, tc.domain, tc.v)
			prefix := tc.want[:strings.IndexByte(tc.want, ' ')]
			if got := instruction(t, e, prefix); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestMatDescConstant checks that the descriptor is the value's word and
// that a non-uniform one varies with the thread index.
func TestMatDescConstant(t *testing.T) {
	v := matdesc.FromRaw(matdesc.WGMMA, 0x4000004000010040, true, target.MustParse("sm_90a", ""))
	e := render(t, matdesc.Name, v)
	if got := instruction(t, e, "mov.b64"); got != "mov.b64 %rd1, 0x4000004000010040;" {
		t.Fatalf("descriptor line %q", got)
	}
	if strings.Contains(e.Text, "%tid.x") {
		t.Fatal("a uniform descriptor reads the thread index")
	}
	v.Uniform = false
	if e := render(t, matdesc.Name, v); !strings.Contains(e.Text, "xor.b64 %rd1, %rd1, %rd2;") {
		t.Fatalf("a non-uniform descriptor does not vary:\n%s", e.Text)
	}
}

// TestModuleLineTable checks that every line of every entry maps back to
// it, and header and blank lines to none.
func TestModuleLineTable(t *testing.T) {
	tgt := target.MustParse("sm_90a", "")
	var entries []Entry
	for i := range 5 {
		v := ldsm.New(ldsm.Load, ldsm.M8N8, 1<<(i%3), i%2 == 0, ldsm.B16, tgt)
		v.RegisterCount = uint8(i + 1)
		entries = append(entries, render(t, ldsm.Name, v))
	}
	text, table, err := Module(entries)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(text, ".version 8.0\n.target sm_90a\n.address_size 64\n") || table.HeaderLast != 3 {
		t.Fatalf("header %q, HeaderLast %d", text[:60], table.HeaderLast)
	}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		n := i + 1
		e, ok := table.Entry(n)
		switch {
		case n <= table.HeaderLast || strings.TrimSpace(line) == "":
			if ok {
				t.Errorf("line %d %q maps to entry %d", n, line, e)
			}
		case !ok:
			t.Errorf("line %d %q maps to no entry", n, line)
		case !strings.Contains(entries[e].Text, line):
			t.Errorf("line %d %q maps to entry %d, which does not hold it", n, line, e)
		}
	}
}

func TestModuleRefusesMixedTargets(t *testing.T) {
	a := render(t, ldsm.Name, ldsm.New(ldsm.Load, ldsm.M8N8, 1, false, ldsm.B16, target.MustParse("sm_90a", "")))
	b := render(t, ldsm.Name, ldsm.New(ldsm.Load, ldsm.M8N8, 1, false, ldsm.B16, target.MustParse("sm_80", "")))
	if _, _, err := Module([]Entry{a, b}); err == nil {
		t.Fatal("a module with two targets was assembled")
	}
	if _, _, err := Module(nil); err == nil {
		t.Fatal("an empty module was assembled")
	}
}
