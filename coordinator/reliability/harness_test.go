package reliability_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/queue/queuetest"
	"github.com/legalfuzz/legalfuzz/coordinator/reliability"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
	"github.com/legalfuzz/legalfuzz/oracles/testoracle"
	"github.com/legalfuzz/legalfuzz/worker"
)

// envProc selects a subprocess role: the test binary re-run from TestMain
// as a worker or a coordinator, configured by the JSON in this variable.
const envProc = "LEGALFUZZ_RELIABILITY_PROC"

// procConfig configures a worker or coordinator subprocess.
type procConfig struct {
	Role     string `json:"role"` // "worker" or "coordinator"
	NATS     string `json:"nats"` // server URLs, comma separated
	User     string `json:"user,omitempty"`
	Password string `json:"password,omitempty"`
	Queue    queue.Config
	// Worker: its name, fixed test oracles and whether to add the spec oracles.
	Name  string      `json:"name,omitempty"`
	Fixed []fixedSpec `json:"fixed,omitempty"`
	Spec  bool        `json:"spec,omitempty"`
	// Coordinator: store, campaign ID ("" resumes), where to write the
	// address of /status, and the config of a new campaign.
	DB         string               `json:"db,omitempty"`
	Campaign   string               `json:"campaign,omitempty"`
	StatusFile string               `json:"status_file,omitempty"`
	Config     store.CampaignConfig `json:"config"`
}

// fixedSpec is a fixed test oracle of a worker subprocess.
type fixedSpec struct {
	Name    string        `json:"name"`
	Latency time.Duration `json:"latency"`
	Kind    oracles.Kind  `json:"kind,omitempty"`
	Domains []string      `json:"domains"`
}

func TestMain(m *testing.M) {
	if raw := os.Getenv(envProc); raw != "" {
		os.Exit(runProc(raw))
	}
	flag.Parse()
	if !testing.Verbose() { // campaign progress only with -v
		slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})))
	}
	os.Exit(m.Run())
}

// runProc is the body of a subprocess; its exit code is 0 on a clean end, 2
// on an error (printed on stderr).
func runProc(raw string) int {
	var cfg procConfig
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, "bad", envProc, err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	opts := []nats.Option{nats.Name(cfg.Role + "-" + cfg.Name), nats.MaxReconnects(-1)}
	if cfg.User != "" {
		opts = append(opts, nats.UserInfo(cfg.User, cfg.Password))
	}
	nc, err := nats.Connect(cfg.NATS, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		return 2
	}
	defer nc.Close()
	switch cfg.Role {
	case "worker":
		err = workerProc(ctx, nc, cfg)
	case "coordinator":
		err = coordinatorProc(ctx, nc, cfg)
	default:
		err = fmt.Errorf("unknown role %q", cfg.Role)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, cfg.Role+":", err)
		return 2
	}
	return 0
}

// workerProc runs worker.New(...).Run; every batch its fixed oracles start
// is announced on stdout as "judging ORACLE FIRSTCASE N".
func workerProc(ctx context.Context, nc *nats.Conn, cfg procConfig) error {
	var orcs []oracles.Oracle
	var statuses []oracles.Status
	var mu sync.Mutex
	for _, f := range cfg.Fixed {
		o := testoracle.New(testoracle.Config{Name: f.Name, Latency: f.Latency, Kind: f.Kind, Domains: f.Domains,
			OnJudge: func(b []domain.Case) {
				if len(b) > 0 {
					mu.Lock()
					fmt.Printf("judging %s %s %d\n", f.Name, b[0].ID, len(b))
					mu.Unlock()
				}
			}})
		orcs, statuses = append(orcs, o), append(statuses, o.Status())
	}
	if cfg.Spec {
		so, ss := spec.All()
		orcs, statuses = append(orcs, so...), append(statuses, ss...)
	}
	w, err := worker.New(nc, worker.Config{Name: cfg.Name, Oracles: orcs, Statuses: statuses, Queue: cfg.Queue})
	if err != nil {
		return err
	}
	return w.Run(ctx)
}

// coordinatorProc runs a coordinator on cfg.DB and serves /status on a
// loopback port whose address it writes to cfg.StatusFile.
func coordinatorProc(ctx context.Context, nc *nats.Conn, cfg procConfig) error {
	db, err := store.OpenStore(cfg.DB, 5*time.Second)
	if err != nil {
		return err
	}
	defer db.Close()
	coord, err := coordinator.New(coordinator.Options{Store: db, Conn: nc, Queue: cfg.Queue, CampaignID: cfg.Campaign,
		Config: cfg.Config, WaitWorkers: 20 * time.Second, DrainTimeout: time.Minute})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go func() { _ = http.Serve(ln, coord.Handler()) }()
	tmp := cfg.StatusFile + ".tmp"
	if err := os.WriteFile(tmp, []byte(ln.Addr().String()), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, cfg.StatusFile); err != nil {
		return err
	}
	camp, err := coord.Run(ctx)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(camp)
}

