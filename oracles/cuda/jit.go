package cuda

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/batch"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// JITResult is one module load: whether the JIT accepted it, the CUresult
// name when it did not, and its log. Crashed is a load that ended the
// process it ran in (the launch child).
type JITResult struct {
	OK      bool
	Code    string
	Log     string
	Crashed bool `json:",omitempty"`
}

// ModuleLoader JIT-compiles one PTX module; it is called from several
// goroutines at once. Its error is for harness failures (a lost context); a
// module the JIT refuses is a JITResult.
// The device implementation is cuModuleLoadDataEx; tests stand in ptxas.
type ModuleLoader interface {
	LoadModule(ctx context.Context, ptx string) (JITResult, error)
}

// newLoader starts a launch child to load modules in, or falls back to a
// context in this process.
func newLoader(ctx context.Context, dev *Device, opts GPUOptions) (ModuleLoader, error) {
	if child := startChild(ctx, dev, opts, "cuda-jit: loading modules in this process; a JIT crash will end it"); child != nil {
		return child, nil
	}
	c, err := dev.NewContext()
	if err != nil {
		return nil, err
	}
	return contextLoader{c}, nil
}

// contextLoader loads modules with cuModuleLoadDataEx in a context and
// unloads them at once.
type contextLoader struct{ c *Context }

func (l contextLoader) LoadModule(_ context.Context, text string) (JITResult, error) {
	var res JITResult
	err := l.c.Do(func() error {
		drv := l.c.dev.Driver
		mod, log, err := loadModule(drv, text)
		res.Log = log
		var de *Error
		switch {
		case err == nil:
			res.OK = true
			return drv.check("cuModuleUnload", drv.moduleUnload(mod))
		case errors.As(err, &de) && de.Call == "cuModuleLoadDataEx":
			res.Code = de.Name
			return nil
		}
		return err
	})
	return res, err
}

// JITOracle asks the driver's own PTX compiler (cuModuleLoadDataEx) about
// every domain package ptx renders: many entries per module, the JIT's
// error log as the diagnostic (normalized as ptxas's), batches split when
// the log does not say which entry failed.
type JITOracle struct {
	loader  ModuleLoader
	version string
	// sm is the device's compute capability; maxPTX the newest PTX ISA its
	// driver compiles.
	sm     int
	maxPTX target.PTX
	// BatchSize caps the entries of one module; zero means no cap.
	BatchSize int

	mu      sync.Mutex
	headers map[target.Target][]string
	history batch.History
}

// NewJITOracle makes the oracle over any loader, for a device of compute
// capability sm whose JIT knows PTX ISA versions up to maxPTX.
func NewJITOracle(l ModuleLoader, version string, sm int, maxPTX target.PTX) *JITOracle {
	return &JITOracle{loader: l, version: version, sm: sm, maxPTX: maxPTX, headers: map[target.Target][]string{}}
}

// DiscoverJIT opens device 0 and makes the cuda-jit oracle, or says why
// there is none. Modules load in a launch child (opts as for the gpu
// oracle), so a JIT that crashes on a module ends the child, not the worker.
func DiscoverJIT(ctx context.Context, opts GPUOptions) (*JITOracle, oracles.Status) {
	st := oracles.Status{Name: JITName, Domains: ptx.Domains()}
	dev, l, err := openDevice(func(dev *Device) (ModuleLoader, error) { return newLoader(ctx, dev, opts) })
	if err != nil {
		st.Reason, st.Install = err.Error(), Install
		return nil, st
	}
	o := NewJITOracle(l, Version(dev), dev.SM, MaxPTX(dev.Driver.Version))
	st.Available, st.Version, st.Path = true, o.version, dev.Driver.Path
	for _, name := range target.ArchNames() {
		if a, err := target.ParseArch(name); err == nil && Loadable(a, dev.SM) {
			st.Targets = append(st.Targets, name)
		}
	}
	return o, st
}

// driverPTX maps a driver version (1000*major + 10*minor) to the newest
// PTX ISA version its JIT compiles, newest first.
var driverPTX = []struct {
	version int
	ptx     target.PTX
}{
	{13000, 90}, {12090, 88}, {12080, 87}, {12050, 85}, {12040, 84}, {12030, 83},
	{12020, 82}, {12010, 81}, {12000, 80}, {11080, 78},
}

// MaxPTX is the newest PTX ISA version the JIT of driver version v
// compiles (a newer driver than the table knows gets the newest entry).
func MaxPTX(v int) target.PTX {
	for _, d := range driverPTX {
		if v >= d.version {
			return d.ptx
		}
	}
	return 70
}

