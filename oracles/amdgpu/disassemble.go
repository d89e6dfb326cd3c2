package amdgpu

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/batch"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// ErrEncoding is returned for bytes llvm-mc cannot disassemble.
var ErrEncoding = errors.New("llvm-mc cannot disassemble the encoding")

// Disassemble returns the instructions llvm-mc reads in enc, one per line.
func (o *Oracle) Disassemble(ctx context.Context, enc []byte) (string, error) {
	if len(enc) == 0 {
		return "", fmt.Errorf("%w: no bytes", ErrEncoding)
	}
	rs, err := o.DisassembleAll(ctx, [][]byte{enc})
	if err != nil {
		return "", err
	}
	if rs[0].Kind != oracles.Accept {
		return "", fmt.Errorf("%w: %s", ErrEncoding, rs[0].Diagnostic)
	}
	return rs[0].Text, nil
}

// Disassembly is llvm-mc's reading of one encoding.
type Disassembly struct {
	// Kind is Accept, Reject (llvm-mc warned "invalid instruction
	// encoding" on it), Error or Timeout.
	Kind       oracles.Kind
	Diagnostic string
	// Text is the instructions read, one per line.
	Text string
}

// DisassembleAll disassembles each encoding, many per llvm-mc process
// through the batch engine: each goes on its own input line, llvm-mc
// warns about a bad one by line number and prints the others' instructions
// in order, so a run is readable when every good line gives one
// instruction; a run that is not is cut in parts. An encoding alone may
// hold several instructions, returned one per line.
func (o *Oracle) DisassembleAll(ctx context.Context, encs [][]byte) ([]Disassembly, error) {
	outs, err := batch.Decide(ctx, disassembler{o}, encs, nil, batch.Options{MaxBatch: o.batchSize(), Mode: batch.ReportsAll})
	if err != nil {
		return nil, err
	}
	res := make([]Disassembly, len(encs))
	for i, oc := range outs {
		res[i] = Disassembly{Kind: oc.Kind, Diagnostic: oc.Diagnostic, Text: oc.Output}
	}
	return res, nil
}

// disassembler is the batch engine's Tool for llvm-mc -disassemble.
type disassembler struct{ o *Oracle }

// disSource is one input: one line of bytes per encoding.
type disSource struct {
	text string
	n    int
}

// Render writes each encoding as a line of hex bytes.
func (d disassembler) Render(encs [][]byte) (disSource, error) {
	var b strings.Builder
	for _, enc := range encs {
		if len(enc) == 0 {
			return disSource{}, fmt.Errorf("%w: no bytes", ErrEncoding)
		}
		for i, x := range enc {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "0x%02x", x)
		}
		b.WriteByte('\n')
	}
	return disSource{text: b.String(), n: len(encs)}, nil
}

// Run disassembles the source in one llvm-mc process.
func (d disassembler) Run(ctx context.Context, src disSource) (tool.Result, error) {
	cpu := d.o.cpu
	if cpu == "" {
		cpu = CPU
	}
	res, err := d.o.tool.Run(ctx, d.o.timeout(), []byte(src.text), "-arch=amdgcn", "-mcpu="+cpu, "-disassemble")
	if err != nil {
		return tool.Result{}, fmt.Errorf("%s: %w", d.o.name, err)
	}
	return res, nil
}

var disWarning = regexp.MustCompile(`^<stdin>:(\d+):\d+: (?:warning|error): (.*)$`)

