package mlir

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/batch"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// SplitMarker separates the cases of a batch file; mlir-opt and
// mlir-translate judge each chunk on its own with --split-input-file.
const SplitMarker = "// -----"

// stage is one --split-input-file invocation of an MLIR tool.
type stage struct {
	// name says which step this is ("verify", "lowering", "translate"); the
	// lowering steps prefix their diagnostics with it.
	name string
	tool tool.Tool
	args []string
	// marker, when set, keeps the tool's output split by that marker (one
	// piece per chunk); when empty the output is discarded.
	marker string
}

// prefix is what the stage's diagnostics start with: nothing for the
// verifier, "lowering: " and so on for the later steps.
func (s stage) prefix() string {
	if s.name == "verify" {
		return ""
	}
	return s.name + ": "
}

// outcome is what one step did with one case.
type outcome int

const (
	passed outcome = iota
	failed
	crashed
	timedOut
)

// chunkResult is one chunk's outcome in a stage.
type chunkResult struct {
	outcome outcome
	// diag is the normalized diagnostic, with the stage prefix.
	diag string
	// out is the chunk's output when the stage keeps it.
	out string
}

// runSplit runs the stage on the chunks, as split files, until every
// chunk has its own result (see decideSplit).
func (o *Oracle) runSplit(ctx context.Context, st stage, texts []string) ([]chunkResult, error) {
	return o.decideSplit(ctx, st, texts, nil)
}

// decideSplit runs the stage on the chunks through the batch engine, with
// the chunks' expected verdicts (or nil) to plan the runs. A run's
// diagnostics are attributed to chunks by their split line; when the tool
// crashes or hangs, the chunk it was working on is found (see completed),
// the chunks before it keep their results, it runs alone and the rest runs
// again; when it prints what cannot be attributed, the run is cut in
// pieces. So every chunk still gets its own result and the culprit its own
// failure.
func (o *Oracle) decideSplit(ctx context.Context, st stage, texts []string, expect []oracles.Kind) ([]chunkResult, error) {
	outs, err := batch.Decide(ctx, splitTool{o, st}, texts, expect,
		batch.Options{MaxBatch: o.batchSize(), Mode: batch.ReportsAll, Parts: bisectParts})
	if err != nil {
		return nil, err
	}
	res := make([]chunkResult, len(outs))
	for i, oc := range outs {
		res[i] = fromOutcome(oc)
	}
	return res, nil
}

// splitTool is one stage as the batch engine's tool: chunks in, one split
// file, one run.
type splitTool struct {
	o  *Oracle
	st stage
}

// splitInput is a split file and where its chunks start.
type splitInput struct {
	file   string
	starts map[int]int
	n      int
}

// Render joins the chunks as one split file.
func (t splitTool) Render(texts []string) (splitInput, error) {
	file, starts := JoinSplit(texts)
	return splitInput{file: file, starts: starts, n: len(texts)}, nil
}

// Run runs the stage once over the file.
func (t splitTool) Run(ctx context.Context, in splitInput) (run, error) {
	return t.o.splitOnce(ctx, t.st, in)
}

// Parse attributes the run's diagnostics and output to chunks. A run that
// stopped in a chunk decides the chunks before it (when their output was
// not lost with the crash) and names that chunk a suspect; one that cannot
// be read decides nothing; a chunk alone always gets its result.
func (t splitTool) Parse(_ splitInput, ru run) batch.Report {
	var rep batch.Report
	if res, ok := ru.attribute(t.st); ok {
		for i, r := range res {
			rep.Decide(i, toOutcome(r))
		}
		return rep
	}
	if ru.n == 1 {
		res, ok := ru.unlocated(t.st)
		if !ok {
			res = toolFailureIn(t.st.tool.Name, t.st.prefix(), ru.r, t.o.timeout(), ru.frame)
		}
		rep.Decide(0, toOutcome(res))
		return rep
	}
	if k, ok := ru.completed(t.st); ok {
		slog.Debug("mlir: run stopped in a chunk", "stage", t.st.name, "chunks", ru.n, "at", k)
		if t.st.marker == "" {
			for i, r := range ru.partial(t.st, k) {
				rep.Decide(i, toOutcome(r))
			}
		}
		rep.Suspects = []int{k}
		return rep
	}
	slog.Debug("mlir: run not attributable, splitting", "stage", t.st.name, "chunks", ru.n, "exit", ru.r.ExitCode)
	return rep
}

