package sass

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/batch"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// stageSASS is the stage where the listings are compared with each other
// and with the PTX.
const stageSASS = "sass"

// item is one case ptxas accepted, with its rendered entry.
type item struct {
	c domain.Case
	e ptx.Entry
}

// module is one cubin's worth of entries, all of one architecture: one
// PTX module per target (.version), in order of first appearance. ptxas
// checks the header of the last module of its command line only, but every
// entry here was accepted by the ptxas oracle under its own header first.
type module struct {
	entries []ptx.Entry
	texts   []string
}

// roundTrip is what the three tools did with one module; a disassembler
// that did not run (ptxas failed) has a nil result.
type roundTrip struct {
	asm       tool.Result
	dis, dump *tool.Result
}

// Prepare renders a case ptxas accepted; it groups by architecture.
func (o *Oracle) Prepare(c domain.Case) (batch.Prepared[item], error) {
	e, err := ptx.Render(c)
	if _, ok := oracles.AsNoSpelling(err); ok {
		return batch.Prepared[item]{}, err
	}
	if err != nil {
		return batch.Prepared[item]{}, fmt.Errorf("sass: %w", err)
	}
	return batch.Prepared[item]{Item: item{c, e}, Group: e.Target.Arch.String(), Expect: oracles.Accept}, nil
}

// Render lays the entries out as one module per target.
func (o *Oracle) Render(items []item) (module, error) {
	m := module{}
	byTarget := map[string][]ptx.Entry{}
	var order []string
	for _, it := range items {
		m.entries = append(m.entries, it.e)
		k := it.e.Target.String()
		if _, ok := byTarget[k]; !ok {
			order = append(order, k)
		}
		byTarget[k] = append(byTarget[k], it.e)
	}
	for _, k := range order {
		text, _, err := ptx.Module(byTarget[k])
		if err != nil {
			return module{}, fmt.Errorf("sass: %w", err)
		}
		m.texts = append(m.texts, text)
	}
	return m, nil
}

// Run assembles the module into a cubin and, when ptxas wrote one, lists
// it with both disassemblers.
func (o *Oracle) Run(ctx context.Context, m module) (roundTrip, error) {
	dir, err := os.MkdirTemp("", "legalfuzz-sass-")
	if err != nil {
		return roundTrip{}, fmt.Errorf("sass: %w", err)
	}
	defer os.RemoveAll(dir)
	cubin := filepath.Join(dir, "m.cubin")
	var srcs []string
	for i, text := range m.texts {
		src := filepath.Join(dir, fmt.Sprintf("m%d.ptx", i))
		if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
			return roundTrip{}, fmt.Errorf("sass: %w", err)
		}
		srcs = append(srcs, src)
	}
	var rt roundTrip
	if rt.asm, err = o.ptxas.Run(ctx, o.timeout(), nil, AssembleArgs(m.entries[0].Target.Arch.String(), cubin, srcs...)...); err != nil {
		return roundTrip{}, fmt.Errorf("sass: ptxas: %w", err)
	}
	if !clean(rt.asm) {
		return rt, nil
	}
	for _, step := range []struct {
		t    tool.Tool
		args []string
		res  **tool.Result
	}{{o.nvdisasm, NVDisasmArgs(cubin), &rt.dis}, {o.cuobjdmp, CUObjdumpArgs(cubin), &rt.dump}} {
		res, err := step.t.Run(ctx, o.timeout(), nil, step.args...)
		if err != nil {
			return roundTrip{}, fmt.Errorf("sass: %s: %w", step.t.Name, err)
		}
		*step.res = &res
	}
	return rt, nil
}

// AssembleArgs, NVDisasmArgs and CUObjdumpArgs are the three commands of a
// round trip, for reproducers.
func AssembleArgs(arch, cubin string, srcs ...string) []string {
	return append(append([]string{"-arch=" + arch, "-O0"}, srcs...), "-o", cubin)
}

// NVDisasmArgs lists a cubin's code only (-c).
func NVDisasmArgs(cubin string) []string { return []string{"-c", cubin} }

// CUObjdumpArgs lists a cubin's SASS.
func CUObjdumpArgs(cubin string) []string { return []string{"-sass", cubin} }

// clean reports whether a tool exited 0 by itself.
func clean(r tool.Result) bool { return !r.TimedOut && !r.Crashed() && r.ExitCode == 0 }

// errorWords finds an error a tool printed.
var errorWords = regexp.MustCompile(`(?i)\b(error|fatal)\b`)

