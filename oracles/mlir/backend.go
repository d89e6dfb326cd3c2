package mlir

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
	"github.com/legalfuzz/legalfuzz/oracles/emitted"
	"github.com/legalfuzz/legalfuzz/oracles/mlir/render"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// backend links the pieces' LLVM IR (all of one target) into one module,
// compiles it with llc and assembles the PTX with ptxas. A link or llc
// failure bisects; ptxas errors are attributed by the entry they fall in,
// and the cases not named are assembled again until ptxas exits cleanly on
// them, so an error that stops ptxas early never passes a case unchecked.
func (o *Oracle) backend(ctx context.Context, ps []piece) error {
	if len(ps) == 0 {
		return nil
	}
	dir, err := os.MkdirTemp("", "legalfuzz-llc-")
	if err != nil {
		return fmt.Errorf("mlir backend: %w", err)
	}
	defer os.RemoveAll(dir)
	t := ps[0].j.target
	ptx, failedStep, r, err := o.compile(ctx, dir, t, ps)
	if err != nil {
		return err
	}
	if failedStep != "" {
		return o.bisectBackend(ctx, ps, failedStep, r)
	}
	if why := o.ptxasSkip(t); why != "" {
		for _, p := range ps {
			p.j.v.Kind, p.j.v.Rule, p.j.v.Diagnostic = oracles.Accept, "llc", why
		}
	} else if err := o.assemble(ctx, dir, t, ps, ptx); err != nil {
		return err
	}
	checkPTX(ps, ptx)
	return nil
}

// checkPTX fails the cases whose entry in llc's PTX lacks what their op
// asked for (see checkEmitted), whatever ptxas said of it: a silent
// miscompile outranks any other verdict. Wrong values (checkValues) are
// judged only in PTX every tool accepted: where ptxas refuses the output,
// that refusal is what the case shows.
func checkPTX(ps []piece, ptx string) {
	entries := emitted.Entries(ptx)
	for _, p := range ps {
		entry := entries[render.KernelName(p.j.c)]
		err := checkEmitted(p.j.c, entry)
		if err == nil && p.j.v.Kind == oracles.Accept {
			err = checkValues(p.j.c, p.j.params, p.j.host, entry)
		}
		var f *faultError
		if errors.As(err, &f) {
			setFault(p.j.v, "", f)
		}
	}
}

// compile links and compiles the pieces to PTX; failedStep names the step
// that failed, with its result.
func (o *Oracle) compile(ctx context.Context, dir string, t target.Target, ps []piece) (string, string, tool.Result, error) {
	args := []string{"-S", "-o", filepath.Join(dir, "linked.ll")}
	for i, p := range ps {
		f := filepath.Join(dir, fmt.Sprintf("case%d.ll", i))
		if err := os.WriteFile(f, []byte(p.text), 0o644); err != nil {
			return "", "", tool.Result{}, fmt.Errorf("mlir backend: %w", err)
		}
		args = append(args, f)
	}
	r, err := o.Lower.Link.Run(ctx, o.timeout(), nil, args...)
	if err != nil || !clean(r) {
		return "", "link", r, err
	}
	ptx := filepath.Join(dir, "out.ptx")
	r, err = o.Lower.LLC.Run(ctx, o.timeout(), nil, LLCArgs(t, filepath.Join(dir, "linked.ll"), ptx)...)
	if err != nil || !clean(r) {
		return "", "llc", r, err
	}
	b, err := os.ReadFile(ptx)
	if err != nil {
		return "", "", r, fmt.Errorf("mlir backend: %w", err)
	}
	return string(b), "", r, nil
}

// LLCArgs is llc's command line for a target.
func LLCArgs(t target.Target, in, out string) []string {
	return []string{"-march=nvptx64", "-mcpu=" + t.Arch.String(), fmt.Sprintf("-mattr=+ptx%d", int(t.PTX)), in, "-o", out}
}

// clean reports a run that succeeded.
func clean(r tool.Result) bool { return r.ExitCode == 0 && !r.TimedOut && !r.Crashed() }

// ptxasSkip says why ptxas cannot judge the target's PTX, or "".
func (o *Oracle) ptxasSkip(t target.Target) string {
	if o.Lower.Ptxas.Path == "" {
		return "ptxas: not found, lowering stopped at llc"
	}
	if max := ptxasMaxPTX(o.Lower.Ptxas.Version); t.PTX > max {
		return fmt.Sprintf("ptxas: %s reads PTX ISA up to %s, not %s; lowering stopped at llc", o.Lower.Ptxas.Version, max, t.PTX)
	}
	return ""
}

// bisectBackend splits a batch whose link or llc failed, down to the case
// responsible, which gets the failure.
func (o *Oracle) bisectBackend(ctx context.Context, ps []piece, step string, r tool.Result) error {
	if len(ps) > 1 {
		mid := len(ps) / 2
		if err := o.backend(ctx, ps[:mid]); err != nil {
			return err
		}
		return o.backend(ctx, ps[mid:])
	}
	tools := map[string]string{"link": o.Lower.Link.Name, "llc": o.Lower.LLC.Name, "ptxas": o.Lower.Ptxas.Name}
	setVerdict(ps[0].j.v, step, single(step, tools[step], r, o.timeout()))
	return nil
}

