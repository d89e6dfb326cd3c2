package amdgpu

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
)

// ErrEncoding is returned for bytes llvm-mc cannot disassemble.
var ErrEncoding = errors.New("llvm-mc cannot disassemble the encoding")

// Disassemble returns the instructions llvm-mc reads in enc, one per line.
func (o *Oracle) Disassemble(ctx context.Context, enc []byte) (string, error) {
	if len(enc) == 0 {
		return "", fmt.Errorf("%w: no bytes", ErrEncoding)
	}
	hex := make([]string, len(enc))
	for i, b := range enc {
		hex[i] = fmt.Sprintf("0x%02x", b)
	}
	args := []string{"-arch=amdgcn", "-mcpu=" + CPU, "-disassemble"}
	res, err := o.tool.Run(ctx, o.timeout(), []byte(strings.Join(hex, " ")+"\n"), args...)
	if err != nil {
		return "", fmt.Errorf("%s: %w", Name, err)
	}
	if failed, r := died(res, o.timeout().String()); failed || res.ExitCode != 0 {
		return "", fmt.Errorf("%s -disassemble failed (exit %d): %s %s", Name, res.ExitCode, r.Diagnostic, firstLine(res.Output()))
	}
	if w := firstLine(string(res.Stderr)); w != "" {
		return "", fmt.Errorf("%w: %s", ErrEncoding, diag.Normalize(w))
	}
	var insts []string
	for _, l := range strings.Split(string(res.Stdout), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, ".") {
			insts = append(insts, l)
		}
	}
	return strings.Join(insts, "\n"), nil
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
