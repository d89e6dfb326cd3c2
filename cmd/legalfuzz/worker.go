package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/internal/stress"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/testoracle"
	"github.com/legalfuzz/legalfuzz/worker"
)

type workerOptions struct {
	nats       natsFlags
	name       string
	oracles    []string
	fuzz       bool
	fuzzBinary string
	workDir    string
	lieOneIn   int
}

func newWorkerCmd() *cobra.Command {
	o := &workerOptions{}
	cmd := &cobra.Command{
		Use:   "worker --nats URL [--oracles ...]",
		Short: "Run one worker: take jobs for this machine's oracles (and fuzz slices) from a campaign's NATS",
		Long: `Worker advertises the oracles found on this machine and judges jobs for them until SIGTERM or
SIGINT, then finishes the job in hand and exits (graceful drain). A job it took and did not finish is
redelivered to another worker after the ack deadline.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.nats.url == "" {
				return fmt.Errorf("worker needs --nats")
			}
			nc, err := o.nats.connect("legalfuzz-worker")
			if err != nil {
				return err
			}
			defer nc.Close()
			lying = o.lieOneIn
			return runWorker(cmd.Context(), nc, worker.Config{Name: o.name, Fuzz: o.fuzzer()}, o.oracles)
		},
	}
	f := cmd.Flags()
	o.nats.register(f)
	f.StringVar(&o.name, "name", "", "worker name (default host-pid)")
	f.StringSliceVar(&o.oracles, "oracles", nil, "oracles to offer (default: every available one)")
	f.BoolVar(&o.fuzz, "fuzz", true, "also run fuzz slices")
	f.StringVar(&o.fuzzBinary, "fuzz-binary", "bin/fuzz.test", "instrumented fuzz test binary; missing: random inputs")
	f.StringVar(&o.workDir, "work-dir", "legalfuzz-work", "fuzz cache and engine folder")
	f.IntVar(&o.lieOneIn, "lie-one-in", 0, "bench soak's lying worker: answer the opposite verdict for one case in N, marked as forged")
	_ = f.MarkHidden("lie-one-in")
	return cmd
}

func (o *workerOptions) fuzzer() *worker.Fuzzer {
	if !o.fuzz {
		return nil
	}
	return newFuzzer(o.fuzzBinary, o.workDir)
}

// newFuzzer uses the binary if it exists, else the random fallback.
func newFuzzer(binary, workDir string) *worker.Fuzzer {
	if _, err := os.Stat(binary); err != nil {
		slog.Warn("no fuzz binary: generating random inputs without coverage guidance (make campaign builds it)", "binary", binary)
		binary = ""
	}
	return &worker.Fuzzer{Binary: binary, WorkDir: workDir, Parallel: 1}
}

// lying makes this process's workers lying test oracles' (worker
// --lie-one-in, for bench soak): zero for every real worker.
var lying int

// runWorker discovers oracles, keeps those wanted, and runs a worker
// configured as cfg with them.
func runWorker(ctx context.Context, nc *nats.Conn, cfg worker.Config, want []string) error {
	found, err := discover(ctx)
	if err != nil {
		return err
	}
	defer found.Close()
	var orcs []oracles.Oracle
	var statuses []oracles.Status
	for _, o := range found.Oracles {
		if len(want) == 0 || slices.Contains(want, o.Name()) {
			if lying > 0 {
				o = testoracle.Liar{Oracle: o, OneIn: lying, Marker: stress.Marker}
			}
			orcs = append(orcs, o)
		}
	}
	for _, s := range found.Statuses {
		if s.Available && (len(want) == 0 || slices.Contains(want, s.Name)) {
			statuses = append(statuses, s)
		}
	}
	cfg.Oracles, cfg.Statuses = orcs, statuses
	w, err := worker.New(nc, cfg)
	if err != nil {
		return err
	}
	return w.Run(ctx)
}

// localStopGrace is how long a campaign's own workers may go on with the
// jobs in hand once the campaign has ended: a drain timeout holds within
// it, and what they had in hand is judged by the next run.
const localStopGrace = 2 * time.Second

// startLocalWorkers runs n workers in this process; the channel closes when
// they have all drained.
func startLocalWorkers(ctx context.Context, nc *nats.Conn, n int, want []string, newFuzzer func(workDir string) *worker.Fuzzer, out string) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		errs := make(chan error, n)
		for i := range n {
			name := fmt.Sprintf("local-%d", i)
			fz := newFuzzer(filepath.Join(out, "fuzz", name))
			go func() {
				errs <- runWorker(ctx, nc, worker.Config{Name: name, Fuzz: fz, StopGrace: localStopGrace}, want)
			}()
		}
		for range n {
			if err := <-errs; err != nil && ctx.Err() == nil { // stopped with the campaign: no error
				slog.Error("local worker", "err", err)
			}
		}
	}()
	return done
}

func envOr(v, env string) string {
	if v != "" {
		return v
	}
	return os.Getenv(env)
}
