// Package sass is the oracle that reads back what ptxas 12.4 made of each
// case: the SASS of the cubin, as nvdisasm and as cuobjdump print it. It is
// the NVIDIA side of the assembler round trips (issue 13): the PTX of a case
// (package ptx) is assembled into a cubin, both disassemblers list it, and
// the case is judged in steps, each with its own Rule:
//
//  1. Whether ptxas accepts the case is the ptxas oracle's question, and
//     this oracle asks it the same way (it runs that oracle) for the cases
//     spec/ptxisa accepts; the others are unsupported without a run (they
//     rarely assemble, and asking would double ptxas's work). A case ptxas
//     rejects is rejected here with ptxas's words, a case it cannot judge
//     is unsupported. The policies pair this oracle with ptxas, never with
//     spec/ptxisa, so a ptxas accept or reject is reported once, by ptxas;
//     the pair disagrees only on what the round trip itself found. A case
//     ptxas crashes or hangs on is unsupported here for the same reason.
//  2. A disassembler that crashes, hangs, exits non-zero ("nvdisasm/refused")
//     or prints an error and exits 0 ("nvdisasm/exit-0") on a cubin ptxas
//     wrote: Error (Timeout for a hang).
//  3. nvdisasm and cuobjdump printing different instructions for a kernel,
//     once offsets, blanks, encodings and label names are normalized away:
//     Error "sass/disagree", with both lines.
//  4. SASS lacking the opcode that a PTX instruction of the kernel maps to,
//     for the few instructions that write memory (see mappings): Error
//     "sass/dropped".
//  5. A SASS opcode that encodes other types, shape or qualifiers than the
//     PTX instruction it comes from (mma, wgmma, ldmatrix, stmatrix,
//     cp.async, TMA copies: see spellers): Error "sass/value", a silent
//     miscompile, titled "mma.sync...s32.s8.u8.s32 assembled to
//     IMMA.16832.S8.S8, want IMMA.16832.S8.U8". Only what the listings of
//     ptxas 12.4 show is claimed (docs/sass.md); where ptxas deleted the
//     dead instruction (mma and ldmatrix below sm_90 at -O0) nothing is
//     checked.
//  6. Otherwise Accept; Value lists the table's opcodes the SASS holds for
//     the case's instructions, e.g. "LDSM.16.M88.4".
//
// ptxas runs at -O0, as the ptxas oracle does: the rendered kernels never
// read the registers an ldmatrix, mma or wgmma writes, and higher levels
// delete such dead work, as they may.
package sass

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/batch"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
	"github.com/legalfuzz/legalfuzz/oracles/ptxas"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// DefaultTimeout bounds one tool process when Oracle.Timeout is zero.
const DefaultTimeout = 60 * time.Second

// NVDisasm and CUObjdump find CUDA 12.4's disassemblers, installed next to
// ptxas by make oracles.
var (
	NVDisasm = tool.Spec{Name: "nvdisasm", Env: "LEGALFUZZ_NVDISASM", Files: []string{"nvdisasm"},
		VersionArgs: []string{"--version"}, Version: ptxas.ReleaseVersion(`12\.4`), Install: "make oracles"}
	CUObjdump = tool.Spec{Name: "cuobjdump", Env: "LEGALFUZZ_CUOBJDUMP", Files: []string{"cuobjdump"},
		VersionArgs: []string{"--version"}, Version: ptxas.ReleaseVersion(`12\.4`), Install: "make oracles"}
)

// Oracle assembles cases with ptxas 12.4 and reads the cubins back.
type Oracle struct {
	// asm is the ptxas oracle that decides step 1; mu guards copying
	// Timeout and BatchSize into it.
	asm                       *ptxas.Oracle
	mu                        sync.Mutex
	ptxas, nvdisasm, cuobjdmp tool.Tool
	// AskRejected asks ptxas about the cases spec/ptxisa rejects too, and
	// mirrors its verdict on them, as the batch conformance suite needs.
	AskRejected bool
	// Timeout bounds one tool process; zero means DefaultTimeout.
	Timeout time.Duration
	// BatchSize caps the cases of one cubin (and of ptxas's own runs); zero
	// means no cap, 1 one case per cubin.
	BatchSize int
}

// New makes the oracle over located tools.
func New(ptxasTool, nvdisasm, cuobjdump tool.Tool) *Oracle {
	return &Oracle{asm: ptxas.New(ptxas.PTXAS124, ptxasTool), ptxas: ptxasTool, nvdisasm: nvdisasm, cuobjdmp: cuobjdump}
}

