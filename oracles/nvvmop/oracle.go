// Package nvvmop is the nvvm-op family: the judges of single NVVM ops
// (domain nvvmop) by an LLVM installation's own MLIR and llc. For a case,
// mlir-opt verifies the op inside a gpu.module that carries the case's
// target; what it accepts, mlir-translate translates to LLVM IR and llc
// compiles for the same target and PTX ISA version. An op the verifier
// accepts that a later tool cannot handle ("LLVM ERROR: Cannot select:
// intrinsic ...") is the verifier letting through what its own backend
// refuses: an Error verdict naming the stage (STAGE/pass-refused), never
// a rejection.
package nvvmop

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/nvvmop"
	"github.com/legalfuzz/legalfuzz/fuzz/opsurface"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
	"github.com/legalfuzz/legalfuzz/oracles/surface"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// DefaultTimeout bounds one tool run, as the other LLVM oracles do.
const DefaultTimeout = 60 * time.Second

// noSymbolize keeps LLVM tools from symbolizing a crash's stack dump (it
// doubles a failing run's time, and no verdict reads it).
const noSymbolize = "LLVM_DISABLE_SYMBOLIZATION=1"

// The stages a verdict's Rule names (oracles.Stage).
const (
	StageVerify    = "verify"
	StageTranslate = "translate"
	StageLLC       = "llc"
)

// nvvm is the surface source the family judges.
var nvvm = surface.Sources[0]

// Oracle is one installation's judge of single NVVM ops.
type Oracle struct {
	name                string
	inst                toolchain.Installation
	opt, translate, llc tool.Tool
	// Timeout bounds one tool run; zero means DefaultTimeout.
	Timeout time.Duration

	// ops are the op names of the installation's surface, read on first
	// use (the surface is cached, but discovery runs in every command).
	once sync.Once
	// ops are the installation's ops by name, read once from its surface.
	ops   map[string]opsurface.Op
	opErr error
}

// Discover finds the installation's mlir-opt, mlir-translate and llc and
// its NVVM TableGen sources (an installation without them has no surface,
// and no judge of this family). A missing piece gives a nil oracle and a
// Status saying why.
func Discover(ctx context.Context, in toolchain.Installation) (*Oracle, oracles.Status) {
	st := oracles.Status{Name: oracles.Installed(oracles.NVVMOp, in.Label), Domains: []string{nvvmop.Name},
		Install: "make oracles (it keeps each private root's TableGen sources), or --toolchain DIR naming an LLVM build with bin/llvm-tblgen and include/"}
	if !surface.Has(in, nvvm) {
		st.Reason = nvvm.Dialect + ": " + surface.ErrNoSources.Error()
		return nil, st
	}
	o := &Oracle{name: st.Name, inst: in}
	for _, t := range []struct {
		name string
		dst  *tool.Tool
	}{{"mlir-opt", &o.opt}, {"mlir-translate", &o.translate}, {"llc", &o.llc}} {
		found, err := in.Locate(ctx, t.name)
		if err != nil {
			st.Reason = err.Error()
			return nil, st
		}
		found.Env = append(found.Env, noSymbolize)
		*t.dst = found
	}
	st.Available, st.Version, st.Path = true, o.Version(), o.opt.Path
	return o, st
}

// Name is nvvm-op@LABEL.
func (o *Oracle) Name() string { return o.name }

// Version is the installation's LLVM version.
func (o *Oracle) Version() string { return o.opt.Version }

// Installation is the installation the oracle runs (toolchain.Installed).
func (o *Oracle) Installation() toolchain.Installation { return o.inst }

// Judges reports whether the domain is nvvmop.
func (o *Oracle) Judges(domainName string) bool { return domainName == nvvmop.Name }

func (o *Oracle) timeout() time.Duration { return cmp.Or(o.Timeout, DefaultTimeout) }

// defines reports whether the installation's surface has the op.
func (o *Oracle) defines(ctx context.Context, op string) (bool, error) {
	o.once.Do(func() {
		s, err := surface.Read(ctx, o.inst, nvvm)
		if err != nil {
			o.opErr = fmt.Errorf("%s: %w", o.name, err)
			return
		}
		o.ops = map[string]opsurface.Op{}
		for _, op := range s.Ops {
			o.ops[op.Name] = op
		}
	})
	_, ok := o.ops[op]
	return ok, o.opErr
}

