package worker

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/corpus"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// Fuzzer runs the native fuzz targets of package fuzz from a test binary built
// once with `go test -c -fuzz ...` (so no Go toolchain is needed where it
// runs), and reports every new interesting input the engine writes to its
// cache. Without a binary it falls back to random bytes, with no coverage
// guidance; say so in logs, never pretend.
type Fuzzer struct {
	// Binary is the instrumented test binary of package fuzz; empty means the
	// random fallback.
	Binary string
	// WorkDir holds the fuzz cache (-test.fuzzcachedir) and the engine's
	// working directory, where crashers land under testdata/fuzz/.
	WorkDir string
	// Parallel is the engine's -test.parallel (worker processes).
	Parallel int
	seen     map[string]bool
}

// handleFuzz runs one fuzz slice and acks it.
func (w *Worker) handleFuzz(ctx context.Context, m jetstream.Msg) {
	job, err := queue.Decode[queue.FuzzJob](m.Data())
	if err == nil {
		err = validFuzzJob(job)
	}
	if err != nil {
		w.deadLetter(context.Background(), m, queue.UnknownCampaign, err.Error())
		return
	}
	stop := keepAlive(m, w.keepAlivePeriod())
	err = w.cfg.Fuzz.run(ctx, job, func(source string, inputs [][]byte) error {
		msg := queue.Inputs{V: queue.Version, Campaign: job.Campaign, Domain: job.Domain, Source: source, Inputs: inputs}
		_, err := w.js.Publish(context.Background(), queue.InputsSubject(job.Campaign), queue.Encode(msg))
		return err
	})
	stop()
	if err != nil && ctx.Err() == nil {
		w.log.Warn("fuzz slice", "domain", job.Domain, "err", err)
	}
	_ = m.DoubleAck(context.Background())
}

// MaxSlice bounds one fuzz slice a job may ask for.
const MaxSlice = time.Hour

// validFuzzJob checks what a fuzz job would make the worker run: its target
// must be its domain's own fuzz target (it becomes a path and a -test.fuzz
// pattern), its slice positive and bounded.
func validFuzzJob(job queue.FuzzJob) error {
	d, ok := fuzz.Lookup(job.Domain)
	if !ok {
		return fmt.Errorf("fuzz job: unknown domain %q", job.Domain)
	}
	if job.Target != d.FuzzTarget {
		return fmt.Errorf("fuzz job: target %q is not domain %s's fuzz target %s", job.Target, d.Name, d.FuzzTarget)
	}
	if job.Slice <= 0 || job.Slice > MaxSlice {
		return fmt.Errorf("fuzz job: slice %s outside (0, %s]", job.Slice, MaxSlice)
	}
	return nil
}

// run fuzzes one slice and publishes what it finds, in chunks.
func (f *Fuzzer) run(ctx context.Context, job queue.FuzzJob, publish func(source string, inputs [][]byte) error) error {
	if f.seen == nil {
		f.seen = map[string]bool{}
	}
	if f.Binary == "" {
		return f.random(ctx, job, publish)
	}
	// The engine runs in WorkDir, so every path it is given must be absolute.
	work, err := filepath.Abs(f.WorkDir)
	if err != nil {
		return err
	}
	f.WorkDir = work
	cache := filepath.Join(work, "cache")
	args := []string{"-test.run=^$", "-test.fuzz=^" + job.Target + "$", "-test.fuzzcachedir=" + cache,
		fmt.Sprintf("-test.fuzztime=%s", job.Slice), fmt.Sprintf("-test.parallel=%d", max(f.Parallel, 1))}
	done := make(chan error, 1)
	go func() {
		r, err := runIn(ctx, f.WorkDir, job.Slice+time.Minute, f.Binary, args...)
		if err == nil && r.ExitCode != 0 && !r.TimedOut && ctx.Err() == nil && !sliceEnded(r.Output()) {
			err = fmt.Errorf("fuzz engine exited %d: %s", r.ExitCode, tail(r.Output(), 400))
		}
		done <- err
	}()
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case err := <-done:
			f.scan(filepath.Join(cache, job.Target), "fuzz:"+job.Target, publish)
			f.scan(filepath.Join(f.WorkDir, "testdata", "fuzz", job.Target), "crash:"+job.Target, publish)
			return err
		case <-t.C:
			f.scan(filepath.Join(cache, job.Target), "fuzz:"+job.Target, publish)
		}
	}
}

// scan publishes the corpus files in dir not seen before, in chunks; a file
// is marked seen only once its chunk is published, so nothing is lost.
func (f *Fuzzer) scan(dir, source string, publish func(string, [][]byte) error) {
	inputs, err := corpus.ReadGoDir(dir)
	if err != nil {
		return
	}
	var fresh []corpus.Input
	for _, in := range inputs {
		if !f.seen[in.Path] && in.Err == nil {
			fresh = append(fresh, in)
		}
	}
	for len(fresh) > 0 {
		chunk := fresh[:min(len(fresh), 256)]
		fresh = fresh[len(chunk):]
		data := make([][]byte, len(chunk))
		for i, in := range chunk {
			data[i] = in.Data
		}
		if publish(source, data) != nil {
			return // the rest stays unseen and is published on the next scan
		}
		for _, in := range chunk {
			f.seen[in.Path] = true
		}
	}
}

// random is the fallback generator: pseudo-random byte strings for the slice.
func (f *Fuzzer) random(ctx context.Context, job queue.FuzzJob, publish func(string, [][]byte) error) error {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	deadline := time.Now().Add(job.Slice)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		inputs := make([][]byte, 64)
		for i := range inputs {
			buf := make([]byte, 8+rng.IntN(56))
			for j := range buf {
				buf[j] = byte(rng.Uint32())
			}
			inputs[i] = buf
		}
		if err := publish("random:"+job.Target, inputs); err != nil {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}

// runIn runs a program in dir with a deadline.
func runIn(ctx context.Context, dir string, timeout time.Duration, path string, args ...string) (tool.Result, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return tool.Result{}, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return tool.Result{}, err
	}
	return tool.RunIn(ctx, timeout, dir, abs, args...)
}

// sliceEnded reports whether a non-zero exit is only Go's fuzzer stopping at
// -test.fuzztime in the middle of a phase ("context deadline exceeded"),
// with no failing input written: the end of a slice, not a failure.
func sliceEnded(out string) bool {
	return strings.Contains(out, "context deadline exceeded") && !strings.Contains(out, "Failing input written")
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