// Discover finds ptxas 12.4, nvdisasm and cuobjdump; when one is missing
// the oracle is nil and the status says which and why.
func Discover(ctx context.Context) (*Oracle, oracles.Status) {
	st := oracles.Status{Name: oracles.SASS, Domains: ptx.Domains(), Targets: ptxas.PTXAS124.Targets}
	var found []tool.Tool
	for _, spec := range []tool.Spec{ptxas.PTXAS124.Spec, NVDisasm, CUObjdump} {
		t, err := tool.Locate(ctx, spec)
		if err != nil {
			st.Reason, st.Install = err.Error(), spec.Install
			return nil, st
		}
		found = append(found, t)
	}
	o := New(found[0], found[1], found[2])
	st.Available, st.Version, st.Path = true, o.Version(), found[1].Path
	return o, st
}

// Name is oracles.SASS.
func (o *Oracle) Name() string { return oracles.SASS }

// Version is the disassemblers' version, e.g. "12.4.127".
func (o *Oracle) Version() string { return o.nvdisasm.Version }

// Judges reports whether package ptx renders the domain.
func (o *Oracle) Judges(domainName string) bool { return ptx.Renders(domainName) }

func (o *Oracle) timeout() time.Duration { return cmp.Or(o.Timeout, DefaultTimeout) }

// Judge asks ptxas about every case spec/ptxisa expects it to accept
// (step 1), then round-trips the cases it accepts; one verdict per case, in
// order. A case spec/ptxisa rejects has no cubin to read back in all
// likelihood (under 1% of a campaign's rejected cases assemble), and
// whether ptxas takes it is the ptxas oracle's finding, so it is
// Unsupported here without a run: this keeps the judge from doubling
// ptxas's work. The error is for harness failures only.
func (o *Oracle) Judge(ctx context.Context, cases []domain.Case) ([]oracles.Verdict, error) {
	out := make([]oracles.Verdict, len(cases))
	var asked []domain.Case
	var askedAt []int
	for i, c := range cases {
		if !o.AskRejected && batch.Predict(c) == oracles.Reject {
			out[i] = oracles.Verdict{Oracle: oracles.SASS, Version: o.Version(), Case: c.ID, Domain: c.Domain}
			out[i].Unsupported(reasons.New("verdict", "spec-rejects", "spec/ptxisa rejects the case: whether ptxas assembles it is the ptxas oracle's question"))
			continue
		}
		asked, askedAt = append(asked, c), append(askedAt, i)
	}
	first, err := o.assembler().Judge(ctx, asked)
	if err != nil {
		return nil, fmt.Errorf("sass: %w", err)
	}
	var accepted []domain.Case
	var at []int
	for k, v := range first {
		i := askedAt[k]
		if v.Kind == oracles.Accept {
			accepted, at = append(accepted, cases[i]), append(at, i)
			continue
		}
		out[i] = o.mirror(v)
	}
	trip, err := o.engine().Judge(ctx, accepted)
	if err != nil {
		return nil, err
	}
	for k, i := range at {
		out[i] = trip[k]
	}
	return out, nil
}

// assembler is the ptxas oracle, with this oracle's timeout and batch size.
// It writes them only when they changed since the last call, so that a
// Judge a worker abandoned (still running) never races a later one.
func (o *Oracle) assembler() *ptxas.Oracle {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.asm.Timeout != o.Timeout || o.asm.BatchSize != o.BatchSize {
		o.asm.Timeout, o.asm.BatchSize = o.Timeout, o.BatchSize
	}
	return o.asm
}

// mirror is this oracle's verdict on a case ptxas did not accept.
func (o *Oracle) mirror(v oracles.Verdict) oracles.Verdict {
	v.Oracle, v.Version, v.Value = oracles.SASS, o.Version(), ""
	switch v.Kind {
	case oracles.Reject:
		v.Rule = "ptxas"
	case oracles.Error, oracles.Timeout:
		v.Unsupported(reasons.New("verdict", "ptxas-failed", "ptxas failed on the case, which its own oracle reports: %s", v.Diagnostic))
	}
	return v
}

func (o *Oracle) engine() *batch.Engine[item, module, roundTrip] {
	return &batch.Engine[item, module, roundTrip]{
		Oracle: oracles.SASS, Version: o.Version(), Tool: o,
		Options: batch.Options{MaxBatch: o.BatchSize, Mode: batch.ReportsAll},
	}
}

// reasons are the cases the round trip leaves to another oracle's verdict
// (oracles.Reasons); a target or value ptxas cannot take keeps the ptxas
// oracle's reason (ptx.Reasons).
var reasons = oracles.Reasons{
	{Field: "verdict", Class: "spec-rejects", Gap: oracles.Deferred},
	{Field: "verdict", Class: "ptxas-failed", Gap: oracles.Deferred},
}