// respelled is the case in the installation's own spelling of its enum
// values: a case is written from trunk's surface, and LLVM 23 spells some
// NVVM enums the other way (#nvvm<shfl_kind bfly>), refusing trunk's
// (#nvvm.shfl_kind<bfly>) before it verifies anything (six ops never
// reached 23's llc in a campaign).
func (o *Oracle) respelled(v nvvmop.Value) nvvmop.Value {
	op := o.ops[v.Op]
	attrs := slices.Clone(v.Attrs)
	for i, a := range attrs {
		for _, own := range op.Attrs {
			if own.Name == a.Name {
				attrs[i].Value = own.Respell(a.Value)
			}
		}
	}
	v.Attrs = attrs
	return v
}

// Judge runs the chain on each case, one tool run per stage, up to
// GOMAXPROCS cases side by side (as the batch engine runs its groups):
// each case's runs read their input from stdin and write to stdout, so
// they share no file.
func (o *Oracle) Judge(ctx context.Context, cases []domain.Case) ([]oracles.Verdict, error) {
	out := make([]oracles.Verdict, len(cases))
	errs := make([]error, len(cases))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(cases)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = o.judge(ctx, cases[i])
			}
		}()
	}
	for i := range cases {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err // the first case's failure of ours; a cancelled ctx fails them all alike
		}
	}
	return out, nil
}

// Value is the case's nvvmop value; false for any other.
func Value(c domain.Case) (nvvmop.Value, bool) {
	switch v := c.Value.(type) {
	case nvvmop.Value:
		return v, true
	case *nvvmop.Value:
		if v != nil {
			return *v, true
		}
	}
	return nvvmop.Value{}, false
}

// judge runs verify, translate and llc on one case.
func (o *Oracle) judge(ctx context.Context, c domain.Case) (oracles.Verdict, error) {
	v := oracles.Verdict{Oracle: o.name, Version: o.Version(), Case: c.ID, Domain: c.Domain}
	val, ok := Value(c)
	if !ok || c.Domain != nvvmop.Name {
		v.Kind, v.Diagnostic = oracles.Unsupported, o.name+" judges only nvvmop cases"
		return v, nil
	}
	defined, err := o.defines(ctx, val.Op)
	if err != nil {
		return v, err
	}
	if !defined {
		v.Kind, v.Diagnostic = oracles.Unsupported, val.Op+" is not an op of LLVM "+o.inst.Label+"'s NVVM dialect"
		return v, nil
	}
	val = o.respelled(val)
	r, err := o.opt.Run(ctx, o.timeout(), []byte(Verified(val)), VerifyArgs()...)
	if err != nil {
		return v, fmt.Errorf("%s mlir-opt: %w", o.name, err)
	}
	if !clean(r) {
		if r.TimedOut || r.Crashed() {
			return failed(v, StageVerify, "mlir-opt", r, o.timeout()), nil
		}
		v.Kind, v.Rule, v.Diagnostic = oracles.Reject, StageVerify, diag.Normalize(errorLines(r.Output()))
		return v, nil
	}
	r, err = o.translate.Run(ctx, o.timeout(), []byte(Translated(val)), TranslateArgs()...)
	if err != nil {
		return v, fmt.Errorf("%s mlir-translate: %w", o.name, err)
	}
	if !clean(r) {
		return failed(v, StageTranslate, "mlir-translate", r, o.timeout()), nil
	}
	r, err = o.llc.Run(ctx, o.timeout(), r.Stdout, LLCArgs(val)...)
	if err != nil {
		return v, fmt.Errorf("%s llc: %w", o.name, err)
	}
	if !clean(r) {
		if unknownTarget(r) {
			v.Kind, v.Diagnostic = oracles.Unsupported, "llc of LLVM "+o.inst.Label+" does not know "+val.Arch.String()+": "+diag.Normalize(diag.FirstLine(r.Output()))
			return v, nil
		}
		return failed(v, StageLLC, "llc", r, o.timeout()), nil
	}
	v.Kind, v.Rule = oracles.Accept, StageLLC
	return v, nil
}

// clean is a run that exited 0 without an error message.
func clean(r tool.Result) bool {
	return r.ExitCode == 0 && r.Signal == "" && !r.TimedOut && !strings.Contains(string(r.Stderr), "error:")
}

