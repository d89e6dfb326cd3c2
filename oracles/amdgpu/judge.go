package amdgpu

import (
	"context"
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt/lower"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcntasm"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Judges reports whether the oracle judges the domain: waitcnt programs,
// whose lowered s_waitcnt instructions it assembles, and waitcntasm
// instructions, which it round-trips.
func (o *Oracle) Judges(domainName string) bool {
	return domainName == waitcnt.Name || domainName == waitcntasm.Name
}

// Judge lowers each waitcnt program with the lowering under test and
// assembles it (operations and s_waitcnt lines) for the program's GPU, all programs of one
// GPU in one batch. A program is accepted when every line assembles; its value
// is each s_waitcnt's canonical text and 16-bit encoding, as waitcnt.Format
// spells them, so it can be compared with the spec's own encoder.
func (o *Oracle) Judge(ctx context.Context, cases []domain.Case) ([]oracles.Verdict, error) {
	out := make([]oracles.Verdict, len(cases))
	var asmCases []int
	byGPU := map[string][]int{}
	lines := make([][]string, len(cases))
	for i, c := range cases {
		out[i] = oracles.Verdict{Oracle: o.name, Version: o.Version(), Case: c.ID, Domain: c.Domain}
		if _, ok := c.Value.(waitcntasm.Value); ok {
			asmCases = append(asmCases, i)
			continue
		}
		v, ok := c.Value.(waitcnt.Value)
		if !ok {
			out[i].Unsupported(reasons.New("domain", "not-waitcnt", "%s judges only %s and %s cases", o.name, waitcnt.Name, waitcntasm.Name))
			continue
		}
		asm, err := lower.Asm(v, lower.Lower(v))
		if err != nil {
			out[i].Unsupported(reasons.New("waits", "no-s_waitcnt-spelling", "no s_waitcnt spelling: %v", err))
			continue
		}
		lines[i] = asm
		byGPU[v.GPU.String()] = append(byGPU[v.GPU.String()], i)
	}
	for gpu, idx := range byGPU {
		if err := o.forCPU(gpu).judgeGroup(ctx, idx, lines, out); err != nil {
			return nil, err
		}
	}
	if err := o.judgeAsm(ctx, cases, asmCases, out); err != nil {
		return nil, err
	}
	return out, nil
}

// judgeGroup assembles the lines of the cases idx in one call.
func (o *Oracle) judgeGroup(ctx context.Context, idx []int, lines [][]string, out []oracles.Verdict) error {
	var all []string
	for _, i := range idx {
		all = append(all, lines[i]...)
	}
	results, err := o.Assemble(ctx, all)
	if err != nil {
		return err
	}
	for _, i := range idx {
		n := len(lines[i])
		mine := results[:n]
		results = results[n:]
		out[i].Kind, out[i].Rule = oracles.Accept, o.name+".assembled"
		var values []string
		for _, r := range mine {
			if r.Kind != oracles.Accept {
				out[i].Kind, out[i].Rule, out[i].Diagnostic = r.Kind, o.name+"."+string(r.Kind), r.Diagnostic
				break
			}
			if strings.HasPrefix(r.Text, "s_waitcnt") {
				values = append(values, fmt.Sprintf("%s;0x%04x", r.Text, word16(r.Encoding)))
			}
		}
		if out[i].Kind == oracles.Accept {
			out[i].Value = strings.Join(values, " | ")
		}
	}
	return nil
}

// word16 is the SIMM16 field of an SOPP encoding (its low two bytes).
func word16(enc []byte) uint16 {
	if len(enc) < 2 {
		return 0
	}
	return uint16(enc[0]) | uint16(enc[1])<<8
}