// Loadable reports whether a device of compute capability sm runs PTX for
// target a: an sm_XXa target only on exactly that device, an sm_XXf target
// on its family (same major, minor at least XX's), a plain target on any
// device at least as new.
func Loadable(a target.Arch, sm int) bool {
	switch {
	case a.ArchSpecific():
		return a.SM == sm
	case a.FamilySpecific():
		return a.SM/10 == sm/10 && a.SM <= sm
	}
	return a.SM <= sm
}

// Name is "cuda-jit".
func (o *JITOracle) Name() string { return JITName }

// Version is the driver and device.
func (o *JITOracle) Version() string { return o.version }

// Judges reports whether package ptx renders the domain.
func (o *JITOracle) Judges(domainName string) bool { return ptx.Renders(domainName) }

// Close releases the loader's context, if it has one.
func (o *JITOracle) Close() error {
	if l, ok := o.loader.(contextLoader); ok {
		return l.c.Close()
	}
	return nil
}

// jitItem is one distinct case with its rendered entry.
type jitItem struct {
	c domain.Case
	e ptx.Entry
}

// Judge compiles the cases in one module per target and returns one
// verdict per case, in order: the batch engine runs the modules, the log's
// line numbers attribute the errors.
func (o *JITOracle) Judge(ctx context.Context, cases []domain.Case) ([]oracles.Verdict, error) {
	e := &batch.Engine[jitItem, jitModule, JITResult]{
		Oracle: JITName, Version: o.version, Tool: o,
		Options: batch.Options{MaxBatch: o.BatchSize, Mode: batch.ReportsAll},
		Gate:    o.gate, History: &o.history,
	}
	return e.Judge(ctx, cases)
}

// Prepare renders a case, or says why this device's JIT cannot judge it.
func (o *JITOracle) Prepare(c domain.Case) (batch.Prepared[jitItem], error) {
	if !ptx.Renders(c.Domain) {
		return batch.Prepared[jitItem]{}, ptx.Reasons.New("domain", "no-renderer", "no PTX renderer for domain %s", c.Domain)
	}
	t := c.Value.Target()
	if !Loadable(t.Arch, o.sm) {
		return batch.Prepared[jitItem]{}, ptx.Reasons.New("target", "not-loadable-on-device", "a sm_%d device does not load PTX for %s", o.sm, t.Arch)
	}
	if t.PTX > o.maxPTX {
		return batch.Prepared[jitItem]{}, ptx.Reasons.New("ptx", "beyond-jit", "this driver's JIT knows PTX ISA up to %s, not %s", o.maxPTX, t.PTX)
	}
	e, err := ptx.Render(c)
	if _, ok := oracles.AsNoSpelling(err); ok {
		return batch.Prepared[jitItem]{}, err
	}
	if err != nil {
		return batch.Prepared[jitItem]{}, fmt.Errorf("cuda-jit: %w", err)
	}
	expect, rule := o.history.Predict(c)
	return batch.Prepared[jitItem]{Item: jitItem{c, e}, Group: t.String(), Expect: expect, Rule: rule}, nil
}

// gate rejects every item of a target whose header the JIT refuses with
// the header's errors (see checkHeader).
func (o *JITOracle) gate(ctx context.Context, items []jitItem) ([]*batch.Outcome, error) {
	hdr, err := o.checkHeader(ctx, items[0].e.Target)
	if err != nil {
		return nil, err
	}
	out := make([]*batch.Outcome, len(items))
	if len(hdr) > 0 {
		for i := range out {
			out[i] = &batch.Outcome{Kind: oracles.Reject, Diagnostic: strings.Join(hdr, "\n")}
		}
	}
	return out, nil
}

// checkHeader loads an empty kernel under the target's header once for the
// life of the oracle: its errors, if any, are every case's of that target
// (see the ptxas oracle's probe for why they are judged apart).
func (o *JITOracle) checkHeader(ctx context.Context, t target.Target) ([]string, error) {
	o.mu.Lock()
	errs, ok := o.headers[t]
	o.mu.Unlock()
	if ok {
		return errs, nil
	}
	res, err := o.loader.LoadModule(ctx, ptx.Header(t)+"\n.visible .entry probe()\n{\n\tret;\n}\n")
	if err != nil {
		return nil, err
	}
	errs = []string{}
	if !res.OK {
		errs = parseJITLog(res.Log, ptx.LineTable{}, nil).stray
		if len(errs) == 0 {
			errs = []string{res.Code}
		}
	}
	o.mu.Lock()
	o.headers[t] = errs
	o.mu.Unlock()
	return errs, nil
}