// proc is a running subprocess: the test binary in a role.
type proc struct {
	t      *testing.T
	name   string
	cmd    *exec.Cmd
	lines  chan string // stdout, line by line
	stderr *syncBuffer
	done   chan struct{}
	err    error // Wait's error, once done is closed
}

// startProc re-runs the test binary in cfg's role. At cleanup a process
// still running is killed; its stderr is logged when the test failed.
func startProc(t *testing.T, cfg procConfig) *proc {
	t.Helper()
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envProc+"="+string(raw))
	p := &proc{t: t, name: cfg.Role + " " + cfg.Name, cmd: cmd, lines: make(chan string, 1024), stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case p.lines <- sc.Text():
			default: // nobody listens for that many lines
			}
		}
		_, _ = io.Copy(io.Discard, out)
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("%s (pid %d) stderr:\n%s", p.name, cmd.Process.Pid, tail(p.stderr.String(), 4000))
		}
	})
	return p
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *proc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// wait waits for the process to exit by itself and returns Wait's error.
func (p *proc) wait(timeout time.Duration) error {
	select {
	case <-p.done:
		return p.err
	case <-time.After(timeout):
		return fmt.Errorf("%s still running after %s", p.name, timeout)
	}
}

// waitLine returns the first stdout line with the prefix.
func (p *proc) waitLine(prefix string, timeout time.Duration) (string, error) {
	deadline := time.After(timeout)
	for {
		select {
		case l := <-p.lines:
			if strings.HasPrefix(l, prefix) {
				return l, nil
			}
		case <-p.done:
			return "", fmt.Errorf("%s exited (%v) before printing %q", p.name, p.err, prefix)
		case <-deadline:
			return "", fmt.Errorf("%s printed no %q within %s", p.name, prefix, timeout)
		}
	}
}

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// drainLines returns the stdout lines received so far and not yet read.
func (p *proc) drainLines() []string {
	var out []string
	for {
		select {
		case l := <-p.lines:
			out = append(out, l)
		default:
			return out
		}
	}
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// connect dials the URLs in order (no randomizing, so a client is pinned to
// the first server that answers) over TCP.
func connect(t *testing.T, name string, urls []string, extra ...nats.Option) *nats.Conn {
	t.Helper()
	opts := append([]nats.Option{nats.Name(name), nats.DontRandomize(), nats.MaxReconnects(-1),
		nats.ReconnectWait(100 * time.Millisecond)}, extra...)
	nc, err := nats.Connect(strings.Join(urls, ","), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func jetStream(t *testing.T, nc *nats.Conn) jetstream.JetStream {
	t.Helper()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// startWorker runs a worker in this process until cleanup, when it drains;
// its Run must end without an error.
func startWorker(t *testing.T, nc *nats.Conn, cfg worker.Config) {
	t.Helper()
	w, err := worker.New(nc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("worker %s: %v", cfg.Name, err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("worker %s did not drain within 30s", cfg.Name)
		}
	})
}

// startFixedWorker runs a worker named name in this process, on its own
// connection to url, with fixed test oracles: most tests here need one such
// worker and differ only in its oracles.
func startFixedWorker(t *testing.T, url, name string, qcfg queue.Config, orcs ...*testoracle.FixedLatency) {
	t.Helper()
	o, sts := statuses(orcs...)
	startWorker(t, connect(t, "worker", []string{url}), worker.Config{Name: name, Oracles: o, Statuses: sts, Queue: qcfg})
}

// statuses lists the statuses of fixed test oracles.
func statuses(orcs ...*testoracle.FixedLatency) ([]oracles.Oracle, []oracles.Status) {
	var out []oracles.Oracle
	var ss []oracles.Status
	for _, o := range orcs {
		out = append(out, o)
		ss = append(ss, o.Status())
	}
	return out, ss
}

// natsServer starts an embedded NATS server with JetStream and connects to
// it: the start of most tests here.
func natsServer(t *testing.T) (*server.Server, *nats.Conn) {
	t.Helper()
	ns := queuetest.Server(t, nil)
	return ns, connect(t, "test", []string{ns.ClientURL()})
}

// publishKindword publishes n distinct kindword cases (from seed) as
// campaign's inputs and returns them: the cases most tests here judge.
func publishKindword(t *testing.T, js jetstream.JetStream, qcfg queue.Config, campaign string, n int, seed uint64) []domain.Case {
	t.Helper()
	cases := mustCases(t, "kindword", n, seed)
	publishInputs(t, js, qcfg, campaign, "kindword", cases)
	return cases
}

// mustCases returns n distinct cases of a domain.
func mustCases(t *testing.T, domainName string, n int, seed uint64) []domain.Case {
	t.Helper()
	cs, err := reliability.Cases(domainName, n, seed)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// setupStreams creates the streams as a coordinator does at start.
func setupStreams(t *testing.T, js jetstream.JetStream, qcfg queue.Config) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := queue.Setup(ctx, js, qcfg); err != nil {
		t.Fatal(err)
	}
}

// publishInputs sets the streams up and puts the cases on a campaign's
// inputs subject, where its coordinator will find them.
func publishInputs(t *testing.T, js jetstream.JetStream, qcfg queue.Config, campaign, domainName string, cases []domain.Case) {
	t.Helper()
	setupStreams(t, js, qcfg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, in := range reliability.Inputs(campaign, domainName, cases, 0) {
		if _, err := js.Publish(ctx, queue.InputsSubject(campaign), queue.Encode(in)); err != nil {
			t.Fatal(err)
		}
	}
}

// kindwordCampaign is the campaign most tests here run: native kindword
// cases for duration in batches of batch, waiting up to 20s for workers and
// draining for up to a minute. Each test wrote these options out; now it
// states only its duration and batch, and changes what it is about.
func kindwordCampaign(db *store.Store, nc *nats.Conn, qcfg queue.Config, campaign string, duration time.Duration, batch int) coordinator.Options {
	return coordinator.Options{Store: db, Conn: nc, Queue: qcfg, CampaignID: campaign,
		WaitWorkers: 20 * time.Second, DrainTimeout: time.Minute,
		Config: store.CampaignConfig{Generator: coordinator.GenNative, Domains: []string{"kindword"}, Duration: duration, BatchSize: batch}}
}

// startCoordinator runs a coordinator in this process in the background,
// for tests that act on the campaign while it runs; the channel receives the
// campaign when it ends, as runTo checks it, within timeout.
func startCoordinator(t *testing.T, opts coordinator.Options, timeout time.Duration) (*coordinator.Coordinator, <-chan store.Campaign) {
	t.Helper()
	coord, err := coordinator.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan store.Campaign, 1)
	go func() { done <- runTo(t, coord, timeout) }()
	return coord, done
}

// runCoordinator runs a coordinator in this process to the campaign's end.
func runCoordinator(t *testing.T, opts coordinator.Options, timeout time.Duration) store.Campaign {
	t.Helper()
	coord, err := coordinator.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return runTo(t, coord, timeout)
}

func runTo(t *testing.T, coord *coordinator.Coordinator, timeout time.Duration) store.Campaign {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	camp, err := coord.Run(ctx)
	if err != nil {
		t.Fatalf("campaign %s: %v", camp.ID, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("campaign %s did not end within %s: %+v", camp.ID, timeout, camp.Stats)
	}
	return camp
}

// resultLog records the results published for a campaign, as seen by a
// plain NATS subscriber.
type resultLog struct {
	mu      sync.Mutex
	results []queue.Result
	garbage int
}

func watchResults(t *testing.T, nc *nats.Conn, campaign string) *resultLog {
	t.Helper()
	l := &resultLog{}
	sub, err := nc.Subscribe(queue.ResultSubject(campaign), func(m *nats.Msg) {
		res, err := queue.Decode[queue.Result](m.Data)
		l.mu.Lock()
		defer l.mu.Unlock()
		if err != nil {
			l.garbage++
			return
		}
		l.results = append(l.results, res)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	return l
}

// byBatch counts results per (batch, oracle) and names their workers.
func (l *resultLog) byBatch() map[string][]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string][]string{}
	for _, r := range l.results {
		k := r.Batch + " " + r.Oracle
		out[k] = append(out[k], r.Worker)
	}
	return out
}

// checkFor polls f until it returns nil or the time is up.
func checkFor(t *testing.T, total, every time.Duration, f func() error) {
	t.Helper()
	deadline := time.Now().Add(total)
	var err error
	for time.Now().Before(deadline) {
		if err = f(); err == nil {
			return
		}
		time.Sleep(every)
	}
	t.Fatalf("after %s: %v", total, err)
}

// getStatus reads a coordinator's /status.
func getStatus(addr string) (coordinator.StatusJSON, error) {
	var st coordinator.StatusJSON
	client := http.Client{Timeout: 2 * time.Second}
	resp, err := client.Get("http://" + addr + "/status")
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return st, fmt.Errorf("status: %s", resp.Status)
	}
	return st, json.NewDecoder(resp.Body).Decode(&st)
}

// errNotYet is what a checkFor condition returns while it waits.
var errNotYet = errors.New("not yet")
