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
	"github.com/legalfuzz/legalfuzz/oracles/diag"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// JITResult is one module load: whether the JIT accepted it, the CUresult
// name when it did not, and its log.
type JITResult struct {
	OK   bool
	Code string
	Log  string
}

// ModuleLoader JIT-compiles one PTX module. Its error is for harness
// failures (a lost context); a module the JIT refuses is a JITResult.
// The device implementation is cuModuleLoadDataEx; tests stand in ptxas.
type ModuleLoader interface {
	LoadModule(ctx context.Context, ptx string) (JITResult, error)
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
}

// NewJITOracle makes the oracle over any loader, for a device of compute
// capability sm whose JIT knows PTX ISA versions up to maxPTX.
func NewJITOracle(l ModuleLoader, version string, sm int, maxPTX target.PTX) *JITOracle {
	return &JITOracle{loader: l, version: version, sm: sm, maxPTX: maxPTX, headers: map[target.Target][]string{}}
}

// DiscoverJIT opens device 0 and makes the cuda-jit oracle, or says why
// there is none.
func DiscoverJIT(ctx context.Context) (*JITOracle, oracles.Status) {
	st := oracles.Status{Name: JITName, Domains: ptx.Domains()}
	dev, err := Open(0)
	if err != nil {
		st.Reason, st.Install = err.Error(), Install
		return nil, st
	}
	c, err := dev.NewContext()
	if err != nil {
		st.Reason, st.Install = err.Error(), Install
		return nil, st
	}
	o := NewJITOracle(contextLoader{c}, Version(dev), dev.SM, MaxPTX(dev.Driver.Version))
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
// verdict per case, in order.
func (o *JITOracle) Judge(ctx context.Context, cases []domain.Case) ([]oracles.Verdict, error) {
	out := make([]oracles.Verdict, len(cases))
	index := map[string][]int{}
	groups := map[target.Target][]jitItem{}
	var order []target.Target
	for i, c := range cases {
		if seen := index[c.ID]; len(seen) > 0 {
			index[c.ID] = append(seen, i)
			continue
		}
		index[c.ID] = []int{i}
		it, reason, err := o.prepare(c)
		if err != nil {
			return nil, err
		}
		if reason != "" {
			out[i] = o.verdict(c, oracles.Unsupported, reason)
			continue
		}
		if _, ok := groups[it.e.Target]; !ok {
			order = append(order, it.e.Target)
		}
		groups[it.e.Target] = append(groups[it.e.Target], it)
	}
	for _, t := range order {
		vs, err := o.judgeGroup(ctx, groups[t])
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			out[index[v.Case][0]] = v
		}
	}
	for _, is := range index { // a repeated case has its first verdict
		for _, i := range is[1:] {
			out[i] = out[is[0]]
		}
	}
	return out, nil
}

// prepare renders a case, or says why this device's JIT cannot judge it.
func (o *JITOracle) prepare(c domain.Case) (jitItem, string, error) {
	if !ptx.Renders(c.Domain) {
		return jitItem{}, "no PTX renderer for domain " + c.Domain, nil
	}
	if c.Value == nil {
		return jitItem{}, "", fmt.Errorf("cuda-jit: case %s has no value", c.ID)
	}
	t := c.Value.Target()
	if !Loadable(t.Arch, o.sm) {
		return jitItem{}, fmt.Sprintf("a sm_%d device does not load PTX for %s", o.sm, t.Arch), nil
	}
	if t.PTX > o.maxPTX {
		return jitItem{}, fmt.Sprintf("this driver's JIT knows PTX ISA up to %s, not %s", o.maxPTX, t.PTX), nil
	}
	e, err := ptx.Render(c)
	if errors.Is(err, ptx.ErrNoSpelling) {
		return jitItem{}, err.Error(), nil
	}
	if err != nil {
		return jitItem{}, "", fmt.Errorf("cuda-jit: %w", err)
	}
	return jitItem{c, e}, "", nil
}

