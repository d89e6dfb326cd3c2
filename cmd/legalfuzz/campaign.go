package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/live"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/worker"
)

type campaignOptions struct {
	nats         natsFlags
	duration     time.Duration
	domains      []string
	oracles      []string
	db, out      string
	campaignID   string
	localWorkers int
	fuzzBinary   string
	statusAddr   string
	quiet        bool
	noSeeds      bool
	drain        time.Duration
	suppressions string
	failOnAll    bool
	keepAll      bool
	noMinimize   bool
	rejudge      float64
	tail         time.Duration
	generator    string
	coordOnly    bool // `legalfuzz coordinator`
}

func newCampaignCmd() *cobra.Command {
	o := &campaignOptions{}
	cmd := &cobra.Command{
		Use:   "campaign [--duration 60s] [--domains ...] [--oracles ...] [--nats URL] [--db PATH] [--out DIR]",
		Short: "Run a fuzz campaign: embedded NATS, coordinator and local workers by default",
		Long: `Campaign fuzzes the domains for --duration, judges every new case with every oracle, and
records findings in the store. With no --nats it starts an embedded NATS server (store under
--out) and runs local workers in this process. A campaign left unfinished in --db resumes.
Exit 1 when the campaign found new buckets of tool bugs (crash, miscompile, exit-0 error, too permissive, too
strict, disputed); new limitations and seed evidence are listed but fail it only with --fail-on-all.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	o.register(cmd, 1)
	return cmd
}

func newCoordinatorCmd() *cobra.Command {
	o := &campaignOptions{coordOnly: true}
	cmd := &cobra.Command{
		Use:   "coordinator --nats URL --db PATH",
		Short: "Run only a campaign's coordinator, for workers on other machines",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.nats.url == "" {
				return errors.New("coordinator needs --nats (use campaign for a single machine)")
			}
			return o.run(cmd)
		},
	}
	o.register(cmd, 0)
	return cmd
}

func (o *campaignOptions) register(cmd *cobra.Command, defaultWorkers int) {
	f := cmd.Flags()
	o.nats.register(f)
	f.DurationVar(&o.duration, "duration", 60*time.Second, "generation time; judging what was generated continues after it")
	f.StringSliceVar(&o.domains, "domains", nil, "domains to fuzz (default: every domain but nvvmop, which is opted into by naming it)")
	f.StringSliceVar(&o.oracles, "oracles", nil, "oracles to ask (default: every available one)")
	f.StringVar(&o.out, "out", "legalfuzz-out", "campaign folder: db, embedded NATS data, fuzz work")
	f.StringVar(&o.db, "db", "", "bbolt store (default: OUT/legalfuzz.db)")
	f.StringVar(&o.campaignID, "campaign", "", "campaign ID (default: resume the store's unfinished campaign, else a new one)")
	f.IntVar(&o.localWorkers, "workers", defaultWorkers, "local workers in this process (0 with --nats: coordinator only)")
	f.StringVar(&o.fuzzBinary, "fuzz-binary", "bin/fuzz.test", "instrumented fuzz test binary (go test -c -fuzz=. ./fuzz); missing: random inputs")
	f.StringVar(&o.statusAddr, "status-addr", "127.0.0.1:0", "address for /status and /metrics; empty disables")
	f.BoolVar(&o.quiet, "quiet", false, "no progress line")
	f.BoolVar(&o.noSeeds, "no-seeds", false, "do not judge the domains' seed values first")
	f.DurationVar(&o.drain, "drain-timeout", 5*time.Minute, "how long to wait for queued jobs after generation")
	f.BoolVar(&o.noMinimize, "no-minimize", false, "do not minimize buckets (during the campaign or in its tail)")
	f.Float64Var(&o.rejudge, "rejudge", -1, "share of workers' results judged again by another worker (or by this process's oracles) before they count, beside every one that would open a bucket; a worker the tool contradicts is quarantined (0: take a worker's word as is; default 0.03 with --nats, 0 for this process's own workers)")
	f.DurationVar(&o.tail, "tail", 0, "most time for the work after --duration (minimizing, replaying); buckets left are minimized first by the next campaign (default: a fifth of --duration, at least 30s)")
	f.StringVar(&o.suppressions, "suppressions", "", "suppression file (JSON array); suppressed new buckets do not make the exit status 1")
	f.BoolVar(&o.failOnAll, "fail-on-all", false, "exit 1 on new limitation and seed-evidence buckets too, not only on new tool bugs")
	f.BoolVar(&o.keepAll, "keep-all", false, "keep every judged case and its verdicts in the store, not only a few members of each finding bucket and the corpus (debugging a tool; the store grows with every case; store compact shrinks it)")
	f.StringVar(&o.generator, "generator", coordinator.GenAll, "generators to run: "+strings.Join(coordinator.Generators, "|")+
		" (native: the instrumented fuzz binary; random: random bytes; structured: mutation steered by the judges)")
}

func (o *campaignOptions) run(cmd *cobra.Command) error {
	if err := o.validate(); err != nil {
		return err
	}
	db, camp, err := o.execute(cmd)
	if err != nil {
		return o.fullDisk(err)
	}
	defer db.Close()
	return summarize(cmd.OutOrStdout(), db, camp, o.db, o.suppressions, o.failOnAll)
}

// execute runs the campaign and returns the store, still open, and the
// campaign.
func (o *campaignOptions) execute(cmd *cobra.Command) (*store.Store, store.Campaign, error) {
	newFuzzer, err := o.fuzzers()
	if err != nil {
		return nil, store.Campaign{}, err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return nil, store.Campaign{}, err
	}
	if o.db == "" {
		o.db = filepath.Join(o.out, "legalfuzz.db")
	}
	db, err := store.OpenStore(o.db, 5*time.Second)
	if err != nil {
		return nil, store.Campaign{}, err
	}
	camp, err := o.runOn(cmd, db, newFuzzer)
	if err != nil {
		db.Close()
		return nil, camp, err
	}
	return db, camp, nil
}

// runOn runs the campaign on an open store: NATS, local workers, the
// coordinator, the status server and the progress line.
func (o *campaignOptions) runOn(cmd *cobra.Command, db *store.Store, newFuzzer func(string) *worker.Fuzzer) (store.Campaign, error) {
	ctx := cmd.Context()
	nc, stopNATS, err := o.connect()
	if err != nil {
		return store.Campaign{}, err
	}
	defer stopNATS()
	wctx, stopWorkers := context.WithCancel(ctx)
	workersDone := startLocalWorkers(wctx, nc, o.localWorkers, o.oracles, newFuzzer, o.out)
	defer func() { stopWorkers(); <-workersDone }()

	pols, err := policies()
	if err != nil {
		return store.Campaign{}, err
	}
	triage, err := o.triage(ctx, nc)
	if err != nil {
		return store.Campaign{}, err
	}
	arbiter, closeArbiter, err := o.arbiter(ctx)
	if err != nil {
		return store.Campaign{}, err
	}
	defer closeArbiter()
	coord, err := coordinator.New(coordinator.Options{Store: db, Conn: nc, CampaignID: o.campaignID, Policies: pols,
		Seeds: !o.noSeeds, WaitWorkers: o.waitWorkers(), DrainTimeout: o.drain,
		Config: o.config(), Triage: triage, Rejudge: o.rejudgeShare(), Arbiter: arbiter})
	if err != nil {
		return store.Campaign{}, err
	}
	snapshots, err := live.NewServer(db)
	if err != nil {
		return store.Campaign{}, err
	}
	mux := http.NewServeMux()
	mux.Handle("/", coord.Handler())
	mux.Handle("/snapshot", snapshots)
	addr, stopHTTP, err := serveStatus(o.statusAddr, mux)
	if err != nil {
		return store.Campaign{}, err
	}
	defer stopHTTP()
	if addr != "" { // triage and report read snapshots while the campaign holds the store
		unadvertise, err := snapshots.Advertise(o.db, "http://"+addr+"/snapshot")
		if err != nil {
			return store.Campaign{}, err
		}
		defer unadvertise()
	}
	if c := coord.Campaign(); coord.Resumed() && c.State != store.StateDone {
		fmt.Fprintf(cmd.ErrOrStderr(), "resuming campaign %s (%s): %d cases so far, %s of %s generated\n",
			c.ID, c.State, c.Stats.Cases, c.Elapsed.Round(time.Second), c.Config.Duration)
	}
	o.sayStages(cmd, coord.Campaign(), triage.Tail)
	stopProgress := startProgress(cmd.ErrOrStderr(), coord, o.quiet, addr)
	camp, err := coord.Run(ctx)
	stopProgress()
	if err != nil {
		return camp, err
	}
	// The wall time a report shows ends here, after minimizing and
	// replaying, not when generation or the drain did.
	return db.UpdateCampaign(camp.ID, func(c *store.Campaign) { c.Finished = time.Now().UTC() })
}

// rejudgeShare is --rejudge, or its default: spot checks where workers of
// other machines may judge (--nats), none where every worker is this
// process's own, running the same tools the checks would replay. Held
// until a check agreed, a 60 s make campaign's results piled to 20,000
// pairs beside a queue of a few dozen, and its drain took three minutes.
func (o *campaignOptions) rejudgeShare() float64 {
	switch {
	case o.rejudge >= 0:
		return o.rejudge
	case o.nats.url != "":
		return 0.03
	}
	return 0
}

// arbiter is this machine's oracles, which replay a case a spot check
// disagrees on and judge the checks no other worker can; none without
// --rejudge, or when they cannot be found (the campaign goes on, its
// workers say why, and disagreements keep the worker's word).
func (o *campaignOptions) arbiter(ctx context.Context) (oracles.Panel, func(), error) {
	if o.rejudgeShare() <= 0 {
		return nil, func() {}, nil
	}
	found, err := discover(ctx)
	if err != nil {
		slog.Warn("no oracles of this machine to settle spot checks", "err", err)
		return nil, func() {}, nil
	}
	return oracles.Local{Oracles: found.Oracles}, func() { found.Close() }, nil
}

// triage is what the coordinator minimizes and replays beside generation
// and in the tail: through the workers (local ones, and remote ones such
// as a GPU worker), so a bucket is minimized wherever its oracles live.
func (o *campaignOptions) triage(ctx context.Context, nc *nats.Conn) (*coordinator.TriageOptions, error) {
	panel, err := queue.NewRemote(ctx, nc, queue.Config{})
	if err != nil {
		return nil, err
	}
	t := &coordinator.TriageOptions{Panel: panel, Tail: cmp.Or(o.tail, coordinator.DefaultTail(o.duration))}
	if !o.noMinimize {
		t.Minimize = &coordinator.MinimizeOptions{Budget: 200}
	}
	return t, nil
}

// sayStages tells a user watching the campaign its stages and how long
// the work after generation takes at most; --quiet silences it.
func (o *campaignOptions) sayStages(cmd *cobra.Command, c store.Campaign, tail time.Duration) {
	if o.quiet {
		return
	}
	what := "minimizing new buckets while generating, then the drain, minimizing and replaying"
	if o.noMinimize {
		what = "then the drain and replaying"
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "stages: generating for %s; %s: at most %s after generation (--tail), or until the cases generated are judged if that takes longer\n",
		(c.Config.Duration - c.Elapsed).Round(time.Second), what, tail)
}

// fuzzers returns what makes a local worker's fuzz engine for --generator:
// the instrumented binary (native; an error when it is missing, since a
// silent fallback would measure the wrong generator), random bytes, both
// (all: the binary when present), or none (structured, none: the
// coordinator generates, or nothing does).
func (o *campaignOptions) fuzzers() (func(workDir string) *worker.Fuzzer, error) {
	switch o.generator {
	case coordinator.GenNative:
		if _, err := os.Stat(o.fuzzBinary); err != nil && o.localWorkers > 0 {
			return nil, fmt.Errorf("--generator native needs the fuzz binary (make fuzzbin): %w", err)
		}
		return func(dir string) *worker.Fuzzer { return newFuzzer(o.fuzzBinary, dir) }, nil
	case coordinator.GenRandom:
		return func(dir string) *worker.Fuzzer { return &worker.Fuzzer{WorkDir: dir, Parallel: 1} }, nil
	case coordinator.GenAll:
		return func(dir string) *worker.Fuzzer { return newFuzzer(o.fuzzBinary, dir) }, nil
	case coordinator.GenStructured, coordinator.GenNone:
		return func(string) *worker.Fuzzer { return nil }, nil
	}
	return nil, fmt.Errorf("unknown --generator %q (want one of %s)", o.generator, strings.Join(coordinator.Generators, ", "))
}

// validate checks the flags before anything starts or is saved.
func (o *campaignOptions) validate() error {
	if o.duration <= 0 || o.drain <= 0 {
		return fmt.Errorf("--duration %s and --drain-timeout %s must be positive", o.duration, o.drain)
	}
	if o.localWorkers < 0 || (o.localWorkers == 0 && o.nats.url == "") {
		return fmt.Errorf("--workers %d without --nats: no worker can reach the embedded NATS server, so nothing would be judged (give --nats URL for remote workers)", o.localWorkers)
	}
	for _, name := range o.oracles {
		if _, ok := oracles.Lookup(name); !ok {
			return fmt.Errorf("unknown oracle %q (see legalfuzz oracles)", name)
		}
	}
	return coordinator.Validate(o.config())
}

// fullDisk is err, or, when a write other than the store's own failed for
// want of space (the embedded NATS server's data, the snapshot file; NATS
// words it as an API error, "code=500 ... no space left on device"), the
// line the store's own full disk gets (coordinator.ErrHalted).
func (o *campaignOptions) fullDisk(err error) error {
	if errors.Is(err, coordinator.ErrHalted) || (!errors.Is(err, syscall.ENOSPC) && !strings.Contains(err.Error(), "no space left on device")) {
		return err
	}
	// NATS's own words ("API error: code=500 ...") go to the log, not the
	// line: which of its files failed is not what the user must do.
	slog.Warn("the campaign's files", "dir", o.out, "err", err)
	return fmt.Errorf("%w: cannot write the campaign's files in %s: no space left on device; free space (or fix the disk), then run again on the same store to resume",
		coordinator.ErrHalted, o.out)
}

// waitWorkers is how long the coordinator waits for a first worker. Local
// workers are known to come: their discovery (each tool probe bounded at
// tool.ProbeTimeout) may take longer than 15 s on a loaded machine, and a
// campaign that starts without them ends with nothing judged (exit 2); it
// starts as soon as one advertises, so the bound costs nothing otherwise.
func (o *campaignOptions) waitWorkers() time.Duration {
	if o.localWorkers > 0 {
		return localWorkersWait
	}
	return 15 * time.Second
}

// localWorkersWait is waitWorkers's bound with local workers: a variable so
// that a test whose local workers never advertise need not wait the minute.
var localWorkersWait = time.Minute

// config is the campaign config the flags ask for.
func (o *campaignOptions) config() store.CampaignConfig {
	return store.CampaignConfig{Domains: o.domains, Oracles: o.oracles, Duration: o.duration, Generator: o.generator, KeepAll: o.keepAll}
}

// connect dials --nats, or starts the embedded server with its store in OUT.
func (o *campaignOptions) connect() (*nats.Conn, func(), error) {
	if o.nats.url != "" {
		nc, err := o.nats.connect("legalfuzz-campaign")
		if err != nil {
			return nil, nil, err
		}
		return nc, nc.Close, nil
	}
	ns, err := queue.Embedded(filepath.Join(o.out, "nats"))
	if err != nil {
		return nil, nil, err
	}
	nc, err := queue.ConnectInProcess(ns, "legalfuzz-campaign")
	if err != nil {
		ns.Shutdown()
		return nil, nil, err
	}
	return nc, func() { nc.Close(); ns.Shutdown() }, nil
}

// serveStatus serves /status and /metrics on a loopback address by default.
func serveStatus(addr string, h http.Handler) (string, func(), error) {
	if addr == "" {
		return "", func() {}, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("status address: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Warn("status server", "err", err)
		}
	}()
	return ln.Addr().String(), func() { _ = srv.Close() }, nil
}
