package mlir

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// PassesName is the base of the pass judges' names: MLIR's GPU passes
// beyond the lowering the mlir oracles judge, one at a time.
const PassesName = oracles.MLIRPasses

// Passes is the GPU passes a compiler built on MLIR runs that the mlir
// oracle's Pipeline does not: the optimizations before the lowering, each
// on the case as rendered, and the end of the default GPU pipeline
// (gpu-lower-to-nvvm-pipeline), each on the previous one's output after
// Pipeline: the host's GPU calls to LLVM, and the gpu.module to PTX by
// MLIR's own NVPTX serialization. Each pass runs alone with the verifier
// off and its output is verified in a run of its own, so a pass that
// leaves IR the verifier rejects is told from a pass that refuses.
type Passes struct {
	o    *Oracle
	name string
	// before run on the rendering, after on Pipeline's output in order;
	// both hold the passes this release has.
	before, after []string
}

// passesBefore are the optimizations a GPU compiler may run on nvgpu IR.
// gpu-eliminate-barriers is not among them: it runs on func.func only, and
// the kernels are gpu.func.
var passesBefore = []string{"nvgpu-optimize-shared-memory", "fold-memref-alias-ops", "gpu-decompose-memrefs",
	"gpu-launch-sink-index-computations", "canonicalize", "cse"}

// passesAfter ends the default GPU pipeline after Pipeline's passes.
var passesAfter = []string{"gpu-to-llvm", "gpu-module-to-binary{format=isa}"}

// DiscoverPasses finds an installation's pass judge, mlir-passes@LABEL:
// its mlir-opt and the passes its --help lists.
func DiscoverPasses(ctx context.Context, in toolchain.Installation) (*Passes, oracles.Status) {
	name := oracles.Installed(PassesName, in.Label)
	o, st := Discover(ctx, in)
	st.Name = name
	if o == nil {
		return nil, st
	}
	res, err := o.Opt.Run(ctx, o.timeout(), nil, "--help")
	if err != nil {
		st.Available, st.Reason = false, fmt.Sprintf("%s --help: %v", o.Opt.Path, err)
		return nil, st
	}
	help := string(res.Stdout)
	p := &Passes{o: o, name: name, before: listed(help, passesBefore), after: listed(help, passesAfter)}
	st.Version = p.Version()
	return p, st
}

// Installation is the installation the judge runs (toolchain.Installed).
func (p *Passes) Installation() toolchain.Installation { return p.o.inst }

// listed keeps the passes whose flag --help lists.
func listed(help string, passes []string) []string {
	var out []string
	for _, p := range passes {
		flag, _, _ := strings.Cut(p, "{")
		if strings.Contains(help, "--"+flag+" ") {
			out = append(out, p)
		}
	}
	return out
}

// Name implements oracles.Oracle.
func (p *Passes) Name() string { return p.name }

// Version names mlir-opt's version and the passes run.
func (p *Passes) Version() string {
	return "mlir-opt " + p.o.Opt.Version + " passes " + strings.Join(append(slices.Clone(p.before), p.after...), ",")
}

// Judges reports whether the release renders the domain.
func (p *Passes) Judges(domainName string) bool { return p.o.Judges(domainName) }

// Judge runs the passes before the lowering as one group, then Pipeline,
// then the passes after it as one group on Pipeline's output: three runs per
// batch, and only a case a group fails on is looked at pass by pass. A
// case MLIR's verifier refuses, or Pipeline does not lower, is the mlir
// oracle's verdict and Unsupported here (when no pass before failed on
// it), and the passes after the lowering judge only cases the mlir
// oracle's whole chain accepts (verifier, Pipeline, mlir-translate,
// llvm-link, llc, ptxas): a pass after it failing on IR that chain refuses
// or crashes on would report that root cause again. A case's verdict is
// the worst a pass gave it: a crash, a hang, IR the verifier rejects, an
// error printed at exit status 0 (each an Error or Timeout naming the
// pass), then a refusal in the pass's own words (Reject); Accept when
// every pass ran.
func (p *Passes) Judge(ctx context.Context, cases []domain.Case) ([]oracles.Verdict, error) {
	out, jobs, err := p.o.prepare(cases)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Oracle, out[i].Version = p.name, p.Version()
	}
	for _, j := range jobs {
		j.v.Kind = oracles.Accept
	}
	before, err := p.failing(ctx, wrap([]string{strings.Join(p.before, ",")})[0], jobs, texts(jobs))
	if err != nil {
		return nil, err
	}
	var after, unlowered []*job
	if p.o.Lower != nil && len(p.after) > 0 {
		lowered, outs, failed, err := p.pipeline(ctx, jobs)
		if err != nil {
			return nil, err
		}
		unlowered = failed
		if after, err = p.failing(ctx, wrap([]string{strings.Join(p.after, ",")})[0], lowered, outs); err != nil {
			return nil, err
		}
	}
	if err := p.attribute(ctx, before, after); err != nil {
		return nil, err
	}
	for _, j := range unlowered {
		if j.v.Kind == oracles.Accept {
			j.v.Unsupported(reasons.New("verdict", "mlir-lowering", "Pipeline does not lower the case: the mlir oracle's verdict"))
		}
	}
	return dedupe(cases, out), nil
}