// Parse maps warnings to lines and the printed instructions, in order, to
// the lines without one; it decides nothing when the counts differ.
func (d disassembler) Parse(src disSource, res tool.Result) batch.Report {
	var rep batch.Report
	if failed, r := died(res, d.o.timeout().String()); failed || res.ExitCode != 0 {
		if src.n == 1 {
			if !failed {
				r = Result{Kind: oracles.Error, Diagnostic: fmt.Sprintf("llvm-mc -disassemble exited %d: %s", res.ExitCode, diag.Normalize(diag.FirstLine(res.Output())))}
			}
			rep.Decide(0, batch.Outcome{Kind: r.Kind, Diagnostic: r.Diagnostic})
		}
		return rep
	}
	bad := map[int]string{}
	for _, l := range strings.Split(string(res.Stderr), "\n") {
		if m := disWarning.FindStringSubmatch(l); m != nil {
			ln, _ := strconv.Atoi(m[1])
			if ln < 1 || ln > src.n {
				return rep
			}
			if _, seen := bad[ln-1]; !seen {
				bad[ln-1] = diag.Normalize(m[2])
			}
		}
	}
	var insts []string
	for _, l := range strings.Split(string(res.Stdout), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, ".") {
			insts = append(insts, l)
		}
	}
	if src.n == 1 && len(bad) == 0 && len(insts) > 0 {
		rep.Decide(0, batch.Outcome{Kind: oracles.Accept, Output: strings.Join(insts, "\n")}) // one encoding, any number of instructions
		return rep
	}
	if len(insts) != src.n-len(bad) {
		if src.n == 1 {
			rep.Decide(0, batch.Outcome{Kind: oracles.Error,
				Diagnostic: fmt.Sprintf("llvm-mc -disassemble printed %d instructions for one encoding", len(insts))})
		}
		return rep
	}
	for pos := range src.n {
		if w, ok := bad[pos]; ok {
			rep.Decide(pos, batch.Outcome{Kind: oracles.Reject, Diagnostic: w})
			continue
		}
		rep.Decide(pos, batch.Outcome{Kind: oracles.Accept, Output: insts[0]})
		insts = insts[1:]
	}
	return rep
}

// Waitcnt is what an s_waitcnt waits for on gfx9: each counter's threshold.
type Waitcnt struct{ VM, Exp, LGKM int }

// MaxWaitcnt holds gfx942's field maximums (6, 3 and 4 bits): a counter an
// s_waitcnt does not name is at its maximum, which waits for nothing.
var MaxWaitcnt = Waitcnt{VM: 63, Exp: 7, LGKM: 15}

var counter = regexp.MustCompile(`\b(vmcnt|expcnt|lgkmcnt)\((\d+)\)`)

// ParseWaitcnt reads the counters of an "s_waitcnt vmcnt(N) expcnt(N)
// lgkmcnt(N)" as llvm-mc prints it (either separator, any order, any
// subset); the counters it does not name are at their maximum.
func ParseWaitcnt(text string) (Waitcnt, error) {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "s_waitcnt") {
		return Waitcnt{}, fmt.Errorf("not an s_waitcnt: %q", text)
	}
	w := MaxWaitcnt
	for _, m := range counter.FindAllStringSubmatch(text, -1) {
		n, err := strconv.Atoi(m[2])
		if err != nil {
			return Waitcnt{}, fmt.Errorf("s_waitcnt %q: %w", text, err)
		}
		switch m[1] {
		case "vmcnt":
			w.VM = n
		case "expcnt":
			w.Exp = n
		case "lgkmcnt":
			w.LGKM = n
		}
	}
	return w, nil
}

// Trip is one assemble-then-disassemble round trip.
type Trip struct {
	Assembled    Result
	Disassembled string
	// Equivalent is set when the disassembly waits on the same counters as
	// what the assembler printed.
	Equivalent bool
}

// RoundTrip assembles line, disassembles its encoding and compares the two
// s_waitcnt forms counter by counter. A line llvm-mc rejects makes a Trip
// with only Assembled set.
func (o *Oracle) RoundTrip(ctx context.Context, line string) (Trip, error) {
	rs, err := o.Assemble(ctx, []string{line})
	if err != nil {
		return Trip{}, err
	}
	t := Trip{Assembled: rs[0]}
	if t.Assembled.Kind != oracles.Accept {
		return t, nil
	}
	if t.Disassembled, err = o.Disassemble(ctx, t.Assembled.Encoding); err != nil {
		return t, err
	}
	want, err1 := ParseWaitcnt(t.Assembled.Text)
	got, err2 := ParseWaitcnt(t.Disassembled)
	t.Equivalent = err1 == nil && err2 == nil && want == got
	return t, nil
}
