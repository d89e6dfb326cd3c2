package cuda

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/matdesc"
	"github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// GPUOracle runs cases on the hardware and compares what it observes with
// what legalfuzz predicts from the case alone:
//
//   - tmadesc: tiled TMA loads of the descriptor's box (at the origin and
//     half out of bounds below and above) land in shared memory exactly as
//     ExpectTile says, swizzle and out-of-bounds fill included;
//   - ldsm: ldmatrix/stmatrix .m8n8 .b16 move each lane's fragment as
//     ExpectLDSM says, at the case's shared-memory alignment;
//   - matdesc: wgmma m64n8k16 with the case's descriptor as A and B computes
//     the product ExpectWGMMA gathers through the descriptor.
//
// Verdicts: accept (the hardware did what the prediction says; Value is a
// hash of the observed data), reject (the kernel faulted: the fault's name
// is the diagnostic), timeout (a bounded wait in the kernel ran out), result
// (the kernel ran and the data differs from the prediction, or there is no
// prediction: Value hashes what was observed, Diagnostic says where it
// differs), unsupported (the case is not one the checks can run here).
// Many cases share a launch; a launch that faults is split until the
// faulting case is alone.
type GPUOracle struct {
	dev  *Device
	exec Executor
	// AnyTarget judges cases of every target on this device (see
	// DriverOracle.AnyTarget).
	AnyTarget bool
}

// GPUOptions configure DiscoverGPU.
type GPUOptions struct {
	// InProcess runs kernels in this process instead of a child process.
	// The default (false) re-runs this executable as a launch server (see
	// ServeChildIfAsked) and falls back to in-process launches, with a
	// warning, when the executable does not serve.
	InProcess bool
	// ChildCommand overrides the child's argv (tests pass the test binary).
	ChildCommand []string
}

// DiscoverGPU opens device 0 and makes the gpu oracle, or says why there
// is none.
func DiscoverGPU(ctx context.Context, opts GPUOptions) (*GPUOracle, oracles.Status) {
	st := oracles.Status{Name: GPUName, Domains: []string{tmadesc.Name, ldsm.Name, matdesc.Name}}
	dev, ex, err := openDevice(func(dev *Device) (Executor, error) { return newExecutor(ctx, dev, opts) })
	if err != nil {
		st.Reason, st.Install = err.Error(), Install
		return nil, st
	}
	st.Available, st.Version, st.Path, st.Targets = true, Version(dev), dev.Driver.Path, deviceTargets(dev)
	return NewGPUOracle(dev, ex), st
}

// newExecutor starts a launch child, or falls back to this process.
func newExecutor(ctx context.Context, dev *Device, opts GPUOptions) (Executor, error) {
	if child := startChild(ctx, dev, opts, "gpu oracle: running kernels in this process; a kernel fault will end its GPU checks"); child != nil {
		return child, nil
	}
	return NewDeviceExecutor(dev)
}

// startChild starts the launch child opts ask for; nil when they ask for
// none or it does not start, which is logged with fallback, what the
// caller does instead.
func startChild(ctx context.Context, dev *Device, opts GPUOptions, fallback string) *ChildExecutor {
	if opts.InProcess {
		return nil
	}
	child := &ChildExecutor{Command: opts.ChildCommand, Ordinal: dev.Ordinal}
	if _, _, err := child.Start(ctx); err != nil {
		slog.Warn(fallback, "reason", err)
		return nil
	}
	return child
}

// NewGPUOracle makes the oracle over any executor for device dev.
func NewGPUOracle(dev *Device, ex Executor) *GPUOracle { return &GPUOracle{dev: dev, exec: ex} }

// Name is "gpu".
func (o *GPUOracle) Name() string { return GPUName }

// Version is the driver and device.
func (o *GPUOracle) Version() string { return Version(o.dev) }

// Judges reports whether the oracle has a check for the domain.
func (o *GPUOracle) Judges(d string) bool {
	return d == tmadesc.Name || d == ldsm.Name || d == matdesc.Name
}

// Close stops the executor.
func (o *GPUOracle) Close() error { return o.exec.Close() }

// gpuItem is one distinct case with its plan.
type gpuItem struct {
	c    domain.Case
	plan any
}

// check is one kind of hardware check: it plans a case (or says why it
// cannot run it), builds one launch for many planned items, and reads each
// item's verdict from the launch's result.
type check interface {
	// plan's error is an *oracles.NoSpelling of Reasons for a case the
	// check cannot run, any other error a harness bug.
	plan(o *GPUOracle, c domain.Case) (plan any, err error)
	// build returns the launch and, per MapPatch, the item it belongs to.
	build(o *GPUOracle, items []gpuItem) (Launch, []int, error)
	read(o *GPUOracle, items []gpuItem, res LaunchResult) []oracles.Verdict
	// group names the kernel a plan needs: only items of one group share a
	// launch.
	group(plan any) string
	// batch caps the items of one launch.
	batch() int
}

func (o *GPUOracle) checkFor(domainName string) check {
	switch domainName {
	case tmadesc.Name:
		return tmaCheck{}
	case ldsm.Name:
		return ldsmCheck{}
	case matdesc.Name:
		return wgmmaCheck{}
	}
	return nil
}

