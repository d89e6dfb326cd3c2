package model

import (
	sc "github.com/legalfuzz/legalfuzz/fuzz/schedule"
)

// The schedule model's state. Happens-before is tracked per memory record
// as knowledge: which roles are ordered after the access (seen), which
// mbarriers' current phase carries it to their next waiter (acc), and which
// mbarriers' last completed phase does (done). A release (arrive) by role r
// adds the mbarrier to acc of every record r has seen; a phase completion
// moves acc to done; a successful wait by r adds r to seen of every record
// in done; bar.sync joins the knowledge of its participants. A write record
// carries a second knowledge, fenced, of the roles ordered after the write
// and a fence.proxy.async that followed it: an async-proxy access after a
// generic write needs the accessor in fenced, not only in seen.

// know is one record's knowledge: roles (seen) and mbarriers (acc, done).
type schedKnow struct {
	seen uint8
	// tc: roles whose tcgen05 ops made the access (completed tcgen05.mma):
	// the role's later tcgen05.commit tracks it, and its later tcgen05.mma
	// are ordered after it.
	tc        uint8
	acc, done uint16
	// commits: in-flight tcgen05.commit slots whose issuer was ordered after
	// the record when it committed; the commit's arrival releases it.
	commits uint16
}

func (k *schedKnow) and(o schedKnow) {
	k.seen &= o.seen
	k.tc &= o.tc
	k.acc &= o.acc
	k.done &= o.done
	k.commits &= o.commits
}

// roleSt is one role's control state and private async bookkeeping.
type schedRoleSt struct {
	pc       uint8
	inBar    bool // arrived at a bar.sync, waiting for the others
	wgFenced bool // has executed wgmma.fence
	_        uint8
	cnt      [sc.MaxLoopDepth]uint8
	_        [2]uint8
	ring     [sc.MaxRings]uint16
	// Group counters: commits so far. An op issued now belongs to group
	// seq (the open one); wait_group N completes groups below seq-N.
	cpSeq, bulkSeq, wgSeq, tcSeq uint16
}

// barSt is one mbarrier. ph counts completed phases; observed says whether
// a successful wait has observed the last completed one.
type schedBarSt struct {
	init, observed bool
	ph             uint16
	count, pending uint32
	tx             int32
}

// In-flight async operations.
const (
	schedFlFree uint8 = iota
	schedFlTMALoad
	schedFlTMAStore
	schedFlWgmma
	schedFlMMA
	schedFlCpAsync
	schedFlCommit
)

const schedMaxFlight = 12

// flight is one async operation in flight: its buffers (-1 none) are being
// accessed until it completes.
type schedFlight struct {
	kind     uint8
	role     uint8
	a, b, c  int8
	bar      int8
	tmap     uint8
	tile     uint8
	readDone bool // a TMA store's shared-memory read has completed (wait_group.read)
	_        uint8
	group    uint16
	bytes    uint32
}

// reads/writes report whether f accesses buffer x that way now.
func (f *schedFlight) reads(x int8) bool {
	switch f.kind {
	case schedFlTMAStore:
		return f.a == x && !f.readDone
	case schedFlWgmma, schedFlMMA:
		return f.a == x || f.b == x
	}
	return false
}

func (f *schedFlight) writes(x int8) bool {
	switch f.kind {
	case schedFlTMALoad, schedFlCpAsync:
		return f.a == x
	case schedFlMMA:
		return f.c == x
	}
	return false
}

// bufSt is one buffer's last write and the reads since, per reading role
// (an async read counts for the role that issued it). Merging the reads of
// one role is exact (they are ordered); merging different roles' reads
// would lose the knowledge one of them released.
type schedBufSt struct {
	w, wf          schedKnow
	r              [sc.MaxRoles]schedKnow
	wValid, wAsync bool
	rValid         uint8 // mask of roles with a read record
	_              uint8
}

// readsOrdered reports whether role bit rb is ordered after every read.
func schedReadsOrdered(r *[sc.MaxRoles]schedKnow, valid, rb uint8) bool {
	for q := range r {
		if valid&(1<<q) != 0 && r[q].seen&rb == 0 {
			return false
		}
	}
	return true
}