// pipeline lowers the jobs with Pipeline, which the mlir oracle judges:
// the jobs it lowered with their output, and the others.
func (p *Passes) pipeline(ctx context.Context, jobs []*job) (lowered []*job, outs []string, failed []*job, err error) {
	res, err := p.o.runSplit(ctx, stage{name: stageLowering, tool: p.o.Opt,
		args: []string{timingFlag, "--pass-pipeline=" + Pipeline}, marker: SplitMarker}, texts(jobs))
	if err != nil {
		return nil, nil, nil, err
	}
	for i, j := range jobs {
		if res[i].outcome != passed {
			failed = append(failed, j)
			continue
		}
		lowered, outs = append(lowered, j), append(outs, res[i].out)
	}
	return lowered, outs, failed, nil
}

// failing runs a pipeline over the texts (one per job) and returns the
// jobs it did not pass.
func (p *Passes) failing(ctx context.Context, pipeline string, jobs []*job, ts []string) ([]*job, error) {
	res, err := p.o.runSplit(ctx, stage{name: "passes", tool: p.o.Opt, args: []string{timingFlag, "--pass-pipeline=" + pipeline}}, ts)
	if err != nil {
		return nil, err
	}
	var bad []*job
	for i, j := range jobs {
		if res[i].outcome != passed {
			bad = append(bad, j)
		}
	}
	return bad, nil
}

// attribute runs the failing groups pass by pass on the cases the verifier
// accepts, the passes after the lowering only where the mlir chain accepts.
func (p *Passes) attribute(ctx context.Context, before, after []*job) error {
	suspects := slices.Clone(before)
	for _, j := range after {
		if !slices.Contains(before, j) {
			suspects = append(suspects, j)
		}
	}
	if len(suspects) == 0 {
		return nil
	}
	if err := p.o.verify(ctx, suspects); err != nil {
		return err
	}
	refused := unjudged(suspects, "mlir-verify", "MLIR's verifier")
	var lower []*job
	for _, j := range after {
		if !refused[j] {
			lower = append(lower, j)
		}
	}
	if err := p.o.lower(ctx, lower); err != nil {
		return err
	}
	chainFailed := unjudged(lower, "mlir-chain", "the mlir oracle's lowering chain")
	for _, j := range suspects {
		if !refused[j] && !chainFailed[j] {
			j.v.Kind, j.v.Rule, j.v.Diagnostic, j.v.Value = oracles.Accept, "", "", ""
		}
	}
	judged := keep(before, refused)
	if err := p.chain(ctx, p.before, judged, texts(judged)); err != nil {
		return err
	}
	lowered, outs, _, err := p.pipeline(ctx, keep(after, refused, chainFailed))
	if err != nil {
		return err
	}
	return p.chain(ctx, p.after, lowered, outs)
}

// unjudged makes the jobs a stage of the mlir oracle did not accept
// Unsupported, deferred to that verdict (class names the stage, by in
// words), and returns them.
func unjudged(jobs []*job, class, by string) map[*job]bool {
	out := map[*job]bool{}
	for _, j := range jobs {
		if j.v.Kind != oracles.Accept {
			out[j] = true
			j.v.Unsupported(reasons.New("verdict", class, "%s does not pass the case (%s %s: the mlir oracle's verdict)", by, j.v.Kind, j.v.Rule))
		}
	}
	return out
}

// keep returns the jobs none of the sets holds.
func keep(jobs []*job, sets ...map[*job]bool) []*job {
	var out []*job
	for _, j := range jobs {
		if !slices.ContainsFunc(sets, func(s map[*job]bool) bool { return s[j] }) {
			out = append(out, j)
		}
	}
	return out
}

