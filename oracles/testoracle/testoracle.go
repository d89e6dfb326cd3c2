// Package testoracle is a fixed oracle for tests and benchmarks of the
// distribution layer (queue, workers, coordinator), never for campaigns: it
// gives every case the same verdict without looking at it, after a fixed
// latency, and can be told to hang, crash or fail on chosen cases. Its
// verdicts say nothing about legality; its version string says so.
package testoracle

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// ErrFailed is what Judge returns for a batch matched by Config.Fail: a
// failure of the harness, not a verdict about a case.
var ErrFailed = fmt.Errorf("testoracle: induced harness failure")

// Config sets up a FixedLatency oracle. Zero fields are documented per field.
type Config struct {
	// Name is the oracle's name. A test may borrow a real judge's name (e.g.
	// "ptxas") so that the agreement policies treat its verdicts as that
	// judge's; empty means "fixed".
	Name string
	// Latency is slept once per Judge call (per batch), or once per case when
	// PerCase is set; zero means no sleep. The sleep ends early, with the
	// context's error, when the context ends.
	Latency time.Duration
	PerCase bool
	// Domains are the domains it judges; empty means every domain.
	Domains []string
	// Kind is the verdict given to every case; empty means accept.
	Kind oracles.Kind
	// Diagnostic is the text of every verdict; empty means "fixed test
	// verdict". A long one floods results, as a verbose tool would.
	Diagnostic string
	// Hang, when it matches a case of a batch, makes Judge block without
	// watching its context (a hung tool that ignores cancellation) until
	// Release is called; nil never hangs.
	Hang func(domain.Case) bool
	// Crash marks the cases the "tool" crashes on: their verdict is Error
	// (the tool's failure, a finding), the rest of the batch is judged; nil
	// never crashes.
	Crash func(domain.Case) bool
	// Fail, when it matches a case of a batch, makes Judge return ErrFailed
	// for the whole batch (a harness failure); nil never fails.
	Fail func(domain.Case) bool
	// OnJudge, if set, is called at the start of every Judge call with the
	// batch, so a test knows when a worker holds one.
	OnJudge func(batch []domain.Case)
	// Sampled advertises the oracle as a sampled judge (oracles.Info.Sampled).
	Sampled bool
	// SampleOneIn advertises it as narrowed to a sample of one case in
	// SampleOneIn (oracles.Status.SampleOneIn); zero narrows nothing.
	SampleOneIn int
}

// FixedLatency is the fixed test oracle. It is safe for concurrent use.
type FixedLatency struct {
	cfg     Config
	release chan struct{}
	once    sync.Once
	batches atomic.Int64
	cases   atomic.Int64
}

// New makes a fixed test oracle.
func New(cfg Config) *FixedLatency {
	if cfg.Name == "" {
		cfg.Name = "fixed"
	}
	if cfg.Kind == "" {
		cfg.Kind = oracles.Accept
	}
	if cfg.Diagnostic == "" {
		cfg.Diagnostic = "fixed test verdict"
	}
	return &FixedLatency{cfg: cfg, release: make(chan struct{})}
}

// Name is the configured name.
func (o *FixedLatency) Name() string { return o.cfg.Name }

// Version says that this is a test oracle and what it does.
func (o *FixedLatency) Version() string {
	per := "batch"
	if o.cfg.PerCase {
		per = "case"
	}
	return fmt.Sprintf("testoracle %s after %s per %s", o.cfg.Kind, o.cfg.Latency, per)
}

// Judges reports whether domainName is among the configured domains.
func (o *FixedLatency) Judges(domainName string) bool {
	return len(o.cfg.Domains) == 0 || slices.Contains(o.cfg.Domains, domainName)
}

// Status is what a worker advertises for this oracle; domains lists the
// domains it offers (the configured ones when set).
func (o *FixedLatency) Status(domains ...string) oracles.Status {
	if len(o.cfg.Domains) > 0 {
		domains = o.cfg.Domains
	}
	return oracles.Status{Name: o.Name(), Version: o.Version(), Available: true, Domains: domains, Sampled: o.cfg.Sampled,
		SampleOneIn: o.cfg.SampleOneIn}
}

// Release unblocks every hung Judge call, now and later.
func (o *FixedLatency) Release() { o.once.Do(func() { close(o.release) }) }

// Batches counts Judge calls; Cases counts the cases they were given.
func (o *FixedLatency) Batches() int64 { return o.batches.Load() }

// Cases counts the cases given to Judge.
func (o *FixedLatency) Cases() int64 { return o.cases.Load() }

// Judge sleeps the latency and gives every case the configured verdict,
// or hangs, crashes or fails as configured.
func (o *FixedLatency) Judge(ctx context.Context, cases []domain.Case) ([]oracles.Verdict, error) {
	o.batches.Add(1)
	o.cases.Add(int64(len(cases)))
	if o.cfg.OnJudge != nil {
		o.cfg.OnJudge(cases)
	}
	if o.cfg.Hang != nil && slices.ContainsFunc(cases, o.cfg.Hang) {
		<-o.release // deliberately deaf to ctx: the worker must bound this
		return nil, fmt.Errorf("testoracle: released from a hang")
	}
	if o.cfg.Fail != nil && slices.ContainsFunc(cases, o.cfg.Fail) {
		return nil, ErrFailed
	}
	if !o.cfg.PerCase {
		if err := sleep(ctx, o.cfg.Latency); err != nil {
			return nil, err
		}
	}
	out := make([]oracles.Verdict, len(cases))
	for i, c := range cases {
		if o.cfg.PerCase {
			if err := sleep(ctx, o.cfg.Latency); err != nil {
				return nil, err
			}
		}
		v := oracles.Verdict{Oracle: o.Name(), Version: o.Version(), Case: c.ID, Domain: c.Domain, Kind: o.cfg.Kind,
			Rule: "testoracle." + string(o.cfg.Kind), Diagnostic: o.cfg.Diagnostic}
		switch {
		case !o.Judges(c.Domain):
			v.Kind, v.Rule, v.Diagnostic = oracles.Unsupported, "", "testoracle: domain "+c.Domain+" not configured"
		case o.cfg.Crash != nil && o.cfg.Crash(c):
			v.Kind, v.Rule, v.Diagnostic = oracles.Error, "", "testoracle: induced tool crash (signal 11)"
		}
		out[i] = v
	}
	return out, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