// kinds maps a step's outcome to a verdict kind and back.
var kinds = map[outcome]oracles.Kind{passed: oracles.Accept, failed: oracles.Reject, crashed: oracles.Error, timedOut: oracles.Timeout}

func toOutcome(r chunkResult) batch.Outcome {
	return batch.Outcome{Kind: kinds[r.outcome], Diagnostic: r.diag, Output: r.out}
}

func fromOutcome(oc batch.Outcome) chunkResult {
	r := chunkResult{outcome: crashed, diag: oc.Diagnostic, out: oc.Output}
	for k, v := range kinds {
		if v == oc.Kind {
			r.outcome = k
		}
	}
	return r
}

// bisectParts is how many pieces a run that cannot be attributed is cut
// into: with several culprits in a batch, eight pieces cost fewer runs than
// halving.
const bisectParts = 8

// timingFlag makes mlir-opt print a timing report as it finishes each
// chunk (to stderr, which a crash does not lose), so a crashed or hung run
// says how far it got.
const timingFlag = "--mlir-timing"

// timingReport heads each of those reports.
const timingReport = "... Execution time report ..."

// run is one invocation of a split stage over n chunks.
type run struct {
	r      tool.Result
	starts map[int]int
	n      int
	// frame is the crashing function of a case alone, from a symbolized
	// run of it or of another case that crashed at the same site.
	frame string
}