// tmapSt is one tensor map's last generic update, with the roles ordered
// after it and a release fence (rel), the roles that then acquired (acq),
// and the TMA reads of it since, per role.
type schedTmapSt struct {
	w, rel schedKnow
	r      [sc.MaxRoles]schedKnow
	acq    uint8
	wValid bool
	rValid uint8
	_      uint8
}

type schedNamedSt struct{ arrived, need uint8 }

type schedState struct {
	roles [sc.MaxRoles]schedRoleSt
	bars  [sc.MaxBarriers]schedBarSt
	barK  [sc.MaxBarriers]schedKnow // who is ordered after the mbarrier's init
	named [sc.MaxNamedBars]schedNamedSt
	fl    [schedMaxFlight]schedFlight
	bufs  [sc.MaxBuffers]schedBufSt
	tmaps [sc.MaxTensorMaps]schedTmapSt
}

// forKnow calls f on every knowledge record of s.
func (s *schedState) forKnow(f func(k *schedKnow)) {
	for i := range s.bufs {
		b := &s.bufs[i]
		f(&b.w)
		f(&b.wf)
		for q := range b.r {
			f(&b.r[q])
		}
	}
	for i := range s.tmaps {
		t := &s.tmaps[i]
		f(&t.w)
		f(&t.rel)
		for q := range t.r {
			f(&t.r[q])
		}
	}
	for i := range s.barK {
		f(&s.barK[i])
	}
}

// release carries role r's knowledge into mbarrier b's current phase.
func (s *schedState) release(r, b int) {
	rb, bb := uint8(1)<<r, uint16(1)<<b
	s.forKnow(func(k *schedKnow) {
		if k.seen&rb != 0 {
			k.acc |= bb
		}
	})
}

// snapshotCommit records role r's knowledge for in-flight commit slot i.
func (s *schedState) snapshotCommit(r, i int) {
	rb, ib := uint8(1)<<r, uint16(1)<<i
	s.forKnow(func(k *schedKnow) {
		if (k.seen|k.tc)&rb != 0 {
			k.commits |= ib
		}
	})
}

// releaseCommit carries commit slot i's snapshot into mbarrier b's phase.
func (s *schedState) releaseCommit(i, b int) {
	ib, bb := uint16(1)<<i, uint16(1)<<b
	s.forKnow(func(k *schedKnow) {
		if k.commits&ib != 0 {
			k.acc |= bb
			k.commits &^= ib
		}
	})
}

// acquire gives role r the knowledge of b's last completed phase.
func (s *schedState) acquire(r, b int) {
	rb, bb := uint8(1)<<r, uint16(1)<<b
	s.forKnow(func(k *schedKnow) {
		if k.done&bb != 0 {
			k.seen |= rb
		}
	})
}

// completePhase ends b's current phase.
func (s *schedState) completePhase(b int) {
	bar := &s.bars[b]
	bar.ph++
	bar.pending = bar.count
	bar.tx = 0
	bar.observed = false
	bb := uint16(1) << b
	s.forKnow(func(k *schedKnow) {
		k.done = k.done&^bb | k.acc&bb
		k.acc &^= bb
	})
}

// join gives every role of mask the knowledge of any of them (bar.sync).
func (s *schedState) join(mask uint8) {
	s.forKnow(func(k *schedKnow) {
		if k.seen&mask != 0 {
			k.seen |= mask
		}
	})
}

// freeFlight returns a free in-flight slot, or -1.
func (s *schedState) freeFlight() int {
	for i := range s.fl {
		if s.fl[i].kind == schedFlFree {
			return i
		}
	}
	return -1
}

// writeRecord records a completed write to buffer x with knowledge k;
// async writes need no fence before later async accesses.
func (s *schedState) writeRecord(x int8, k schedKnow, async bool) {
	b := &s.bufs[x]
	b.w, b.wValid, b.wAsync = k, true, async
	if async {
		b.wf = k
	} else {
		b.wf = schedKnow{}
	}
	b.r, b.rValid = [sc.MaxRoles]schedKnow{}, 0
}

// readRecord merges a completed read of buffer x by (or issued by) role q
// with knowledge k into q's read record: a role is ordered after q's reads
// when it is ordered after each of them.
func (s *schedState) readRecord(x int8, q int, k schedKnow) {
	b := &s.bufs[x]
	if b.rValid&(1<<q) == 0 {
		b.r[q] = k
		b.rValid |= 1 << q
		return
	}
	b.r[q].and(k)
}