// chain runs the passes one at a time on the texts (one per job), each on
// the previous one's output.
func (p *Passes) chain(ctx context.Context, passes []string, jobs []*job, ts []string) error {
	var err error
	for _, pass := range passes {
		if jobs, ts, err = p.run(ctx, pass, jobs, ts); err != nil {
			return err
		}
	}
	return nil
}

// run runs one pass on the texts (one per job), verifies what it wrote,
// records the worst outcome in each job's verdict, and returns the jobs
// the pass and the verifier passed with the pass's output.
func (p *Passes) run(ctx context.Context, pass string, jobs []*job, ts []string) ([]*job, []string, error) {
	st := stage{name: passStage(pass), tool: p.o.Opt, marker: SplitMarker,
		args: []string{timingFlag, "--verify-each=false", "--pass-pipeline=" + wrap([]string{pass})[0]}}
	res, err := p.o.runSplit(ctx, st, ts)
	if err != nil {
		return nil, nil, err
	}
	var done []*job
	var outs []string
	for i, j := range jobs {
		if res[i].outcome != passed {
			worsen(j.v, st.name, res[i])
			continue
		}
		done, outs = append(done, j), append(outs, res[i].out)
	}
	vres, err := p.o.runSplit(ctx, stage{name: stageVerify, tool: p.o.Opt, args: []string{timingFlag}}, outs)
	if err != nil {
		return nil, nil, err
	}
	var kept []*job
	var keptOuts []string
	for i, j := range done {
		if vres[i].outcome == passed {
			kept, keptOuts = append(kept, j), append(keptOuts, outs[i])
			continue
		}
		worsen(j.v, oracles.Stage{Name: st.name, Fault: oracles.InvalidIR}.String(),
			chunkResult{outcome: crashed, diag: st.prefix() + "left IR the verifier rejects: " + vres[i].diag})
	}
	return kept, keptOuts, nil
}

// severity orders verdict kinds from best to worst for worsen.
var severity = map[oracles.Kind]int{oracles.Accept: 0, oracles.Reject: 1, oracles.Timeout: 2, oracles.Error: 3}

// worsen records a pass's result on a case when it is worse than what an
// earlier pass gave: the first crash is the one reported. An error printed
// at exit status 0 is a crash of the pass.
func worsen(v *oracles.Verdict, rule string, r chunkResult) {
	var next oracles.Verdict
	setVerdict(&next, rule, r)
	if strings.HasSuffix(next.Diagnostic, exitZeroNote) {
		next.Kind, next.Rule = oracles.Error, oracles.Stage{Name: rule, Fault: oracles.ExitZero}.String()
	}
	if severity[next.Kind] > severity[v.Kind] {
		v.Kind, v.Rule, v.Diagnostic = next.Kind, next.Rule, next.Diagnostic
	}
}

// PassReplay is how a reproducer replays a pass judge's verdict by hand.
type PassReplay struct {
	// Release is the mlir oracle whose tools and rendering the judge uses.
	Release string
	// Before are the pipelines that bring the rendering to the pass's
	// input, in order, each with the verifier on; Pass runs last, alone,
	// with the verifier off.
	Before []string
	Pass   string
}

// ReplayOf says how to replay the named pass judge's run of pass; false
// for any other oracle or a pass the judge does not run.
func ReplayOf(oracle, pass string) (PassReplay, bool) {
	if !IsPassJudge(oracle) {
		return PassReplay{}, false
	}
	release := oracles.Installed(Name, oracles.Label(oracle))
	for i, p := range passesBefore {
		if p == pass {
			return PassReplay{Release: release, Before: wrap(passesBefore[:i]), Pass: wrap([]string{p})[0]}, true
		}
	}
	for i, p := range passesAfter {
		if p == pass {
			return PassReplay{Release: release, Before: append([]string{Pipeline}, wrap(passesAfter[:i])...), Pass: wrap([]string{p})[0]}, true
		}
	}
	return PassReplay{}, false
}

// wrap spells each pass as a pipeline of its own.
func wrap(passes []string) []string {
	out := make([]string, len(passes))
	for i, p := range passes {
		out[i] = "builtin.module(" + p + ")"
	}
	return out
}

// IsPassJudge reports whether the oracle is one of the pass judges.
func IsPassJudge(oracle string) bool { return oracles.Matches(PassesName, oracle) }