// splitOnce runs the stage once over a split file.
func (o *Oracle) splitOnce(ctx context.Context, st stage, in splitInput) (run, error) {
	dir, err := os.MkdirTemp("", "legalfuzz-mlir-")
	if err != nil {
		return run{}, fmt.Errorf("mlir %s: %w", st.name, err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "batch.mlir")
	if err := os.WriteFile(path, []byte(in.file), 0o644); err != nil {
		return run{}, fmt.Errorf("mlir %s: %w", st.name, err)
	}
	args := splitArgs(st, path)
	plain := st.tool
	plain.Env = append(slices.Clip(plain.Env), noSymbolize)
	// A crash in a batch is only a cue to split it, and a case alone needs
	// only the crashing function from the symbolized stack: runs skip the
	// symbolization (two thirds of a crashed run's time), and a crash
	// alone is symbolized once per crash site (see frames).
	r, err := plain.Run(ctx, o.timeout(), nil, args...)
	if err != nil {
		return run{}, fmt.Errorf("mlir %s: %w", st.name, err)
	}
	ru := run{r: r, starts: in.starts, n: in.n}
	if in.n > 1 || !r.Crashed() {
		return ru, nil
	}
	site := diag.CrashSite(r.Output())
	if f, ok := o.frames.Load(site); ok && site != "" {
		ru.frame = f.(string)
		return ru, nil
	}
	sym, err := st.tool.Run(ctx, o.timeout(), nil, args...)
	if err != nil {
		return run{}, fmt.Errorf("mlir %s: %w", st.name, err)
	}
	ru.r, ru.frame = sym, crashFrame(sym.Output())
	if site != "" && sym.Crashed() {
		o.frames.Store(site, ru.frame)
	}
	return ru, nil
}

// noSymbolize runs a tool without LLVM's crash symbolization.
const noSymbolize = "LLVM_DISABLE_SYMBOLIZATION=1"

// splitArgs is the stage's command line for the file at path.
func splitArgs(st stage, path string) []string {
	args := append([]string{"--split-input-file", noThreads}, st.args...)
	if st.marker != "" {
		return append(args, "--output-split-marker="+st.marker, path)
	}
	return append(args, "-o", os.DevNull, path)
}

// noThreads keeps an MLIR tool on one thread: threaded, the verifier
// checks isolated regions in parallel, so where a file holds several
// failures the order and extent of what it reports may depend on timing,
// and a verdict's diagnostic must not. The engine already runs tool
// processes side by side.
const noThreads = "--mlir-disable-threading"

// JoinSplit writes the chunks as one split file and maps the line number
// mlir reports for a chunk ("within split at FILE:N") to the chunk: N is 1
// for the first chunk and the marker's line for the others. A chunk's own
// lines are numbered from there, one more after the first chunk (the
// marker's line).
func JoinSplit(texts []string) (string, map[int]int) {
	var b strings.Builder
	starts := make(map[int]int, len(texts))
	line := 1
	for i, t := range texts {
		if i > 0 {
			b.WriteString(SplitMarker + "\n")
		}
		starts[line] = i
		if i > 0 {
			line++
		}
		if !strings.HasSuffix(t, "\n") {
			t += "\n"
		}
		b.WriteString(t)
		line += strings.Count(t, "\n")
	}
	return b.String(), starts
}

// diagLine matches one diagnostic of a split run by MLIR 19, which names
// the chunk's first line; diagLineAbs one by MLIR 22, which names the
// line in the whole file.
var (
	diagLine    = regexp.MustCompile(`^within split at .*?:(\d+) offset :\d+:\d+: (error|warning|note|remark): (.*)$`)
	diagLineAbs = regexp.MustCompile(`^[^ ]*\.mlir:(\d+):\d+: (error|warning|note|remark): (.*)$`)
)

// chunkAt maps a line of the whole split file to its chunk: the last one
// starting at or before it.
func (ru run) chunkAt(line int) (int, bool) {
	best, at := -1, 0
	for start, i := range ru.starts {
		if start <= line && start > at {
			best, at = i, start
		}
	}
	return best, best >= 0
}

// errors maps the run's error diagnostics to chunks; ok is false when one
// names no chunk.
func (ru run) errors() ([][]string, bool) {
	msgs := make([][]string, ru.n)
	for _, line := range strings.Split(string(ru.r.Stderr), "\n") {
		m := diagLine.FindStringSubmatch(line)
		chunk := func(at int) (int, bool) { i, ok := ru.starts[at]; return i, ok }
		if m == nil {
			m, chunk = diagLineAbs.FindStringSubmatch(line), ru.chunkAt
		}
		if m == nil || m[2] != "error" {
			continue
		}
		at, _ := strconv.Atoi(m[1])
		i, ok := chunk(at)
		if !ok {
			return nil, false
		}
		msgs[i] = append(msgs[i], m[3])
	}
	return msgs, true
}

// attribute maps the run's diagnostics and output to chunks. It fails when
// the tool crashed or hung, when a diagnostic names no chunk, when the tool
// failed without saying where, or when the output pieces do not line up
// with the chunks.
func (ru run) attribute(st stage) ([]chunkResult, bool) {
	r := ru.r
	if r.TimedOut || r.Crashed() {
		return nil, false
	}
	msgs, ok := ru.errors()
	if !ok {
		return nil, false
	}
	errs := 0
	for _, m := range msgs {
		errs += len(m)
	}
	if r.ExitCode != 0 && (r.ExitCode != 1 || errs == 0) {
		return nil, false
	}
	outs := make([]string, ru.n)
	if st.marker != "" {
		outs = splitOutput(string(r.Stdout), st.marker)
		if len(outs) != ru.n {
			return nil, false
		}
	}
	return results(st, msgs, outs, r.ExitCode == 0), true
}

// results turns per-chunk error messages (and outputs) into results. A
// chunk with errors whose stage still went on (the run exited 0, so no
// chunk failed, or the chunk's output was written) printed its error at
// exit status 0: a crash of sorts, not a refusal (see exitZeroNote).
func results(st stage, msgs [][]string, outs []string, exitedZero bool) []chunkResult {
	res := make([]chunkResult, len(msgs))
	for i := range res {
		res[i] = chunkResult{outcome: passed, out: outs[i]}
		if len(msgs[i]) == 0 {
			continue
		}
		d := st.prefix() + diag.Normalize(strings.Join(msgs[i], "\n"))
		res[i] = chunkResult{outcome: failed, diag: d}
		if exitedZero || strings.TrimSpace(outs[i]) != "" {
			res[i] = chunkResult{outcome: crashed, diag: d + "\n" + exitZeroNote}
		}
	}
	return res
}

// unlocated reads a run of one chunk that exited 1 having said why in
// words that name no place (mlir-translate's LLVM IR verifier: "immarg
// value 2 out of range [0, 2)"): the tool refused the chunk. A crash, a
// hang, silence or a diagnostic placed outside the chunk is not that.
func (ru run) unlocated(st stage) (chunkResult, bool) {
	r := ru.r
	if ru.n != 1 || r.ExitCode != 1 || r.TimedOut || r.Crashed() {
		return chunkResult{}, false
	}
	if _, ok := ru.errors(); !ok {
		return chunkResult{}, false
	}
	text := crashText(r.Output())
	if text == "" {
		return chunkResult{}, false
	}
	return chunkResult{outcome: failed, diag: st.prefix() + text}, true
}

// completed says in which chunk a crashed or hung run stopped: the number
// of timing reports it printed (one per finished chunk). ok is false when
// the stage prints no reports, the run did not crash or hang, or a
// diagnostic names no chunk.
func (ru run) completed(st stage) (int, bool) {
	if !slices.Contains(st.args, timingFlag) || !(ru.r.TimedOut || ru.r.Crashed()) {
		return 0, false
	}
	if _, ok := ru.errors(); !ok {
		return 0, false
	}
	k := strings.Count(string(ru.r.Stderr), timingReport)
	return k, k < ru.n
}

// partial is the results of the first done chunks of a run that stopped.
func (ru run) partial(st stage, done int) []chunkResult {
	msgs, _ := ru.errors()
	return results(st, msgs[:done], make([]string, done), false)
}

// splitOutput cuts a split run's output at the marker lines.
func splitOutput(out, marker string) []string {
	var pieces []string
	var cur strings.Builder
	for _, line := range strings.SplitAfter(out, "\n") {
		if strings.TrimRight(line, "\n") == marker {
			pieces = append(pieces, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteString(line)
	}
	return append(pieces, cur.String())
}

// toolFailure describes a run that crashed, hung, or printed what could not
// be attributed, for the one case it held.
func toolFailure(name, prefix string, r tool.Result, timeout fmt.Stringer) chunkResult {
	return toolFailureIn(name, prefix, r, timeout, crashFrame(r.Output()))
}

// toolFailureIn is toolFailure with the crashing function already known.
func toolFailureIn(name, prefix string, r tool.Result, timeout fmt.Stringer, frame string) chunkResult {
	if r.TimedOut {
		return chunkResult{outcome: timedOut, diag: fmt.Sprintf("%s%s timed out after %s", prefix, name, timeout)}
	}
	what := "crashed"
	if !r.Crashed() {
		what = fmt.Sprintf("exited %d with output that names no case", r.ExitCode)
	}
	if r.Signal != "" {
		what += " (" + r.Signal + ")"
	}
	if frame != "" {
		what += " in " + frame
	}
	diag := prefix + name + " " + what
	if text := crashText(r.Output()); text != "" {
		diag += ": " + text
	}
	return chunkResult{outcome: crashed, diag: diag}
}

// crashFrame names the first function of the stack dump that is not the
// signal handling itself: which verifier or pass crashed, the most stable
// part of a crash report.
func crashFrame(out string) string {
	if fs := diag.CrashFrames(out); len(fs) > 0 {
		return fs[0]
	}
	return ""
}

// crashText keeps the head of a failing tool's output: the messages before
// the stack dump, normalized, without positions, and bounded (after
// normalization, so that the cut does not depend on path lengths).
func crashText(out string) string {
	for _, cut := range []string{"Stack dump:", "PLEASE submit a bug report"} {
		if i := strings.Index(out, cut); i >= 0 {
			out = out[:i]
		}
	}
	out = strings.TrimSpace(diag.StripLocations(diag.Normalize(out)))
	if len(out) > 1500 {
		out = out[:1500] + " ..."
	}
	return out
}
