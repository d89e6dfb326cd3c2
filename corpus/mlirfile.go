package corpus

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
	"github.com/legalfuzz/legalfuzz/oracles/mlir"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// MLIRRunLine is the lit RUN line of every exported MLIR test.
const MLIRRunLine = "// RUN: mlir-opt %s -split-input-file -verify-diagnostics"

// mlirTimeout bounds one mlir-opt run of the exporter.
const mlirTimeout = 2 * time.Minute

// MLIRVerifyArgs are the arguments that check an exported file the way lit
// does with its RUN line: mlir-opt MLIRVerifyArgs(path)...
func MLIRVerifyArgs(path string) []string {
	return []string{path, "-split-input-file", "-verify-diagnostics", "-o", os.DevNull}
}

// mlirCase is one case on its way into a lit file.
type mlirCase struct {
	e    Entry
	text string // the rendered module; empty when MLIR cannot spell the case
	ref  oracles.Verdict
	// diags are mlir-opt's diagnostics about text; placed is false when
	// some could not be placed on a line (an unknown location, a crash).
	diags  []mlirDiag
	placed bool
	chunk  string // the chunk as written, header and expected-* lines included
	skip   string // why the case is left out
}

// mlirDiag is one diagnostic at a line of a chunk.
type mlirDiag struct {
	line int
	kind string // error, warning, note, remark
	msg  string
}

// writeMLIRFormat writes one lit file per domain, and lit.cfg.py: a chunk per case that
// MLIR 19 can spell and whose verifier agrees with spec/ptxisa, with
// expected-error lines on rejections; the other cases are listed at the top
// of the file with the reason they were left out. Each file is checked with
// mlir-opt -verify-diagnostics before Export returns; a chunk that fails
// that check is left out too.
func writeMLIRFormat(ctx context.Context, w *Written, es []Entry, opt tool.Tool, major int) error {
	byDomain := map[string][]*mlirCase{}
	var domains []string
	seen := map[string]*mlirCase{}
	for _, e := range es {
		if mc := seen[e.Case.ID]; mc != nil {
			mc.e.Buckets = append(mc.e.Buckets, e.Buckets...)
			continue
		}
		mc := &mlirCase{e: e}
		seen[e.Case.ID] = mc
		if byDomain[e.Case.Domain] == nil {
			domains = append(domains, e.Case.Domain)
		}
		byDomain[e.Case.Domain] = append(byDomain[e.Case.Domain], mc)
	}
	slices.Sort(domains)
	if err := os.MkdirAll(w.Dir, 0o755); err != nil {
		return err
	}
	for _, d := range domains {
		if err := writeMLIRDomain(ctx, w, d, byDomain[d], opt, major); err != nil {
			return err
		}
	}
	// lit discovers no test in a folder without a configuration.
	cfg := filepath.Join(w.Dir, LitConfig)
	if err := os.WriteFile(cfg, []byte(mlirLitConfig(opt, major)), 0o644); err != nil {
		return err
	}
	w.Files = append(w.Files, cfg)
	return nil
}

// writeMLIRDomain writes one domain's lit file.
func writeMLIRDomain(ctx context.Context, w *Written, domainName string, cases []*mlirCase, opt tool.Tool, major int) error {
	if err := renderMLIR(ctx, cases, opt, major); err != nil {
		return err
	}
	for _, mc := range cases {
		if mc.skip == "" {
			mc.decide()
		}
	}
	path := filepath.Join(w.Dir, domainName+".mlir")
	for {
		file, n := mlirFile(domainName, cases)
		if n == 0 {
			for _, mc := range cases {
				w.Skipped = append(w.Skipped, Skip{mc.e.Name, mc.skip})
			}
			return nil
		}
		if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
			return err
		}
		bad, err := failingChunks(ctx, opt, path, cases)
		if err != nil {
			return err
		}
		if len(bad) == 0 {
			w.Files = append(w.Files, path)
			w.Cases += n
			for _, mc := range cases {
				if mc.skip != "" {
					w.Skipped = append(w.Skipped, Skip{mc.e.Name, mc.skip})
				}
			}
			return nil
		}
		for _, mc := range bad {
			mc.skip = "mlir-opt -verify-diagnostics does not pass on the chunk legalfuzz wrote for it: " + mc.skip
		}
	}
}