func (o *JITOracle) verdict(c domain.Case, kind oracles.Kind, diag string) oracles.Verdict {
	return oracles.Verdict{Oracle: JITName, Version: o.version, Case: c.ID, Domain: c.Domain, Kind: kind, Diagnostic: diag}
}

// judgeGroup judges the items of one target: a header the JIT refuses
// rejects them all alike; otherwise they are compiled in chunks.
func (o *JITOracle) judgeGroup(ctx context.Context, items []jitItem) ([]oracles.Verdict, error) {
	hdr, err := o.checkHeader(ctx, items[0].e.Target)
	if err != nil {
		return nil, err
	}
	var out []oracles.Verdict
	if len(hdr) > 0 {
		for _, it := range items {
			out = append(out, o.verdict(it.c, oracles.Reject, strings.Join(hdr, "\n")))
		}
		return out, nil
	}
	for len(items) > 0 {
		n := len(items)
		if o.BatchSize > 0 {
			n = min(n, o.BatchSize)
		}
		vs, err := o.judgeItems(ctx, items[:n])
		if err != nil {
			return nil, err
		}
		out, items = append(out, vs...), items[n:]
	}
	return out, nil
}

// checkHeader loads an empty kernel under the target's header once: its
// errors, if any, are every case's of that target (see the ptxas oracle's
// probe for why they are judged apart).
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

// judgeItems compiles items until each has a verdict: entries the log
// blames are rejected and leave, the rest are compiled again until the JIT
// accepts them; a failure the log attributes to no entry splits the batch.
func (o *JITOracle) judgeItems(ctx context.Context, items []jitItem) ([]oracles.Verdict, error) {
	var out []oracles.Verdict
	for len(items) > 0 {
		entries := make([]ptx.Entry, len(items))
		for i, it := range items {
			entries[i] = it.e
		}
		text, table, err := ptx.Module(entries)
		if err != nil {
			return nil, fmt.Errorf("cuda-jit: %w", err)
		}
		res, err := o.loader.LoadModule(ctx, text)
		if err != nil {
			return nil, err
		}
		names := make(map[string]int, len(items))
		for i, it := range items {
			names[it.e.Name] = i
		}
		rep := parseJITLog(res.Log, table, names)
		if len(items) == 1 {
			return append(out, o.single(items[0].c, res, rep)), nil
		}
		if !res.OK && (len(rep.errs) == 0 || crashed(res.Log)) {
			half := len(items) / 2
			for _, part := range [][]jitItem{items[:half], items[half:]} {
				vs, err := o.judgeItems(ctx, part)
				if err != nil {
					return nil, err
				}
				out = append(out, vs...)
			}
			return out, nil
		}
		var rest []jitItem
		for i, it := range items {
			switch {
			case len(rep.errs[i]) > 0:
				out = append(out, o.verdict(it.c, oracles.Reject, strings.Join(rep.errs[i], "\n")))
			case res.OK:
				out = append(out, o.verdict(it.c, oracles.Accept, ""))
			default:
				rest = append(rest, it)
			}
		}
		items = rest
	}
	return out, nil
}

// single is the verdict on a case compiled alone.
func (o *JITOracle) single(c domain.Case, res JITResult, rep jitReport) oracles.Verdict {
	if res.OK {
		return o.verdict(c, oracles.Accept, "")
	}
	if crashed(res.Log) {
		return o.verdict(c, oracles.Error, "JIT failed ("+res.Code+"): "+diag.Normalize(res.Log))
	}
	errs := append(rep.errs[0], rep.stray...)
	if len(errs) == 0 {
		errs = []string{res.Code} // a refusal without a log, e.g. CUDA_ERROR_NO_BINARY_FOR_GPU
	}
	return o.verdict(c, oracles.Reject, strings.Join(errs, "\n"))
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