// single is the result of a failed step on a case that was alone in it: a
// rejection, unless the tool crashed or hung. llc's "Cannot select" abort
// is a rejection too: it is how the NVPTX backend refuses an intrinsic its
// target or PTX version lacks (the llc oracles read it so, see
// oracles/llvm's classify), not a crash of llc's own.
func single(step, name string, r tool.Result, timeout fmt.Stringer) chunkResult {
	if sel := cannotSelect(r); sel != "" {
		return chunkResult{outcome: failed, diag: step + ": " + diag.Normalize(sel)}
	}
	if r.TimedOut || r.Crashed() {
		return toolFailure(name, step+": ", r, timeout)
	}
	msg := strings.Join(ptxasMessages(r.Output()), "\n")
	if msg == "" {
		msg = crashText(r.Output())
	}
	return chunkResult{outcome: failed, diag: step + ": " + diag.Normalize(msg)}
}

// cannotSelect is llc's "LLVM ERROR: Cannot select: ..." line when llc
// aborted after it (SIGABRT, or status 134 through a shell), else "".
func cannotSelect(r tool.Result) string {
	if r.TimedOut || r.Signal != "aborted" && r.ExitCode != 134 {
		return ""
	}
	for _, line := range strings.Split(r.Output(), "\n") {
		if strings.HasPrefix(line, "LLVM ERROR: Cannot select:") {
			return line
		}
	}
	return ""
}

// assemble runs ptxas on the PTX and attributes its errors to entries.
func (o *Oracle) assemble(ctx context.Context, dir string, t target.Target, ps []piece, ptx string) error {
	path := filepath.Join(dir, "out.ptx")
	r, err := o.Lower.Ptxas.Run(ctx, o.timeout(), nil, PtxasArgs(t, path, filepath.Join(dir, "out.cubin"))...)
	if err != nil {
		return fmt.Errorf("mlir ptxas: %w", err)
	}
	if clean(r) {
		for _, p := range ps {
			p.j.v.Kind, p.j.v.Rule, p.j.v.Diagnostic = oracles.Accept, "ptxas", ""
		}
		return nil
	}
	msgs, ok := attributePTX(ptx, r)
	if !ok || r.TimedOut || r.Crashed() {
		return o.bisectBackend(ctx, ps, "ptxas", r)
	}
	var rest []piece
	for _, p := range ps {
		m := msgs[render.KernelName(p.j.c)]
		if len(m) == 0 {
			rest = append(rest, p)
			continue
		}
		text := "ptxas: " + diag.Normalize(strings.Join(m, "\n"))
		setVerdict(p.j.v, "ptxas", chunkResult{outcome: failed, diag: text})
	}
	if len(rest) == len(ps) {
		return o.bisectBackend(ctx, ps, "ptxas", r)
	}
	return o.backend(ctx, rest)
}

// PtxasArgs is ptxas's command line for a target.
func PtxasArgs(t target.Target, in, out string) []string {
	return []string{"-arch=" + t.Arch.String(), in, "-o", out}
}

var (
	ptxasError = regexp.MustCompile(`^ptxas \S+, line (\d+); error\s*: (.*)$`)
	ptxasFatal = regexp.MustCompile(`^ptxas (?:fatal|error)\s*: (.*)$`)
)

// attributePTX maps ptxas's error lines to the entries they fall in; ok is
// false when an error names no line inside an entry, or there is none.
func attributePTX(ptx string, r tool.Result) (map[string][]string, bool) {
	var starts []int
	var names []string
	for i, line := range strings.Split(ptx, "\n") {
		if name, ok := emitted.EntryName(line); ok {
			starts, names = append(starts, i+1), append(names, name)
		}
	}
	msgs := map[string][]string{}
	for _, line := range strings.Split(r.Output(), "\n") {
		m := ptxasError.FindStringSubmatch(line)
		if m == nil {
			if f := ptxasFatal.FindStringSubmatch(line); f != nil && !strings.Contains(f[1], "aborted due to errors") {
				return nil, false
			}
			continue
		}
		n, _ := strconv.Atoi(m[1])
		i := len(starts) - 1
		for i >= 0 && starts[i] > n {
			i--
		}
		if i < 0 {
			return nil, false
		}
		msgs[names[i]] = append(msgs[names[i]], m[2])
	}
	return msgs, len(msgs) > 0
}

// ptxasMessages keeps the messages of ptxas's error lines, without the
// file and line.
func ptxasMessages(out string) []string {
	var msgs []string
	for _, line := range strings.Split(out, "\n") {
		if m := ptxasError.FindStringSubmatch(line); m != nil {
			msgs = append(msgs, m[2])
		} else if f := ptxasFatal.FindStringSubmatch(line); f != nil && !strings.Contains(f[1], "aborted due to errors") {
			msgs = append(msgs, f[1])
		}
	}
	return msgs
}