// renderMLIR renders each case in the spelling of the major release,
// judges it with spec/ptxisa, and runs the verifier once over all
// renderable cases to collect their diagnostics.
func renderMLIR(ctx context.Context, cases []*mlirCase, opt tool.Tool, major int) error {
	orc := mlir.NewRelease(mlir.Name, major, opt)
	var texts []string
	var rendered []*mlirCase
	for _, mc := range cases {
		ref, err := reference(ctx, mc.e.Case)
		if err != nil {
			return err
		}
		mc.ref = ref
		file, _, err := orc.VerifyCommand([]domain.Case{mc.e.Case}, "case.mlir")
		if err != nil {
			return err
		}
		if len(file) == 0 {
			mc.skip = "MLIR 19 cannot spell it: " + unsupportedReason(ctx, orc, mc.e)
			continue
		}
		mc.text = string(file)
		texts = append(texts, mc.text)
		rendered = append(rendered, mc)
	}
	if len(rendered) == 0 {
		return nil
	}
	diags, ok, err := verifyBatch(ctx, opt, texts)
	if err != nil {
		return err
	}
	if !ok { // a crash or an unplaceable diagnostic: one case at a time
		for _, mc := range rendered {
			d, ok, err := verifyBatch(ctx, opt, []string{mc.text})
			if err != nil {
				return err
			}
			mc.diags, mc.placed = d[0], ok
		}
		return nil
	}
	for i, mc := range rendered {
		mc.diags, mc.placed = diags[i], true
	}
	return nil
}

// unsupportedReason asks the verifier-only oracle why it cannot spell a
// case (it answers without running a tool), or falls back to the stored
// mlir verdict.
func unsupportedReason(ctx context.Context, orc *mlir.Oracle, e Entry) string {
	if vs, err := orc.Judge(ctx, []domain.Case{e.Case}); err == nil && vs[0].Kind == oracles.Unsupported {
		return vs[0].Diagnostic
	}
	if v, ok := e.verdict(mlir.Name); ok && v.Kind == oracles.Unsupported {
		return v.Diagnostic
	}
	return "no rendering"
}

// splitDiag matches a diagnostic of a split run; the offset line is relative
// to the chunk.
var splitDiag = regexp.MustCompile(`^within split at .*?:(\d+) offset :(\d+):\d+: (error|warning|note|remark): (.*)$`)

// verifyBatch runs the verifier over the texts as one split file and maps
// each diagnostic to its chunk and line. ok is false when the run crashed
// or hung, or reported something no chunk line can carry.
func verifyBatch(ctx context.Context, opt tool.Tool, texts []string) ([][]mlirDiag, bool, error) {
	dir, err := os.MkdirTemp("", "legalfuzz-export-")
	if err != nil {
		return nil, false, err
	}
	defer os.RemoveAll(dir)
	file, starts := mlir.JoinSplit(texts)
	path := filepath.Join(dir, "verify.mlir")
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		return nil, false, err
	}
	r, err := opt.Run(ctx, mlirTimeout, nil, "--split-input-file", path, "-o", os.DevNull)
	if err != nil {
		return nil, false, fmt.Errorf("mlir-opt: %w", err)
	}
	out := make([][]mlirDiag, len(texts))
	if r.TimedOut || r.Crashed() || r.ExitCode > 1 {
		return out, false, nil
	}
	for _, l := range strings.Split(string(r.Stderr), "\n") {
		m := splitDiag.FindStringSubmatch(l)
		if m == nil {
			if strings.Contains(l, "error:") {
				return out, false, nil // an error without a place in a chunk
			}
			continue
		}
		at, _ := strconv.Atoi(m[1])
		i, ok := starts[at]
		if !ok {
			return out, false, nil
		}
		ln, _ := strconv.Atoi(m[2])
		if i > 0 {
			ln-- // after the first chunk, offsets count the "// -----" line
		}
		if m[3] == "note" && strings.HasPrefix(m[4], "see current operation:") {
			continue // printed with every failing op; -verify-diagnostics does not check it
		}
		out[i] = append(out[i], mlirDiag{line: ln, kind: m[3], msg: m[4]})
	}
	return out, true, nil
}

// decide compares the verifier with spec/ptxisa and builds the chunk, or
// says why the case is left out.
func (mc *mlirCase) decide() {
	if !mc.placed {
		mc.skip = "mlir-opt crashed or reported a diagnostic without a place in the file (a finding; see legalfuzz triage)"
		return
	}
	errs := 0
	for _, d := range mc.diags {
		if d.kind == "error" {
			errs++
		}
	}
	legal := mc.ref.Kind == oracles.Accept
	switch {
	case mc.ref.Kind != oracles.Accept && mc.ref.Kind != oracles.Reject:
		mc.skip = "spec/ptxisa did not decide: " + describe(mc.ref)
	case legal && errs > 0:
		mc.skip = fmt.Sprintf("MLIR 19's verifier rejects this legal case (%s): %s", mc.firstError(), "a finding, not a regression test")
	case !legal && errs == 0:
		mc.skip = "MLIR 19's verifier accepts this illegal case (spec/ptxisa: " + describe(mc.ref) + "); it checks this elsewhere or not at all"
	default:
		mc.chunk = mc.header() + withExpectations(mc.text, mc.diags)
	}
}

// firstError is the verifier's first error message.
func (mc *mlirCase) firstError() string {
	for _, d := range mc.diags {
		if d.kind == "error" {
			return d.msg
		}
	}
	return ""
}