// jitModule is one module to load, with where its entries are.
type jitModule struct {
	text  string
	table ptx.LineTable
	names map[string]int
}

// Render lays out items (one target) as one module.
func (o *JITOracle) Render(items []jitItem) (jitModule, error) {
	entries := make([]ptx.Entry, len(items))
	names := make(map[string]int, len(items))
	for i, it := range items {
		entries[i] = it.e
		names[it.e.Name] = i
	}
	text, table, err := ptx.Module(entries)
	if err != nil {
		return jitModule{}, fmt.Errorf("cuda-jit: %w", err)
	}
	return jitModule{text: text, table: table, names: names}, nil
}

// Run loads the module with the JIT.
func (o *JITOracle) Run(ctx context.Context, m jitModule) (JITResult, error) {
	return o.loader.LoadModule(ctx, m.text)
}

// Parse attributes the log's errors to entries: those it blames are
// rejected, a load that succeeds accepts the rest, and after a failed load
// the rest stays undecided; a failure the log attributes to no entry
// decides nothing.
func (o *JITOracle) Parse(m jitModule, res JITResult) batch.Report {
	rep := parseJITLog(res.Log, m.table, m.names)
	var r batch.Report
	if len(m.names) == 1 {
		r.Decide(0, o.single(res, rep))
		return r
	}
	if !res.OK && (len(rep.errs) == 0 || res.Crashed || crashed(res.Log)) {
		return r
	}
	for pos := range len(m.names) {
		switch {
		case len(rep.errs[pos]) > 0:
			r.Decide(pos, batch.Outcome{Kind: oracles.Reject, Diagnostic: strings.Join(rep.errs[pos], "\n")})
		case res.OK:
			r.Decide(pos, batch.Outcome{Kind: oracles.Accept})
		}
	}
	return r
}

// single is the outcome of a case compiled alone.
func (o *JITOracle) single(res JITResult, rep jitReport) batch.Outcome {
	if res.OK {
		return batch.Outcome{Kind: oracles.Accept}
	}
	if res.Crashed || crashed(res.Log) {
		return batch.Outcome{Kind: oracles.Error, Diagnostic: "JIT failed (" + res.Code + "): " + diag.Normalize(res.Log)}
	}
	errs := append(rep.errs[0], rep.stray...)
	if len(errs) == 0 {
		errs = []string{res.Code} // a refusal without a log, e.g. CUDA_ERROR_NO_BINARY_FOR_GPU
	}
	return batch.Outcome{Kind: oracles.Reject, Diagnostic: strings.Join(errs, "\n")}
}

// crashed reports an internal error of the JIT, which is a finding about it.
func crashed(log string) bool { return tool.Result{Stdout: []byte(log)}.Crashed() }

// jitLine matches one message of the JIT's embedded ptxas, e.g.
// "ptxas application ptx input, line 11; error   : MSG".
var jitLine = regexp.MustCompile(`^ptxas (?:(.*), line (\d+); )?(error|fatal|warning|info)\s*: (.*)$`)

// jitEntryRef finds an entry name quoted in a message.
var jitEntryRef = regexp.MustCompile(`'(case_[0-9a-f]+)'`)

// jitReport is a JIT log sorted by entry: error lines by entry index, and
// error lines that name none.
type jitReport struct {
	errs  map[int][]string
	stray []string
}

// parseJITLog attributes the error lines of a log to the module's entries
// through the line table, or by an entry name they quote (names maps entry
// symbols to indices). Warnings, info lines and the closing "aborted" line
// are dropped.
func parseJITLog(log string, table ptx.LineTable, names map[string]int) jitReport {
	r := jitReport{errs: map[int][]string{}}
	for _, line := range strings.Split(log, "\n") {
		m := jitLine.FindStringSubmatch(strings.TrimRight(line, "\r "))
		if m == nil || (m[3] != "error" && m[3] != "fatal") || m[4] == "Ptx assembly aborted due to errors" {
			continue
		}
		text := diag.Normalize(m[3] + "   : " + m[4])
		entry, ok := -1, false
		if m[2] != "" {
			n, _ := strconv.Atoi(m[2])
			entry, ok = table.Entry(n)
		} else if ref := jitEntryRef.FindStringSubmatch(m[4]); ref != nil {
			entry, ok = names[ref[1]]
		}
		if ok {
			r.errs[entry] = append(r.errs[entry], text)
		} else {
			r.stray = append(r.stray, text)
		}
	}
	return r
}