// failed is the verdict of a stage after the verifier that failed on what
// the verifier accepted: a timeout, a crash of the stage's own (the stage
// alone as the Rule), or a refusal in the tool's words
// (STAGE/pass-refused: the verifier let through what its own
// installation cannot compile, a gap of the verifier whatever the PTX ISA
// says of the case). llc's "LLVM ERROR: Cannot select:" abort is how it
// refuses an intrinsic it cannot select: a refusal, quoted by that line.
// llc refusing the target and PTX ISA version themselves ("PTX version
// 7.0 does not support target 'sm_90'") is its answer about the case's
// target, not about the op: a rejection, as the PTX ISA's.
func failed(v oracles.Verdict, stage, name string, r tool.Result, timeout time.Duration) oracles.Verdict {
	refused := oracles.Stage{Name: stage, Fault: oracles.PassRefused}.String()
	switch sel, tgt := cannotSelect(r), targetRefused(r); {
	case r.TimedOut:
		v.Kind, v.Rule, v.Diagnostic = oracles.Timeout, stage, fmt.Sprintf("%s did not finish within %s", name, timeout)
	case sel != "":
		v.Kind, v.Rule, v.Diagnostic = oracles.Error, refused, diag.Normalize(sel)
	case tgt != "":
		v.Kind, v.Rule, v.Diagnostic = oracles.Reject, stage, diag.Normalize(tgt)
	case r.Crashed():
		v.Kind, v.Rule, v.Diagnostic = oracles.Error, stage, r.Failure(name)
	case stage == StageVerify:
		v.Kind, v.Rule, v.Diagnostic = oracles.Reject, stage, diag.Normalize(errorLines(r.Output()))
	default:
		v.Kind, v.Rule, v.Diagnostic = oracles.Error, refused, diag.Normalize(errorLines(r.Output()))
	}
	return v
}

// cannotSelect is llc's "LLVM ERROR: Cannot select: ..." line when it
// aborted after it, else "".
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

// targetRefused is llc's fatal error about the target and PTX ISA version
// themselves, when it exited with it (report_fatal_error, no abort), else "".
func targetRefused(r tool.Result) string {
	if r.TimedOut || r.Signal != "" {
		return ""
	}
	for _, line := range strings.Split(r.Output(), "\n") {
		if strings.HasPrefix(line, "LLVM ERROR: PTX version") && strings.Contains(line, "does not support target") {
			return line
		}
	}
	return ""
}

// unknownTarget reports llc refusing a processor or PTX version it does
// not know: the installation cannot judge the case's target.
func unknownTarget(r tool.Result) bool {
	out := r.Output()
	return strings.Contains(out, "is not a recognized processor") || strings.Contains(out, "is not a recognized feature")
}

// errorLines are the lines of a tool's output that say error (the rest
// is context: the offending line, notes), or the whole output when none
// does.
func errorLines(out string) string {
	var ls []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "error:") || strings.HasPrefix(l, "LLVM ERROR:") {
			ls = append(ls, strings.TrimSpace(l))
		}
	}
	if len(ls) == 0 {
		return strings.TrimSpace(out)
	}
	return strings.Join(ls, "\n")
}

// fn is the name of the function that holds the case's op.
const fn = "op"

// Verified is the case as mlir-opt verifies it: the op's function inside
// a gpu.module whose NVVM target is the case's (chip and PTX ISA version),
// so that the op's NVVMRequiresSM traits are checked against it.
func Verified(v nvvmop.Value) string {
	return fmt.Sprintf("gpu.module @m [#nvvm.target<chip = %q, features = \"+ptx%d\">] {\n%s}\n",
		v.Arch.Arch.String(), int(v.Arch.PTX), v.Generic(fn))
}

// Translated is the case as mlir-translate reads it: the op's function
// alone (a gpu.module does not translate to LLVM IR by itself; the
// verifier has seen it with its target).
func Translated(v nvvmop.Value) string { return v.Generic(fn) }

// VerifyArgs is mlir-opt's command line, reading the case from stdin.
func VerifyArgs() []string { return []string{"-", "-o", "/dev/null"} }

// TranslateArgs is mlir-translate's command line, stdin to stdout.
func TranslateArgs() []string { return []string{"--mlir-to-llvmir", "-", "-o", "-"} }

// LLCArgs is llc's command line for the case's target, stdin to stdout.
func LLCArgs(v nvvmop.Value) []string {
	return []string{"-march=nvptx64", "-mcpu=" + v.Arch.Arch.String(), fmt.Sprintf("-mattr=+ptx%d", int(v.Arch.PTX)), "-", "-o", "-"}
}
