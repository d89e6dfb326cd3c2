// Package exec is the exec:NAME oracle: a user's own verifier, run as a
// long-lived child process that speaks the legalfuzz-exec/1 JSON-lines
// protocol on stdin/stdout (docs/exec-oracle.md). A verifier that hangs,
// crashes or breaks the protocol costs the cases of one batch a timeout or
// error verdict, and is killed and restarted before the next batch.
package exec

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Options tune an exec oracle. Zero fields take the defaults.
type Options struct {
	// HelloTimeout bounds the wait for the hello line at each start; zero
	// means 10 s.
	HelloTimeout time.Duration
	// BatchTimeout bounds the wait for one batch's answer; zero means 60 s.
	BatchTimeout time.Duration
	// BatchSize caps the cases sent in one request; zero sends all the cases
	// of a Judge call in one request, 1 judges case by case.
	BatchSize int
	// StderrTail is how many bytes of the verifier's stderr a crash
	// diagnostic keeps; zero means 4096.
	StderrTail int
	// Logger receives restart logs; nil means slog.Default().
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.HelloTimeout <= 0 {
		o.HelloTimeout = 10 * time.Second
	}
	if o.BatchTimeout <= 0 {
		o.BatchTimeout = 60 * time.Second
	}
	if o.StderrTail <= 0 {
		o.StderrTail = 4096
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Install is the hint shown when a verifier cannot be started.
const Install = "fix the command given for this exec oracle; the verifier must speak " + Protocol + " (docs/exec-oracle.md)"

// Oracle is one external verifier. Its batches are serialized: one process,
// one request in flight.
type Oracle struct {
	spec  Spec
	opts  Options
	path  string // the resolved program
	hello Hello  // from the first start; a restart must repeat it

	sem    chan struct{} // held while a batch, a restart or Close uses the fields below
	proc   *proc         // nil after a kill: restarted before the next batch
	batch  int64         // the last batch number sent
	closed bool
}

// Start launches the verifier and reads its hello within the hello timeout.
// ctx bounds the start only, not the process's life: Close ends that.
func Start(ctx context.Context, s Spec, opts Options) (*Oracle, error) {
	if len(s.Argv) == 0 || s.Name == "" {
		return nil, fmt.Errorf("%s: empty spec", s.OracleName())
	}
	o := &Oracle{spec: s, opts: opts.withDefaults(), sem: make(chan struct{}, 1)}
	p, h, err := o.launch(ctx)
	if err != nil {
		return nil, err
	}
	o.proc, o.hello, o.path = p, h, p.cmd.Path
	o.opts.Logger.Info("exec verifier started", "oracle", o.Name(), "verifier", h.Name,
		"version", h.Version, "domains", h.Domains, "pid", p.cmd.Process.Pid)
	return o, nil
}

// Discover starts the verifier and describes it for `legalfuzz oracles`; on
// failure the oracle is nil and the status says why.
func Discover(ctx context.Context, s Spec, opts Options) (*Oracle, oracles.Status) {
	st := oracles.Status{Name: s.OracleName()}
	if len(s.Argv) > 0 {
		st.Path = s.Argv[0]
	}
	o, err := Start(ctx, s, opts)
	if err != nil {
		st.Reason, st.Install = err.Error(), Install
		return nil, st
	}
	st.Version, st.Available, st.Path = o.Version(), true, o.path
	st.Domains = slices.Clone(o.hello.Domains)
	return o, st
}

// launch starts a process and reads its hello.
func (o *Oracle) launch(ctx context.Context) (*proc, Hello, error) {
	p, err := startProc(o.spec.Argv, o.opts.StderrTail)
	if err != nil {
		return nil, Hello{}, fmt.Errorf("%s: start %q: %w", o.Name(), o.spec.Argv[0], err)
	}
	timer := time.NewTimer(o.opts.HelloTimeout)
	defer timer.Stop()
	line, err := p.next(ctx, timer.C)
	if err == nil {
		var h Hello
		if h, err = parseHello(line); err == nil {
			return p, h, nil
		}
	}
	var crash *crashError
	switch {
	case errors.Is(err, errTimedOut):
		err = fmt.Errorf("no hello within %v", o.opts.HelloTimeout)
	case errors.As(err, &crash):
		p.reap()
		err = fmt.Errorf("exited before its hello (%s)", p.exitStatus())
	}
	p.kill()
	if ctx.Err() != nil {
		return nil, Hello{}, ctx.Err()
	}
	return nil, Hello{}, fmt.Errorf("%s: %w%s", o.Name(), err, stderrNote(p.stderr.since(0)))
}

// Name is "exec:NAME", NAME being the user's name for the verifier.
func (o *Oracle) Name() string { return o.spec.OracleName() }

// Version is the version the verifier gave in its hello.
func (o *Oracle) Version() string { return o.hello.Version }

// Hello is the verifier's hello (its own name, version and domains).
func (o *Oracle) Hello() Hello { return o.hello }

// Judges reports whether the verifier listed the domain in its hello.
func (o *Oracle) Judges(domainName string) bool { return slices.Contains(o.hello.Domains, domainName) }

// Judge sends the cases in batches of Options.BatchSize and returns one
// verdict per case, in order. Cases of domains the verifier does not list
// are Unsupported without asking it. The error is only for ctx, a closed
// oracle, or a case that does not marshal (our bug).
func (o *Oracle) Judge(ctx context.Context, cases []domain.Case) ([]oracles.Verdict, error) {
	out := make([]oracles.Verdict, len(cases))
	var todo []int
	for i, c := range cases {
		out[i] = oracles.Verdict{Oracle: o.Name(), Version: o.Version(), Case: c.ID, Domain: c.Domain}
		if !o.Judges(c.Domain) {
			out[i].Kind = oracles.Unsupported
			out[i].Diagnostic = o.Name() + " does not judge domain " + c.Domain
			continue
		}
		todo = append(todo, i)
	}
	size := o.opts.BatchSize
	if size <= 0 {
		size = max(len(todo), 1)
	}
	for chunk := range slices.Chunk(todo, size) {
		if err := o.judgeBatch(ctx, cases, chunk, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// judgeBatch sends the cases at idx as one request and fills their verdicts.
func (o *Oracle) judgeBatch(ctx context.Context, cases []domain.Case, idx []int, out []oracles.Verdict) error {
	select {
	case o.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-o.sem }()
	if o.closed {
		return fmt.Errorf("%s: judge after close", o.Name())
	}
	o.batch++
	req, ids, err := buildRequest(o.batch, cases, idx)
	if err != nil {
		return err
	}
	outcomes, err := o.exchange(ctx, req, ids)
	if err != nil {
		return err
	}
	for _, i := range idx {
		oc := outcomes[cases[i].ID]
		out[i].Kind, out[i].Value, out[i].Diagnostic = oc.kind, oc.value, oc.diagnostic
	}
	return nil
}

// exchange makes sure a healthy process runs, sends one request and
// attributes its answer. Every failure of the verifier becomes outcomes
// (and a kill, so the next batch restarts it); the error is only ctx's.
func (o *Oracle) exchange(ctx context.Context, req []byte, ids []string) (map[string]outcome, error) {
	if o.proc != nil {
		if fault := o.proc.idleFault(); fault != "" {
			o.discard(fault)
		}
	}
	if o.proc == nil {
		if err := o.restart(ctx); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			o.opts.Logger.Warn("exec verifier restart failed; the batch gets error verdicts", "oracle", o.Name(),
				"batch", o.batch, "reason", err)
			return all(ids, outcome{kind: oracles.Error, diagnostic: err.Error()}), nil
		}
	}
	p, mark := o.proc, o.proc.stderr.mark()
	line, err := p.roundTrip(ctx, req, o.opts.BatchTimeout)
	if err != nil {
		return o.failed(ctx, ids, err, mark)
	}
	outcomes, problems, err := attribute(o.Name(), line, o.batch, ids)
	if err != nil {
		return o.failed(ctx, ids, err, mark)
	}
	if len(problems) > 0 {
		o.discard(o.Name() + " answered garbage: " + summary(problems))
	}
	return outcomes, nil
}

// failed turns a round trip that produced no usable answer into outcomes
// for every case, and kills the process.
func (o *Oracle) failed(ctx context.Context, ids []string, err error, mark int64) (map[string]outcome, error) {
	p := o.proc
	var crash *crashError
	oc := outcome{kind: oracles.Error}
	switch {
	case ctx.Err() != nil:
		o.discard("context ended mid-batch")
		return nil, ctx.Err()
	case errors.Is(err, errTimedOut):
		oc.kind = oracles.Timeout
		oc.diagnostic = fmt.Sprintf("%s did not answer within %v (killed)", o.Name(), o.opts.BatchTimeout)
	case errors.As(err, &crash):
		p.reap()
		oc.diagnostic = fmt.Sprintf("%s crashed mid-batch (%s)", o.Name(), p.exitStatus())
		if len(crash.partial) > 0 {
			oc.diagnostic += fmt.Sprintf("; partial output %q", clip(crash.partial))
		}
	default:
		oc.diagnostic = fmt.Sprintf("%s answered garbage: %v", o.Name(), err)
	}
	o.discard(oc.diagnostic)
	oc.diagnostic += stderrNote(p.stderr.since(mark))
	return all(ids, oc), nil
}

// discard kills the process after a fault; the next batch restarts it.
func (o *Oracle) discard(reason string) {
	if o.proc == nil {
		return
	}
	o.opts.Logger.Warn("exec verifier killed; it restarts before the next batch", "oracle", o.Name(),
		"pid", o.proc.cmd.Process.Pid, "batch", o.batch, "reason", reason)
	o.proc.kill()
	o.proc = nil
}

// restart launches a new process, which must say the same hello as the
// first one: verdicts of one oracle version must come from one verifier.
func (o *Oracle) restart(ctx context.Context) error {
	p, h, err := o.launch(ctx)
	if err != nil {
		return fmt.Errorf("%s could not be restarted: %w", o.Name(), err)
	}
	if !h.equal(o.hello) {
		p.kill()
		return fmt.Errorf("%s restarted with hello %+v, first start said %+v", o.Name(), h, o.hello)
	}
	o.proc = p
	o.opts.Logger.Info("exec verifier restarted", "oracle", o.Name(), "pid", p.cmd.Process.Pid)
	return nil
}

// Close ends the session: the verifier's stdin is closed (EOF asks it to
// exit) and its process group is killed after a short grace.
func (o *Oracle) Close() error {
	o.sem <- struct{}{}
	defer func() { <-o.sem }()
	o.closed = true
	if o.proc != nil {
		o.proc.close()
		o.proc = nil
	}
	return nil
}

// all gives every id the same outcome.
func all(ids []string, oc outcome) map[string]outcome {
	out := make(map[string]outcome, len(ids))
	for _, id := range ids {
		out[id] = oc
	}
	return out
}

// summary joins the first few problems of an answer, for a log line.
func summary(problems []string) string {
	const shown = 5
	if len(problems) <= shown {
		return strings.Join(problems, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(problems[:shown], "; "), len(problems)-shown)
}

// stderrNote is a stderr tail to append to a diagnostic.
func stderrNote(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	return "\nstderr tail:\n" + s
}