// Parse decides the module's entries. A failure of any tool in a module of
// several entries decides nothing: the engine cuts the module until the
// failure is one entry's own.
func (o *Oracle) Parse(m module, rt roundTrip) batch.Report {
	var r batch.Report
	single := len(m.entries) == 1
	if f := o.failure("ptxas", rt.asm); f != nil {
		if single {
			f.Diagnostic = "ptxas accepted the case but did not write its cubin: " + f.Diagnostic
			r.Decide(0, *f)
		}
		return r
	}
	for _, t := range []struct {
		name string
		res  *tool.Result
	}{{o.nvdisasm.Name, rt.dis}, {o.cuobjdmp.Name, rt.dump}} {
		if f := o.failure(t.name, *t.res); f != nil {
			if single {
				r.Decide(0, *f)
			}
			return r
		}
	}
	dis, dump := ParseNVDisasm(string(rt.dis.Stdout)), ParseCUObjdump(string(rt.dump.Stdout))
	for pos, e := range m.entries {
		r.Decide(pos, judgeEntry(e, dis, dump))
	}
	return r
}

// failure is the outcome of a tool that failed, or nil: a hang is a
// timeout, a crash an error named by the tool, a non-zero exit the tool
// refusing ptxas's output, an error printed with exit 0 that fault.
func (o *Oracle) failure(name string, res tool.Result) *batch.Outcome {
	switch {
	case res.TimedOut:
		return &batch.Outcome{Kind: oracles.Timeout, Rule: name, Diagnostic: fmt.Sprintf("%s did not finish within %s", name, o.timeout())}
	case res.Crashed():
		return &batch.Outcome{Kind: oracles.Error, Rule: name, Diagnostic: res.Failure(name)}
	case res.ExitCode != 0:
		return &batch.Outcome{Kind: oracles.Error, Rule: oracles.Stage{Name: name, Fault: oracles.Refused}.String(), Diagnostic: res.Failure(name)}
	case errorWords.Match(res.Stderr):
		res.Stdout = nil // the listing: the error is on stderr
		return &batch.Outcome{Kind: oracles.Error, Rule: oracles.Stage{Name: name, Fault: oracles.ExitZero}.String(), Diagnostic: res.Failure(name)}
	}
	return nil
}

// judgeEntry compares one entry's functions in both listings, then its
// SASS with its PTX (steps 3 to 6).
func judgeEntry(e ptx.Entry, dis, dump Listing) batch.Outcome {
	fns := functionsOf(e.Name, dis, dump)
	if len(fns) == 0 {
		return batch.Outcome{Kind: oracles.Error, Rule: oracles.Stage{Name: stageSASS, Fault: oracles.Dropped}.String(),
			Diagnostic: "neither nvdisasm nor cuobjdump lists the entry: ptxas wrote a cubin without it"}
	}
	var code []Instr
	for _, fn := range fns {
		if d, ok := FirstDiff(fn, dis, dump); ok {
			return batch.Outcome{Kind: oracles.Error, Rule: oracles.Stage{Name: stageSASS, Fault: oracles.Disagree}.String(),
				Diagnostic: diag.Normalize(fmt.Sprintf("nvdisasm and cuobjdump disagree on %s:\nnvdisasm:  %s\ncuobjdump: %s", d.Function, d.A, d.B))}
		}
		code = append(code, dis[fn]...)
	}
	if why := dropped(e.Text, code); why != "" {
		return batch.Outcome{Kind: oracles.Error, Rule: oracles.Stage{Name: stageSASS, Fault: oracles.Dropped}.String(), Diagnostic: why}
	}
	if m, _ := checkTypes(e.Text, e.Target.Arch, code); m != nil {
		return batch.Outcome{Kind: oracles.Error, Rule: oracles.Stage{Name: stageSASS, Fault: oracles.WrongValue}.String(), Diagnostic: m.Diagnostic()}
	}
	return batch.Outcome{Kind: oracles.Accept, Value: found(e.Text, code)}
}

// functionsOf lists, in order, the functions of either listing that belong
// to the entry: its own, and the helpers ptx named after it.
func functionsOf(entry string, dis, dump Listing) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range []Listing{dis, dump} {
		for fn := range l {
			if !seen[fn] && (fn == entry || strings.HasPrefix(strings.TrimPrefix(fn, "$"), entry+"$")) {
				seen[fn] = true
				out = append(out, fn)
			}
		}
	}
	slices.Sort(out)
	return out
}
