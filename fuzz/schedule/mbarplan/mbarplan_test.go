package mbarplan

import (
	"errors"
	"testing"

	sc "github.com/legalfuzz/legalfuzz/fuzz/schedule"
	"github.com/legalfuzz/legalfuzz/fuzz/schedule/model"
)

func plan(t *testing.T, d sc.DAG) sc.Value {
	t.Helper()
	v, err := Plan(d)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestHopperSingleConsumer: the seed's Hopper plan is right (init arrivals
// by the consumer, parity (use/stages)&1 everywhere).
func TestHopperSingleConsumer(t *testing.T) {
	for _, d := range []sc.DAG{sc.HopperDAG(2, 2, 2, false), sc.HopperDAG(1, 3, 1, true), sc.HopperDAG(3, 1, 3, false)} {
		if r := model.Check(plan(t, d)); r.Verdict() != "ok" {
			t.Errorf("%v: %s %+v", d, r.Verdict(), r.Findings)
		}
	}
}

// TestSharedConsumers: one mbarrier pair per edge, while the TMA load
// completes on one full mbarrier only: the second consumer's full
// mbarrier waits for bytes that never come.
func TestSharedConsumers(t *testing.T) {
	d := sc.HopperDAG(2, 1, 2, false)
	d.NRoles, d.Roles[2] = 3, sc.RoleCompute
	d.Chains[0].Consumers = 1<<1 | 1<<2
	v := plan(t, d)
	if v.NBarriers != 8 {
		t.Fatalf("%d mbarriers, want 2 edges x 2 slots x (full, empty) = 8", v.NBarriers)
	}
	r := model.Check(v)
	if r.Verdict() != "deadlock" {
		t.Fatalf("verdict %s, want deadlock: %+v", r.Verdict(), r.Findings)
	}
	if ref, err := sc.Generate(d); err != nil || model.Check(ref).Verdict() != "ok" {
		t.Fatalf("the reference plan of the same DAG should be ok: %v", err)
	}
}

// TestBlackwellResultSlot: the MMA warp never waits on the result slot's
// empty mbarrier, so the epilogue's releases arrive in phases nobody
// observed, and with more tiles than result slots the MMA overwrites an
// accumulator the epilogue may still read.
func TestBlackwellResultSlot(t *testing.T) {
	r := model.Check(plan(t, sc.BlackwellDAG(1, 2, 1, false)))
	if r.Find("ub.phase-unobserved") == nil || r.Find("race") == nil {
		t.Fatalf("findings %+v, want ub.phase-unobserved and race", r.Findings)
	}
	// With one tile nothing is reused: no race, but the epilogue's release
	// still arrives in a phase that only its own initial arrival completed.
	one := model.Check(plan(t, sc.BlackwellDAG(2, 1, 1, false)))
	if one.Find("race") != nil || one.Verdict() != "ub.phase-unobserved" {
		t.Fatalf("one tile: %s %+v", one.Verdict(), one.Findings)
	}
}

// TestSeed003Example plans the seed's own Blackwell example.
func TestSeed003Example(t *testing.T) {
	v := plan(t, sc.Seed003DAG(1, 2))
	if v.NRoles != 4 || v.NBarriers != 12 {
		t.Fatalf("%d roles, %d mbarriers; want 4 and 3 chains x 2 slots x 2", v.NRoles, v.NBarriers)
	}
	// The epilogue arrives once on every empty mbarrier before its loop.
	ep := v.Roles[3].Program()
	for i := range 6 {
		if ep[i].Code != sc.MbarArrive {
			t.Fatalf("epilogue op %d is %s, want the initial arrivals", i, ep[i].Code)
		}
	}
	if r := model.Check(v); r.Verdict() != "ub.phase-unobserved" {
		t.Fatalf("seed 003 example, one tile: %s, want ub.phase-unobserved", r.Verdict())
	}
}

func TestCapacity(t *testing.T) {
	d := sc.BlackwellDAG(3, 1, 1, false)
	d.NRoles, d.Roles[3] = 4, sc.RoleEpilogue
	d.Chains[1].Consumers = 1<<2 | 1<<3
	if _, err := Plan(d); !errors.Is(err, ErrCapacity) {
		t.Fatalf("err %v, want ErrCapacity (3 + 2x3 edge slots need 18 mbarriers)", err)
	}
}
