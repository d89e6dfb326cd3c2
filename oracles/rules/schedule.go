package rules

import (
	"fmt"

	sc "github.com/legalfuzz/legalfuzz/fuzz/schedule"
)

// The seed rule set for schedules: what seeds 000, 002 and 003 claim, as
// static checks over each role's program. Seed 002's fence rule is the
// InjectFenceProxy analysis read as a verifier (a fence is needed exactly on
// a possible generic->async transition in one thread's program order);
// seed 002 also normalizes every TMA store to be followed by its
// arrive/wait handshake; seed 003 pairs every producer/consumer edge with
// full/empty mbarriers; seed 000 says expect-tx and complete-tx bytes must
// match. None of the seeds gives diagnostics, so the messages are ours.

const (
	schedSeed002 = "seed 002, InjectFenceProxy: What the Pass Does"
	schedSeed003 = "seed 003, Key Design Changes 4 (MBarrier Management) and Key Synchronization Points"
	schedSeed000 = "seed 000, Claim Verification Matrix (expect-tx / complete-tx)"
)

func scheduleSeedRule(name, msg, source, doubt string) *Rule {
	return seedRule(sc.Name, name, msg, source, doubt)
}

var scheduleSeed = &Ladder[sc.Value]{Set: Seed, Domain: sc.Name,
	Checks: []Check[sc.Value]{
		{Rule: scheduleSeedRule("002-fence-proxy-async", "fence.proxy.async missing between generic-proxy traffic and an async-proxy op", schedSeed002,
			"seed 002 tracks proxies per thread in program order: a generic write by another role, ld.shared, tcgen05.mma, "+
				"tensor-map updates and opaque calls without shared-memory pointers are invisible to it, and it asks for a fence "+
				"whatever buffers the two ops touch"),
			Fires:  func(v sc.Value) bool { return schedSeedFenceMissing(v) != "" },
			Detail: func(v sc.Value) string { return ": " + schedSeedFenceMissing(v) }},
		{Rule: scheduleSeedRule("002-tma-store-handshake", "TMA store not immediately followed by tma_store_arrive and tma_store_wait", schedSeed002+" (tma_store normalization)",
			"PTX needs cp.async.bulk.wait_group.read only before the store's source is rewritten; waiting later is legal"),
			Fires:  func(v sc.Value) bool { return schedSeedStoreHandshake(v) != "" },
			Detail: func(v sc.Value) string { return ": " + schedSeedStoreHandshake(v) }},
		{Rule: scheduleSeedRule("003-full-empty-pair", "circular-buffer edge without a full/empty mbarrier pair", schedSeed003,
			"a full/empty pair per edge is neither sufficient (parity, arrival counts and tx bytes matter) nor needed for a slot filled once; "+
				"seed 003's own Blackwell diagram has the MMA warp never wait on the result slot's empty mbarrier"),
			Fires:  func(v sc.Value) bool { return schedSeedMissingPair(v) != "" },
			Detail: func(v sc.Value) string { return ": " + schedSeedMissingPair(v) }},
		{Rule: scheduleSeedRule("000-tx-balance", "expect-tx bytes do not match the complete-tx bytes of the role's TMA loads", schedSeed000,
			"the balance is per phase, not per role: bytes may be expected by one role and delivered by another's loads, and a negative tx-count in between is legal"),
			Fires:  func(v sc.Value) bool { return schedSeedTxImbalance(v) != "" },
			Detail: func(v sc.Value) string { return ": " + schedSeedTxImbalance(v) }},
	},
}

// Seed 002's proxy states, as a may-set.
const (
	schedPNone    = 1 << 0
	schedPGeneric = 1 << 1
	schedPAsync   = 1 << 2
)

// Seed002Class is how seed 002's pass classifies an op: "async" (TMA
// load/store, wgmma: fenced when the state may be generic), "generic"
// (st.shared, ldmatrix, stmatrix, cp.async, calls with a shared-memory
// pointer), "fence", or "" (no proxy effect, which covers every unknown op).
func Seed002Class(o sc.Op) string {
	switch o.Code {
	case sc.TMALoad, sc.TMAStore, sc.Wgmma:
		return "async"
	case sc.StShared, sc.Ldmatrix, sc.Stmatrix, sc.CpAsync:
		return "generic"
	case sc.Call:
		if o.SmemArg() {
			return "generic"
		}
	case sc.FenceProxyAsync:
		return "fence"
	}
	return ""
}

// seedFenceMissing runs seed 002's analysis over each role and names the
// first async op reachable with a possibly-generic proxy state.
func schedSeedFenceMissing(v sc.Value) string {
	for r, role := range v.RoleList() {
		ops := role.Program()
		var found string
		schedSeedProxyWalk(ops, 0, len(ops), schedPNone, func(pc int, ps uint8) {
			if found == "" && Seed002Class(ops[pc]) == "async" && ps&schedPGeneric != 0 {
				found = fmt.Sprintf("role %d op %d %s may follow generic-proxy traffic", r, pc, ops[pc].Code)
			}
		})
		if found != "" {
			return found
		}
	}
	return ""
}

