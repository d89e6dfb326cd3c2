package ptx

import (
	"regexp"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	sc "github.com/legalfuzz/legalfuzz/fuzz/schedule"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// everyOp is a schedule on sm_100a holding every op code, calls of every
// kind, ring refs, conditions and both kinds of buffers.
func everyOp(t *testing.T) sc.Value {
	t.Helper()
	b := sc.NewBuilder(target.MustParse("sm_100a", ""))
	ring := b.Ring(2)
	x := sc.Fixed(b.Buffer(sc.Smem))
	b.Buffer(sc.Smem)
	d := sc.Fixed(b.Buffer(sc.Tmem))
	slot := sc.InRing(0, ring)
	bar := sc.InRing(b.Barrier(1), ring)
	b.Barrier(1)
	u := sc.Fixed(b.UninitBarrier())
	tm := b.TensorMap()
	b.Role(sc.RoleLoad).Init(u, 1).Loop(2).Wait(bar, 1).ArriveTx(bar, sc.TMABytes).ExpectTx(bar, 16).
		TMALoad(slot, bar, tm, sc.TMABytes).Advance(ring).EndLoop().
		TmapReplace(tm).TmapRelease().TmapAcquire(tm).ArriveN(u, 1, true).Inval(u)
	b.Role(sc.RoleMMA).Loop(2).If(sc.CondFirst).MMA(slot, slot, d).Else().Commit(bar).EndIf().
		If(sc.CondAny).Call(slot, true, sc.EffectAsync).EndIf().If(sc.CondOdd).Call(slot, false, sc.EffectGeneric).EndIf().EndLoop().
		Call(x, false, sc.EffectNone).Call(x, false, sc.EffectAsync).TmemLd(d)
	b.Role(sc.RoleCompute).St(x).Ld(x).Ldmatrix(x).Stmatrix(x).CpAsync(x).CpAsyncCommit().CpAsyncWait(0).
		Fence(sc.SpaceSharedCTA).WgmmaFence().Wgmma(x, slot).WgmmaCommit().WgmmaWait(1).
		TMAStore(x, tm, sc.InRing(3, ring)).BulkCommit().BulkWait(0, true).BarSync(1, 2).Op(sc.Op{Code: sc.Nop})
	b.Role(sc.RoleEpilogue).BarSync(1, 2).Arrive(bar)
	v, err := b.Value()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestScheduleEveryOp: every op code renders to its instruction.
func TestScheduleEveryOp(t *testing.T) {
	v := everyOp(t)
	c := domain.NewCase(sc.Name, v)
	e := render(t, sc.Name, v)
	checkEntry(t, c, e)
	want := map[sc.Code]string{
		sc.LdShared: "ld.shared.b32 ", sc.StShared: "st.shared.b32 ",
		sc.Ldmatrix: "ldmatrix.sync.aligned.m8n8.x1.shared.b16 ", sc.Stmatrix: "stmatrix.sync.aligned.m8n8.x1.shared.b16 ",
		sc.CpAsync: "cp.async.cg.shared.global ", sc.CpAsyncCommit: "cp.async.commit_group;", sc.CpAsyncWait: "cp.async.wait_group 0;",
		sc.TMALoad:    "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes ",
		sc.TMAStore:   "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group ",
		sc.BulkCommit: "cp.async.bulk.commit_group;", sc.BulkWait: "cp.async.bulk.wait_group.read 0;",
		sc.WgmmaFence: "wgmma.fence.sync.aligned;", sc.Wgmma: "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd",
		sc.WgmmaCommit: "wgmma.commit_group.sync.aligned;", sc.WgmmaWait: "wgmma.wait_group.sync.aligned 1;",
		sc.Tcgen05MMA:            "tcgen05.mma.cta_group::1.kind::f16 [%r",
		sc.Tcgen05Commit:         "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r",
		sc.Tcgen05Ld:             "tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r",
		sc.MbarInit:              "mbarrier.init.shared.b64 [%r",
		sc.MbarArrive:            "mbarrier.arrive.noComplete.shared.b64 %rd",
		sc.MbarArriveExpectTx:    "mbarrier.arrive.expect_tx.shared.b64 %rd",
		sc.MbarExpectTx:          "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r",
		sc.MbarTryWait:           "mbarrier.try_wait.parity.shared.b64 %p",
		sc.MbarInval:             "mbarrier.inval.shared.b64 [%r",
		sc.FenceProxyAsync:       "fence.proxy.async.shared::cta;",
		sc.FenceTensormapRelease: "fence.proxy.tensormap::generic.release.cta;",
		sc.FenceTensormapAcquire: "fence.proxy.tensormap::generic.acquire.cta [%rd2], 128;",
		sc.TensormapReplace:      "tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd3;",
		sc.BarSync:               "bar.sync 1, 256;", // the compute and epilogue warpgroups
		sc.Call:                  "call.uni " + e.Name + "$call0, (" + e.Name + "$call0_arg);",
		sc.Loop:                  "setp.lt.u32 %p",
		sc.If:                    "bra $L",
		sc.RingAdvance:           "add.u32 %r",
	}
	for code, s := range want {
		if !strings.Contains(e.Text, s) {
			t.Errorf("%s: no %q in\n%s", code, s, e.Text)
		}
	}
	for _, s := range []string{
		// tensor memory: allocated by warp 0, freed at the end (llc-22's spellings)
		"tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [" + e.Name + "$taddr], 32;",
		"tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",
		"tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r",
		"tcgen05.wait::ld.sync.aligned;",
		// the prologue
		"fence.mbarrier_init.release.cluster;", "bar.sync 0, 384;", ".reqntid 384, 1, 1",
		// calls: pointer, slot index, by name; effects
		".func " + e.Name + "$call0(.param .b32 " + e.Name + "$call0_p)",
		".func " + e.Name + "$call1(.param .b32 " + e.Name + "$call1_slot)",
		".func " + e.Name + "$call2()", "call.uni " + e.Name + "$call2;",
		"cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], 16;",
		"st.shared.b32 [%r2], %r",
		// the host's word for "any"
		".global .align 4 .u32 " + e.Name + "$any;",
	} {
		if !strings.Contains(e.Text, s) {
			t.Errorf("no %q in\n%s", s, e.Text)
		}
	}
	// Leader-only ops are predicated on the role's first thread.
	for _, s := range []string{"mbarrier.init", "mbarrier.arrive", "mbarrier.inval", "cp.async.bulk.tensor", "tcgen05.mma", "tcgen05.commit", "tensormap.replace"} {
		if !regexp.MustCompile(`(?m)^\t@%p\d+ ` + regexp.QuoteMeta(s)).MatchString(e.Text) {
			t.Errorf("%s is not issued by one thread", s)
		}
	}
}

// TestScheduleLayout: roles are branches on the warp index, warpgroups
// start at a multiple of four warps, bar.sync counts its roles' threads.
func TestScheduleLayout(t *testing.T) {
	v := sc.Pipeline(sc.DefaultPipeline) // load warp, compute warpgroup
	e := render(t, sc.Name, v)
	for _, s := range []string{".reqntid 256, 1, 1", "sub.u32 %r12, %r2, 0;", "setp.ge.u32 %p3, %r12, 1;",
		"sub.u32 %r26, %r2, 4;", "setp.ge.u32 %p11, %r26, 4;", "setp.eq.u32 %p12, %r1, 128;"} {
		if !strings.Contains(e.Text, s) {
			t.Errorf("no %q in\n%s", s, e.Text)
		}
	}
	b := sc.NewBuilder(target.MustParse("sm_90a", ""))
	x := sc.Fixed(b.Buffer(sc.Smem))
	b.Role(sc.RoleWarp).St(x).BarSync(1, 2)
	b.Role(sc.RoleCompute).BarSync(1, 2).Ld(x).BarSync(2, 0).BarSync(3, 4)
	e = render(t, sc.Name, b.MustValue())
	for _, s := range []string{"bar.sync 1, 160;", "bar.sync 2, 160;", "bar.sync 3, 224;", ".reqntid 256, 1, 1"} {
		if !strings.Contains(e.Text, s) {
			t.Errorf("no %q in\n%s", s, e.Text)
		}
	}
}

// TestScheduleModule: schedule entries with module-scope objects share a
// module without clashes, and their declarations map back to them.
func TestScheduleModule(t *testing.T) {
	v := everyOp(t)
	w := v
	w.Roles[0].Ops[0].N = 2 // another case
	entries := []Entry{render(t, sc.Name, v), render(t, sc.Name, w)}
	text, table, err := Module(entries)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	decl := regexp.MustCompile(`^(?:\.shared|\.global|\.func|\.visible \.entry)\b.*?\s(case_\w+(?:\$\w+)?)[\[;(]`)
	for i, line := range strings.Split(text, "\n") {
		m := decl.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if seen[m[1]] {
			t.Errorf("%s declared twice", m[1])
		}
		seen[m[1]] = true
		e, ok := table.Entry(i + 1)
		if !ok || !strings.HasPrefix(m[1], entries[e].Name) {
			t.Errorf("line %d %q maps to entry %d (%v)", i+1, line, e, ok)
		}
	}
	if len(seen) < 20 {
		t.Fatalf("%d symbols declared:\n%s", len(seen), text)
	}
}

// TestScheduleNoLoopConditions: conditions outside loops test iteration 0
// of 1.
func TestScheduleNoLoopConditions(t *testing.T) {
	b := sc.NewBuilder(target.MustParse("sm_90a", ""))
	x := sc.Fixed(b.Buffer(sc.Smem))
	b.Role(sc.RoleWarp).If(sc.CondLast).St(x).EndIf().If(sc.CondEven).Ld(x).Else().St(x).EndIf()
	e := render(t, sc.Name, b.MustValue())
	for _, s := range []string{"setp.eq.u32 %p4, 0, 0;", "mov.u32 %r9, 0;", "setp.eq.u32 %p5, %r9, 0;"} {
		if !strings.Contains(e.Text, s) {
			t.Errorf("no %q in\n%s", s, e.Text)
		}
	}
}
