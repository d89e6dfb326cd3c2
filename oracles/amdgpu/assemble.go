package amdgpu

import (
	"context"
	"encoding/binary"
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

// Result is llvm-mc's answer about one line.
type Result struct {
	Line string
	// Kind is Accept, Reject (llvm-mc reported an error on the line), Error
	// (llvm-mc crashed or babbled on the line alone) or Timeout.
	Kind oracles.Kind
	// Diagnostic is the line's error messages, normalized; empty on accept.
	Diagnostic string
	// Text is the instruction as llvm-mc prints it back (canonical form).
	Text string
	// Encoding is the machine code, little-endian as llvm-mc lists it.
	Encoding []byte
	// Value is the encoding as one hex word per 4 bytes ("0xbf8c0f70"),
	// space separated: the value a verdict carries.
	Value string
}

// ErrLine is returned for a line that is not one line.
var ErrLine = errors.New("an assembly line must not contain a line break")

// Assemble assembles each line for gfx942, many lines per llvm-mc process,
// and returns one result per line, in order. Each line is preceded by its
// own label in the source, so llvm-mc's output is split by label and its
// errors ("<stdin>:N:C: error: ...") are mapped back by line number:
// llvm-mc reports every bad line and goes on. A line counts as accepted
// only when its label came back with no error; the batch engine runs again
// what a run leaves undecided and cuts a run it cannot read.
func (o *Oracle) Assemble(ctx context.Context, lines []string) ([]Result, error) {
	for i, l := range lines {
		if strings.ContainsAny(l, "\r\n") {
			return nil, fmt.Errorf("line %d %q: %w", i, l, ErrLine)
		}
	}
	outs, err := batch.Decide(ctx, o, lines, nil, batch.Options{MaxBatch: o.batchSize(), Mode: batch.ReportsAll})
	if err != nil {
		return nil, err
	}
	res := make([]Result, len(lines))
	for i, oc := range outs {
		res[i] = Result{Line: lines[i], Kind: oc.Kind, Diagnostic: oc.Diagnostic, Text: oc.Output, Value: oc.Value,
			Encoding: wordBytes(oc.Value)}
	}
	return res, nil
}

// label names the label placed before line i of a chunk.
func label(i int) string { return fmt.Sprintf("__legalfuzz_line_%d", i) }

// source is one llvm-mc input: the lines, each after its label.
type source struct {
	text  string
	lines []string
}

// Render lays the lines out, each after its own label.
func (o *Oracle) Render(lines []string) (source, error) {
	var src strings.Builder
	for pos, l := range lines {
		fmt.Fprintf(&src, "%s:\n%s\n", label(pos), l)
	}
	return source{text: src.String(), lines: lines}, nil
}

// Run assembles the source in one llvm-mc process.
func (o *Oracle) Run(ctx context.Context, src source) (tool.Result, error) {
	res, err := o.tool.Run(ctx, o.timeout(), []byte(src.text), Args(o.cpu)...)
	if err != nil {
		return tool.Result{}, fmt.Errorf("%s: %w", o.name, err)
	}
	return res, nil
}

// Parse reads the results it can attribute; a single line always gets one.
func (o *Oracle) Parse(src source, res tool.Result) batch.Report {
	var rep batch.Report
	n := len(src.lines)
	if failed, r := died(res, o.timeout().String()); failed {
		if n == 1 {
			rep.Decide(0, batch.Outcome{Kind: r.Kind, Diagnostic: r.Diagnostic})
		}
		return rep
	}
	errs, stray := attributeErrors(string(res.Stderr), n)
	if stray != "" && n > 1 {
		return rep
	}
	insts := splitByLabel(string(res.Stdout))
	for pos, line := range src.lines {
		r, ok := lineResult(line, errs[pos], insts, pos)
		if !ok && n == 1 {
			r = Result{Kind: oracles.Error,
				Diagnostic: fmt.Sprintf("llvm-mc exited %d without an answer: %s", res.ExitCode, diag.Normalize(diag.FirstLine(res.Output())))}
			ok = true
		}
		if ok {
			rep.Decide(pos, batch.Outcome{Kind: r.Kind, Diagnostic: r.Diagnostic, Value: r.Value, Output: r.Text})
		}
	}
	return rep
}

// lineResult reads one line's answer, if llvm-mc gave one.
func lineResult(line string, errs []string, insts map[int][]inst, pos int) (Result, bool) {
	if len(errs) > 0 {
		return Result{Line: line, Kind: oracles.Reject, Diagnostic: strings.Join(errs, "\n")}, true
	}
	is, ok := insts[pos]
	if !ok {
		return Result{}, false
	}
	r := Result{Line: line, Kind: oracles.Accept}
	var texts []string
	for _, in := range is {
		texts = append(texts, in.text)
		r.Encoding = append(r.Encoding, in.enc...)
	}
	r.Text = strings.Join(texts, "\n")
	r.Value = hexWords(r.Encoding)
	return r, true
}

// died reports a crash or a hang: llvm-mc said nothing attributable.
func died(r tool.Result, timeout string) (bool, Result) {
	switch {
	case r.TimedOut:
		return true, Result{Kind: oracles.Timeout, Diagnostic: "llvm-mc did not finish within " + timeout}
	case r.Signal != "":
		return true, Result{Kind: oracles.Error, Diagnostic: "llvm-mc died: signal: " + r.Signal}
	case r.Crashed():
		return true, Result{Kind: oracles.Error, Diagnostic: diag.Normalize(diag.FirstLine(r.Output()))}
	}
	return false, Result{}
}

var diagLine = regexp.MustCompile(`^<stdin>:(\d+):\d+: error: (.*)$`)

// attributeErrors maps "<stdin>:N:C: error:" lines to chunk positions: line
// 2p+1 is label p and line 2p+2 is line p. It returns the first error it
// could not place, if any.
func attributeErrors(stderr string, n int) (map[int][]string, string) {
	errs := map[int][]string{}
	stray := ""
	for _, l := range strings.Split(stderr, "\n") {
		m := diagLine.FindStringSubmatch(l)
		if m == nil {
			if strings.Contains(l, "error:") && stray == "" {
				stray = l
			}
			continue
		}
		ln, _ := strconv.Atoi(m[1])
		pos := (ln - 1) / 2
		if ln < 1 || pos >= n {
			stray = l
			continue
		}
		errs[pos] = append(errs[pos], diag.Normalize(m[2]))
	}
	return errs, stray
}

// inst is one instruction line of llvm-mc's output.
type inst struct {
	text string
	enc  []byte
}

var (
	labelLine = regexp.MustCompile(`^__legalfuzz_line_(\d+):`)
	encLine   = regexp.MustCompile(`^\s+(.*?)\s*; encoding: \[([^\]]*)\]`)
)

// splitByLabel groups the instructions printed after each label.
func splitByLabel(stdout string) map[int][]inst {
	out := map[int][]inst{}
	cur := -1
	for _, l := range strings.Split(stdout, "\n") {
		if m := labelLine.FindStringSubmatch(l); m != nil {
			cur, _ = strconv.Atoi(m[1])
			out[cur] = nil
			continue
		}
		if m := encLine.FindStringSubmatch(l); m != nil && cur >= 0 {
			out[cur] = append(out[cur], inst{strings.TrimSpace(m[1]), parseBytes(m[2])})
		}
	}
	return out
}

// parseBytes reads "0x70,0x0f,0x8c,0xbf".
func parseBytes(list string) []byte {
	var bs []byte
	for _, f := range strings.Split(list, ",") {
		if v, err := strconv.ParseUint(strings.TrimSpace(f), 0, 8); err == nil {
			bs = append(bs, byte(v))
		}
	}
	return bs
}

// wordBytes reads hexWords' text back into little-endian bytes.
func wordBytes(words string) []byte {
	var b []byte
	for _, w := range strings.Fields(words) {
		v, err := strconv.ParseUint(w, 0, 32)
		if err != nil {
			return nil
		}
		if len(w) == len("0x00") {
			b = append(b, byte(v))
			continue
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return b
}

// hexWords writes little-endian bytes as 32-bit words: 0x70,0x0f,0x8c,0xbf
// is "0xbf8c0f70". A tail shorter than a word is written byte by byte.
func hexWords(b []byte) string {
	var ws []string
	for len(b) >= 4 {
		ws = append(ws, fmt.Sprintf("0x%08x", binary.LittleEndian.Uint32(b)))
		b = b[4:]
	}
	for _, x := range b {
		ws = append(ws, fmt.Sprintf("0x%02x", x))
	}
	return strings.Join(ws, " ")
}