// seedProxyWalk propagates the may-state through ops[lo:hi] (structured:
// branches merge, loops iterate to a fixpoint) and reports the state before
// each op; it returns the state after.
func schedSeedProxyWalk(ops []sc.Op, lo, hi int, in uint8, visit func(pc int, state uint8)) uint8 {
	st := in
	for pc := lo; pc < hi; pc++ {
		o := ops[pc]
		visit(pc, st)
		switch o.Code {
		case sc.Loop:
			end := sc.BlockEnd(ops, pc)
			entry := st
			for {
				out := schedSeedProxyWalk(ops, pc+1, end, entry, func(int, uint8) {})
				if entry|out == entry {
					break
				}
				entry |= out
			}
			st = schedSeedProxyWalk(ops, pc+1, end, entry, visit) // loops run at least once
			pc = end
		case sc.If:
			els, end := sc.IfParts(ops, pc)
			thenOut := schedSeedProxyWalk(ops, pc+1, els, st, visit)
			elseOut := st
			if els != end {
				elseOut = schedSeedProxyWalk(ops, els+1, end, st, visit)
			}
			st = thenOut | elseOut
			pc = end
		default:
			switch Seed002Class(o) {
			case "async":
				st = schedPAsync
			case "generic":
				st = schedPGeneric
			case "fence":
				st = schedPNone
			}
		}
	}
	return st
}

// seedStoreHandshake names the first TMA store not followed by
// cp.async.bulk.commit_group and cp.async.bulk.wait_group.read 0.
func schedSeedStoreHandshake(v sc.Value) string {
	for r, role := range v.RoleList() {
		ops := role.Program()
		for pc, o := range ops {
			if o.Code != sc.TMAStore {
				continue
			}
			if pc+2 >= len(ops) || ops[pc+1].Code != sc.BulkCommit ||
				ops[pc+2].Code != sc.BulkWait || ops[pc+2].N != 0 || !ops[pc+2].Read() {
				return fmt.Sprintf("role %d op %d", r, pc)
			}
		}
	}
	return ""
}

// refSet is the set of objects a ref may name, as a bit mask.
func schedRefSet(v *sc.Value, ref sc.Ref) uint16 {
	n := 1
	if ref.Ring != 0 {
		n = int(v.Rings[ref.Ring-1])
	}
	return (uint16(1)<<n - 1) << ref.Base
}

// roleUse summarizes one role for seed 003's pairing: buffers it writes and
// reads, mbarriers it signals (arrive, expect-tx arrive, TMA complete-tx,
// tcgen05.commit) and waits on.
type schedRoleUse struct {
	writes, reads, signals, waits uint16
}

func schedSummarize(v *sc.Value, role sc.Role) schedRoleUse {
	var u schedRoleUse
	for _, o := range role.Program() {
		switch o.Code {
		case sc.StShared, sc.Stmatrix, sc.CpAsync:
			u.writes |= schedRefSet(v, o.A)
		case sc.TMALoad:
			u.writes |= schedRefSet(v, o.A)
			u.signals |= schedRefSet(v, o.Bar)
		case sc.Tcgen05MMA:
			u.reads |= schedRefSet(v, o.A) | schedRefSet(v, o.B)
			u.writes |= schedRefSet(v, o.C)
		case sc.LdShared, sc.Ldmatrix, sc.Tcgen05Ld, sc.TMAStore:
			u.reads |= schedRefSet(v, o.A)
		case sc.Wgmma:
			u.reads |= schedRefSet(v, o.A) | schedRefSet(v, o.B)
		case sc.MbarArrive, sc.MbarArriveExpectTx, sc.Tcgen05Commit:
			u.signals |= schedRefSet(v, o.Bar)
		case sc.MbarTryWait:
			u.waits |= schedRefSet(v, o.Bar)
		}
	}
	return u
}

// seedMissingPair names the first producer -> consumer edge (a role writing
// buffers another role reads) without a full mbarrier (signalled by the
// producer, waited on by the consumer) and an empty one (signalled by the
// consumer, waited on by the producer).
func schedSeedMissingPair(v sc.Value) string {
	uses := make([]schedRoleUse, v.NRoles)
	for i, role := range v.RoleList() {
		uses[i] = schedSummarize(&v, role)
	}
	for p, up := range uses {
		for c, uc := range uses {
			if p == c || up.writes&uc.reads == 0 {
				continue
			}
			full := up.signals & uc.waits
			empty := uc.signals & up.waits &^ full
			switch {
			case full == 0:
				return fmt.Sprintf("role %d -> role %d: no full mbarrier", p, c)
			case empty == 0:
				return fmt.Sprintf("role %d -> role %d: no empty mbarrier", p, c)
			}
		}
	}
	return ""
}

// seedTxImbalance names the first role and mbarrier ref whose expect-tx
// bytes differ from the complete-tx bytes of the role's own TMA loads on
// it, each op counted once.
func schedSeedTxImbalance(v sc.Value) string {
	for r, role := range v.RoleList() {
		bal := map[sc.Ref]int64{}
		var order []sc.Ref
		add := func(ref sc.Ref, n int64) {
			if _, ok := bal[ref]; !ok {
				order = append(order, ref)
			}
			bal[ref] += n
		}
		for _, o := range role.Program() {
			switch o.Code {
			case sc.MbarArriveExpectTx, sc.MbarExpectTx:
				add(o.Bar, int64(o.N))
			case sc.TMALoad:
				add(o.Bar, -int64(o.N))
			}
		}
		for _, ref := range order {
			if bal[ref] != 0 {
				return fmt.Sprintf("role %d, mbarrier %s: expect-tx minus complete-tx is %d bytes", r, sc.RefString(ref), bal[ref])
			}
		}
	}
	return ""
}