// Judge runs the cases, many per launch, and returns one verdict per case.
func (o *GPUOracle) Judge(ctx context.Context, cases []domain.Case) ([]oracles.Verdict, error) {
	out := make([]oracles.Verdict, len(cases))
	index := map[string][]int{}
	type groupKey struct{ domain, group string }
	groups := map[groupKey][]gpuItem{}
	var order []groupKey
	for i, c := range cases {
		if seen := index[c.ID]; len(seen) > 0 {
			index[c.ID] = append(seen, i)
			continue
		}
		index[c.ID] = []int{i}
		k := o.checkFor(c.Domain)
		if k == nil {
			out[i] = o.unsupported(c, Reasons.New("domain", "no-hardware-check", "no hardware check for domain %s", c.Domain))
			continue
		}
		p, err := k.plan(o, c)
		if ns, ok := oracles.AsNoSpelling(err); ok {
			out[i] = o.unsupported(c, ns)
			continue
		}
		if err != nil {
			return nil, err
		}
		g := groupKey{c.Domain, k.group(p)}
		if groups[g] == nil {
			order = append(order, g)
		}
		groups[g] = append(groups[g], gpuItem{c, p})
	}
	for _, g := range order {
		k, items := o.checkFor(g.domain), groups[g]
		for len(items) > 0 {
			n := min(len(items), k.batch())
			vs, err := o.run(ctx, k, items[:n])
			if err != nil {
				return nil, err
			}
			for _, v := range vs {
				out[index[v.Case][0]] = v
			}
			items = items[n:]
		}
	}
	for _, is := range index {
		for _, i := range is[1:] {
			out[i] = out[is[0]]
		}
	}
	return out, nil
}

// run launches items together: encoder refusals leave as unsupported and
// the rest run again; a fault splits the items until it is one case's.
func (o *GPUOracle) run(ctx context.Context, k check, items []gpuItem) ([]oracles.Verdict, error) {
	l, owners, err := k.build(o, items)
	if err != nil {
		return nil, err
	}
	res, err := o.exec.Run(ctx, l)
	if err != nil {
		return nil, fmt.Errorf("gpu: %w", err)
	}
	if res.mapFailed() {
		var out []oracles.Verdict
		refused := map[int]string{}
		for m, name := range res.MapErrors {
			if name != "" && refused[owners[m]] == "" {
				refused[owners[m]] = name
			}
		}
		var rest []gpuItem
		for i, it := range items {
			if name, ok := refused[i]; ok {
				out = append(out, o.unsupported(it.c, Reasons.New("tensormap", "driver-refused", "the driver refused its tensor map: %s", name)))
			} else {
				rest = append(rest, it)
			}
		}
		if len(rest) == 0 {
			return out, nil
		}
		vs, err := o.run(ctx, k, rest)
		return append(out, vs...), err
	}
	if res.Ran() {
		return k.read(o, items, res), nil
	}
	if len(items) == 1 {
		if res.TimedOut {
			return []oracles.Verdict{o.verdict(items[0].c, oracles.Timeout, res.FaultText, "")}, nil
		}
		return []oracles.Verdict{o.verdict(items[0].c, oracles.Reject, faultDiag(res), "")}, nil
	}
	half := len(items) / 2
	out, err := o.run(ctx, k, items[:half])
	if err != nil {
		return nil, err
	}
	vs, err := o.run(ctx, k, items[half:])
	return append(out, vs...), err
}

// faultDiag is a fault's stable diagnostic: its error name (the text only
// says the same in words).
func faultDiag(res LaunchResult) string { return res.Fault }

func (o *GPUOracle) verdict(c domain.Case, kind oracles.Kind, diag, value string) oracles.Verdict {
	return oracles.Verdict{Oracle: GPUName, Version: o.Version(), Case: c.ID, Domain: c.Domain, Kind: kind,
		Diagnostic: diag, Value: value}
}

// observed is the verdict on data a kernel produced: accept when every part
// matched its prediction (mismatches empty), else result with the first
// mismatch. Value hashes the data either way.
func (o *GPUOracle) observed(c domain.Case, data [][]byte, mismatches []string) oracles.Verdict {
	h := sha256.New()
	for _, d := range data {
		h.Write(d)
	}
	value := "sha256:" + hex.EncodeToString(h.Sum(nil)[:16])
	if len(mismatches) == 0 {
		return o.verdict(c, oracles.Accept, "", value)
	}
	return o.verdict(c, oracles.Result, strings.Join(mismatches, "; "), value)
}

// unsupported is the verdict on a case the oracle does not run.
func (o *GPUOracle) unsupported(c domain.Case, ns *oracles.NoSpelling) oracles.Verdict {
	v := o.verdict(c, oracles.Unsupported, "", "")
	v.Unsupported(ns)
	return v
}

// unpredicted is a case that ran without a fault but whose data legalfuzz
// does not predict: the oracle cannot judge it (unsupported, with why), and
// the value still tells what the hardware did.
func (o *GPUOracle) unpredicted(c domain.Case, data [][]byte, ns *oracles.NoSpelling) oracles.Verdict {
	v := o.observed(c, data, nil)
	v.Unsupported(ns)
	return v
}

// errWrongType is a value of another domain's type: a harness bug.
func errWrongType(domainName string, v domain.Value) error {
	return fmt.Errorf("gpu: value of type %T is not a %s value", v, domainName)
}

// notPredicted turns ErrNotPredicted into an unsupported reason and passes
// other errors on.
func notPredicted(err error) error {
	if errors.Is(err, ErrNotPredicted) {
		return Reasons.New("value", "not-predicted", "%s", err)
	}
	return err
}