// header is the comment block above a chunk.
func (mc *mlirCase) header() string {
	var b strings.Builder
	c := mc.e.Case
	t := c.Value.Target()
	fmt.Fprintf(&b, "// case %s (%s, %s PTX ISA %s)\n", c.ID, c.Domain, t.Arch, t.PTX)
	if js, err := json.Marshal(c.Value); err == nil {
		fmt.Fprintf(&b, "// case JSON: %s\n", js)
	}
	for _, bk := range mc.e.Buckets {
		fmt.Fprintf(&b, "// bucket %s: %s\n", bk.Key, oneLine(bk.Title))
	}
	fmt.Fprintf(&b, "// spec/ptxisa: %s\n", describe(mc.ref))
	if mc.ref.Kind == oracles.Accept {
		b.WriteString("// The case is legal and MLIR's verifier accepts it.\n")
	} else {
		b.WriteString("// The case is illegal and MLIR's verifier rejects it.\n")
	}
	return b.String()
}

// withExpectations puts an expected-<kind> line above each line that
// carries diagnostics, with @+N pointing at it.
func withExpectations(text string, diags []mlirDiag) string {
	byLine := map[int][]mlirDiag{}
	for _, d := range diags {
		byLine[d.line] = append(byLine[d.line], d)
	}
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	for i, l := range lines {
		ds := byLine[i+1]
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		for k, d := range ds {
			fmt.Fprintf(&b, "%s// expected-%s @+%d {{%s}}\n", indent, d.kind, len(ds)-k, expectText(d.msg))
		}
		b.WriteString(l)
	}
	return b.String()
}

// expectText is the part of a message an expected-* line can hold: the
// verifier matches a substring, and "}}" would end the pattern.
func expectText(msg string) string {
	if i := strings.Index(msg, "}}"); i >= 0 {
		msg = msg[:i]
	}
	return strings.TrimSpace(msg)
}

// mlirFile assembles a domain's lit file: the RUN line, the cases left
// out, then one chunk per kept case. It returns the text and the number
// of chunks.
func mlirFile(domainName string, cases []*mlirCase) (string, int) {
	var b strings.Builder
	b.WriteString(MLIRRunLine + "\n")
	fmt.Fprintf(&b, "// Generated by legalfuzz corpus export: %s cases judged by MLIR 19's nvgpu/nvvm verifier,\n", domainName)
	b.WriteString("// each with the outcome spec/ptxisa (the PTX ISA) says is correct.\n")
	var skipped, chunks []string
	for _, mc := range cases {
		if mc.skip != "" {
			skipped = append(skipped, fmt.Sprintf("//   case %s: %s", mc.e.Case.ID, oneLine(mc.skip)))
			continue
		}
		chunks = append(chunks, mc.chunk)
	}
	if len(skipped) > 0 {
		b.WriteString("// Left out:\n" + strings.Join(skipped, "\n") + "\n")
	}
	if len(chunks) > 0 {
		b.WriteString("\n" + strings.Join(chunks, mlir.SplitMarker+"\n\n"))
	}
	return b.String(), len(chunks)
}

// failingChunks checks the written file with -verify-diagnostics and, when
// it fails, each chunk alone, and returns the cases whose chunk fails.
func failingChunks(ctx context.Context, opt tool.Tool, path string, cases []*mlirCase) ([]*mlirCase, error) {
	ok, _, err := verifies(ctx, opt, path)
	if err != nil || ok {
		return nil, err
	}
	var bad []*mlirCase
	for _, mc := range cases {
		if mc.skip != "" {
			continue
		}
		f, err := os.CreateTemp(filepath.Dir(path), ".check-*.mlir")
		if err != nil {
			return nil, err
		}
		_, err = f.WriteString(mc.chunk)
		f.Close()
		if err == nil {
			var out string
			ok, out, err = verifies(ctx, opt, f.Name())
			if !ok && err == nil {
				if len(out) > 300 {
					out = out[:300] + "..."
				}
				mc.skip, mc.chunk = out, ""
				bad = append(bad, mc)
			}
		}
		os.Remove(f.Name())
		if err != nil {
			return nil, err
		}
	}
	if len(bad) == 0 {
		return nil, fmt.Errorf("%s fails mlir-opt -verify-diagnostics though each of its chunks passes alone", path)
	}
	return bad, nil
}

// verifies runs the lit check on a file: whether it passes, and mlir-opt's
// messages, normalized to one line.
func verifies(ctx context.Context, opt tool.Tool, path string) (bool, string, error) {
	r, err := opt.Run(ctx, mlirTimeout, nil, MLIRVerifyArgs(path)...)
	if err != nil {
		return false, "", fmt.Errorf("mlir-opt: %w", err)
	}
	return r.ExitCode == 0 && !r.TimedOut && !r.Crashed(), oneLine(diag.Normalize(string(r.Stderr))), nil
}
