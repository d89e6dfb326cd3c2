package exec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	osexec "os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// verifierPath is the example verifier, built once by TestMain.
var verifierPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "exampleverifier")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	verifierPath = filepath.Join(dir, "exampleverifier")
	out, err := osexec.Command("go", "build", "-o", verifierPath, "./testdata/exampleverifier").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build the example verifier: %v\n%s", err, out)
		os.Exit(2)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// start starts the example verifier with flags, and closes it at cleanup,
// checking that no process is left.
func start(t *testing.T, opts Options, flags ...string) *Oracle {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(t.Output(), nil))
	}
	o, err := Start(context.Background(), Spec{Name: "toy", Argv: append([]string{verifierPath}, flags...)}, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		p := o.proc
		if err := o.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if p != nil && alive(p.cmd.Process.Pid) {
			t.Errorf("verifier pid %d still alive after Close", p.cmd.Process.Pid)
		}
	})
	return o
}

// pid is the running verifier's process id.
func pid(t *testing.T, o *Oracle) int {
	t.Helper()
	if o.proc == nil {
		t.Fatal("no verifier process")
	}
	return o.proc.cmd.Process.Pid
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// kw makes a kindword case on sm_100a.
func kw(k kindword.Kind, ctaGroup uint8, ws bool) domain.Case {
	v := kindword.Value{Kind: k, CTAGroup: ctaGroup, WS: ws, ArchConditional: true, Tgt: target.MustParse("sm_100a", "")}
	return domain.NewCase(kindword.Name, v)
}

// judge calls Judge and checks the verdicts line up with the cases.
func judge(t *testing.T, o *Oracle, cases ...domain.Case) []oracles.Verdict {
	t.Helper()
	vs, err := o.Judge(context.Background(), cases)
	if err != nil {
		t.Fatalf("Judge: %v", err)
	}
	if len(vs) != len(cases) {
		t.Fatalf("Judge returned %d verdicts for %d cases", len(vs), len(cases))
	}
	for i, v := range vs {
		if v.Case != cases[i].ID || v.Domain != cases[i].Domain || v.Oracle != "exec:toy" {
			t.Fatalf("verdict %d = %+v, for case %s", i, v, cases[i].ID)
		}
	}
	return vs
}

// want checks one verdict's kind and that its diagnostic contains diag.
func want(t *testing.T, v oracles.Verdict, kind oracles.Kind, diag string) {
	t.Helper()
	if v.Kind != kind || !strings.Contains(v.Diagnostic, diag) {
		t.Errorf("case %s: %s %q, want %s containing %q", v.Case, v.Kind, v.Diagnostic, kind, diag)
	}
}

func TestStartHello(t *testing.T) {
	o := start(t, Options{})
	if got := o.Hello(); got.Name != "exampleverifier" || got.Version != "0.1.0" || got.Protocol != Protocol {
		t.Errorf("hello = %+v", got)
	}
	if o.Name() != "exec:toy" || o.Version() != "0.1.0" || !o.Judges("kindword") || o.Judges("tmadesc") {
		t.Errorf("Name %q Version %q Judges(kindword) %v Judges(tmadesc) %v",
			o.Name(), o.Version(), o.Judges("kindword"), o.Judges("tmadesc"))
	}
}

func TestStartFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		argv []string
		err  string
	}{
		{"version mismatch", []string{verifierPath, "-bad-hello"},
			"exec:bad: protocol version mismatch: verifier speaks legalfuzz-exec/0, legalfuzz speaks legalfuzz-exec/1"},
		{"not JSON", []string{"sh", "-c", "echo hello; sleep 30"}, `hello is not a JSON object`},
		{"silent", []string{"sleep", "30"}, "no hello within 300ms"},
		{"dies with a message", []string{"sh", "-c", "echo cannot load model >&2; exit 1"},
			"exec:bad: exited before its hello (exit status 1)\nstderr tail:\ncannot load model"},
		{"missing program", []string{"/nonexistent/verifier"}, "start \"/nonexistent/verifier\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			begin := time.Now()
			_, st := Discover(context.Background(), Spec{Name: "bad", Argv: tc.argv}, Options{HelloTimeout: 300 * time.Millisecond})
			if st.Available || !strings.Contains(st.Reason, tc.err) || st.Install == "" || st.Name != "exec:bad" {
				t.Errorf("status = %+v, want unavailable with reason containing %q", st, tc.err)
			}
			if d := time.Since(begin); d > 10*time.Second {
				t.Errorf("start failure took %v", d)
			}
		})
	}
}

func TestDiscover(t *testing.T) {
	o, st := Discover(context.Background(), Spec{Name: "toy", Argv: []string{verifierPath}}, Options{})
	if o == nil {
		t.Fatalf("Discover: %+v", st)
	}
	defer o.Close()
	if !st.Available || st.Name != "exec:toy" || st.Version != "0.1.0" || st.Path != verifierPath ||
		!reflect.DeepEqual(st.Domains, []string{"kindword"}) || st.Reason != "" {
		t.Errorf("status = %+v", st)
	}
}

// TestKnownAnswers pins the example verifier's toy rules.
func TestKnownAnswers(t *testing.T) {
	o := start(t, Options{})
	other := kw(kindword.F16, 1, false)
	other.Domain = "tmadesc"
	cases := []domain.Case{
		kw(kindword.F16, 1, false), kw(kindword.F16, 2, true), kw(kindword.I8, 3, false),
		kw(kindword.Reserved6, 1, false), other, kw(kindword.F16, 1, false), kw(kindword.TF32, 1, true),
	}
	vs := judge(t, o, cases...)
	want(t, vs[0], oracles.Accept, "")
	want(t, vs[1], oracles.Reject, ".ws is not allowed with cta_group::2")
	want(t, vs[2], oracles.Reject, "cta_group must be 1 or 2, got 3")
	want(t, vs[3], oracles.Unsupported, "no instruction for the reserved kind")
	want(t, vs[4], oracles.Unsupported, "exec:toy does not judge domain tmadesc")
	want(t, vs[5], oracles.Accept, "")
	want(t, vs[6], oracles.Accept, "")
	if vs[0].Value != "tcgen05.mma.cta_group::1.kind::f16" || vs[6].Value != "tcgen05.mma.ws.cta_group::1.kind::tf32" {
		t.Errorf("values %q, %q", vs[0].Value, vs[6].Value)
	}
	if vs[0].Version != "0.1.0" {
		t.Errorf("version %q", vs[0].Version)
	}
	if o.batch != 1 {
		t.Errorf("%d batches sent, want 1", o.batch)
	}
}

// TestBatchedEqualsOneByOne judges a random sample in one batch and case by
// case (BatchSize 1): the verdicts must be identical.
func TestBatchedEqualsOneByOne(t *testing.T) {
	seed := domaintest.Seed(t, "LEGALFUZZ_SEED", uint64(time.Now().UnixNano()))
	cases := randomCases(rand.New(rand.NewPCG(seed, 0)), 150)
	batched := judge(t, start(t, Options{}), cases...)
	single := start(t, Options{BatchSize: 1})
	one := judge(t, single, cases...)
	if !reflect.DeepEqual(batched, one) {
		t.Fatalf("batched and one-by-one verdicts differ")
	}
	if single.batch != int64(len(cases)) {
		t.Errorf("BatchSize 1 sent %d batches for %d cases", single.batch, len(cases))
	}
}

// randomCases decodes n kindword cases from random bytes.
func randomCases(rng *rand.Rand, n int) []domain.Case {
	var cases []domain.Case
	for len(cases) < n {
		buf := make([]byte, 16)
		for i := range buf {
			buf[i] = byte(rng.UintN(256))
		}
		if v, err := kindword.Domain.Decode(buf); err == nil {
			cases = append(cases, domain.NewCase(kindword.Name, v))
		}
	}
	return cases
}

func TestHang(t *testing.T) {
	const timeout = 500 * time.Millisecond
	o := start(t, Options{BatchTimeout: timeout}, "-hang-on", `"kind":"tf32"`)
	old := pid(t, o)
	begin := time.Now()
	vs := judge(t, o, kw(kindword.F16, 1, false), kw(kindword.TF32, 1, false), kw(kindword.I8, 2, true))
	if d := time.Since(begin); d > timeout+5*time.Second {
		t.Errorf("hung batch took %v with a %v timeout", d, timeout)
	}
	for _, v := range vs {
		want(t, v, oracles.Timeout, "exec:toy did not answer within 500ms (killed)")
	}
	want(t, vs[0], oracles.Timeout, "hanging on case "+vs[1].Case)
	if alive(old) {
		t.Errorf("hung verifier %d still alive", old)
	}
	next := judge(t, o, kw(kindword.F16, 1, false), kw(kindword.F16, 2, true))
	want(t, next[0], oracles.Accept, "")
	want(t, next[1], oracles.Reject, "cta_group::2")
	if pid(t, o) == old {
		t.Errorf("verifier not restarted")
	}
}

func TestCrash(t *testing.T) {
	o := start(t, Options{}, "-crash-on", `"kind":"tf32"`)
	old := pid(t, o)
	crashing := kw(kindword.TF32, 1, false)
	vs := judge(t, o, kw(kindword.F16, 1, false), crashing)
	for _, v := range vs {
		want(t, v, oracles.Error, "exec:toy crashed mid-batch (exit status 3); partial output \"{\\\"batch\\\":\"")
		want(t, v, oracles.Error, "stderr tail:\nexampleverifier: batch 1, 2 cases\nexampleverifier: crashing on case "+crashing.ID)
	}
	if alive(old) {
		t.Errorf("crashed verifier %d still alive", old)
	}
	next := judge(t, o, kw(kindword.F16, 1, false))
	want(t, next[0], oracles.Accept, "")
}

func TestGarbage(t *testing.T) {
	o := start(t, Options{}, "-garbage-on", `"kind":"tf32"`)
	old := pid(t, o)
	vs := judge(t, o, kw(kindword.F16, 1, false), kw(kindword.TF32, 1, false))
	for _, v := range vs {
		want(t, v, oracles.Error, `exec:toy answered garbage: not a JSON answer (invalid character 'h' in literal true (expecting 'r')): "this is not JSON"`)
	}
	if alive(old) {
		t.Errorf("verifier %d still alive after garbage", old)
	}
	next := judge(t, o, kw(kindword.F16, 1, false))
	want(t, next[0], oracles.Accept, "")
}

func TestMissingAndDuplicateIDs(t *testing.T) {
	o := start(t, Options{}, "-drop-on", `"kind":"tf32"`, "-dup-on", `"kind":"i8"`)
	old := pid(t, o)
	vs := judge(t, o, kw(kindword.F16, 1, false), kw(kindword.TF32, 1, false), kw(kindword.I8, 2, true), kw(kindword.F16, 3, false))
	want(t, vs[0], oracles.Accept, "")
	want(t, vs[1], oracles.Error, "exec:toy answered garbage: no verdict for this case")
	want(t, vs[2], oracles.Error, "exec:toy answered garbage: 2 verdicts for this case")
	want(t, vs[3], oracles.Reject, "got 3")
	if alive(old) {
		t.Errorf("verifier %d still alive after a protocol violation", old)
	}
	next := judge(t, o, kw(kindword.F16, 1, false))
	want(t, next[0], oracles.Accept, "")
	if pid(t, o) == old {
		t.Errorf("verifier not restarted after a protocol violation")
	}
}

func TestExtraIDRestarts(t *testing.T) {
	var logs bytes.Buffer
	o := start(t, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, "-extra-id")
	old := pid(t, o)
	vs := judge(t, o, kw(kindword.F16, 1, false))
	want(t, vs[0], oracles.Accept, "")
	if alive(old) {
		t.Errorf("verifier %d still alive after a verdict for an unknown id", old)
	}
	vs = judge(t, o, kw(kindword.F16, 1, false)) // by a restarted verifier
	want(t, vs[0], oracles.Accept, "")
	if !strings.Contains(logs.String(), `verdict for unknown id \"ffffffffffffffff\"`) {
		t.Errorf("logs do not name the unknown id:\n%s", logs.String())
	}
}

// TestExitWhileIdle: a verifier that exits between batches is restarted
// without costing the next batch anything.
func TestExitWhileIdle(t *testing.T) {
	o := start(t, Options{}, "-exit-after", "1")
	for range 3 {
		vs := judge(t, o, kw(kindword.F16, 1, false))
		want(t, vs[0], oracles.Accept, "")
		p := pid(t, o) // the process that answered, and now exits
		for deadline := time.Now().Add(10 * time.Second); alive(p); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("verifier %d did not exit after its one batch", p)
			}
		}
	}
}

func TestContextCancelled(t *testing.T) {
	o := start(t, Options{}, "-hang-on", `"kind":"tf32"`)
	old := pid(t, o)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := o.Judge(ctx, []domain.Case{kw(kindword.TF32, 1, false)})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Judge = %v, want the context's error", err)
	}
	if alive(old) {
		t.Errorf("verifier %d still alive after cancellation", old)
	}
	want(t, judge(t, o, kw(kindword.F16, 1, false))[0], oracles.Accept, "")
}

func TestJudgeAfterClose(t *testing.T) {
	o := start(t, Options{})
	old := pid(t, o)
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if alive(old) {
		t.Errorf("verifier %d alive after Close", old)
	}
	if _, err := o.Judge(context.Background(), []domain.Case{kw(kindword.F16, 1, false)}); err == nil {
		t.Errorf("Judge after Close succeeded")
	}
}

// TestConcurrentJudge: several goroutines share one verifier; every one gets
// its own verdicts. Run with -race.
func TestConcurrentJudge(t *testing.T) {
	o := start(t, Options{}, "-crash-on", `"kind":"mxf4"`)
	kinds := []kindword.Kind{kindword.F16, kindword.TF32, kindword.I8, kindword.F8F6F4, kindword.MXF4}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 5 {
				k := kinds[(g+i)%len(kinds)]
				c := kw(k, uint8(1+(g+i)%3), g%2 == 0)
				vs, err := o.Judge(context.Background(), []domain.Case{c, kw(kindword.F16, 1, false)})
				if err != nil {
					t.Errorf("Judge: %v", err)
					return
				}
				if vs[0].Case != c.ID {
					t.Errorf("verdict for %s, want %s", vs[0].Case, c.ID)
				}
				if k == kindword.MXF4 && vs[0].Kind != oracles.Error {
					t.Errorf("crashing case: %s", vs[0].Kind)
				}
				if k != kindword.MXF4 && vs[1].Kind != oracles.Accept {
					t.Errorf("f16 beside %s: %s %q", k, vs[1].Kind, vs[1].Diagnostic)
				}
			}
		})
	}
	wg.Wait()
}

// script is a verifier written in sh, for misbehaviours the example
// verifier has no flag for.
func script(t *testing.T, opts Options, body string) *Oracle {
	t.Helper()
	if _, err := osexec.LookPath("sh"); err != nil {
		t.Skipf("sh not found: %v", err)
	}
	opts.Logger = slog.New(slog.NewTextHandler(t.Output(), nil))
	o, err := Start(context.Background(), Spec{Name: "toy", Argv: []string{"sh", "-c", body}}, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = o.Close() })
	return o
}

// TestRestartWithOtherHello: a verifier replaced mid-run by another version
// is refused, not silently mixed into the same oracle version.
func TestRestartWithOtherHello(t *testing.T) {
	dir := t.TempDir()
	o := script(t, Options{}, `if [ -e `+dir+`/started ]; then v=2; else v=1; touch `+dir+`/started; fi
echo '{"protocol":"legalfuzz-exec/1","name":"s","version":"'$v'","domains":["kindword"]}'
read line; exit 1`)
	c := kw(kindword.F16, 1, false)
	want(t, judge(t, o, c)[0], oracles.Error, "exec:toy crashed mid-batch (exit status 1)")
	want(t, judge(t, o, c)[0], oracles.Error, "exec:toy restarted with hello")
	if o.Version() != "1" {
		t.Errorf("version changed to %q", o.Version())
	}
}

// TestAnswerBeforeReading: a verifier that answers without reading a large
// request is a protocol failure, not a desynchronized next batch.
func TestAnswerBeforeReading(t *testing.T) {
	o := script(t, Options{BatchTimeout: 500 * time.Millisecond},
		`echo '{"protocol":"legalfuzz-exec/1","name":"s","version":"1","domains":["kindword"]}'
sleep 0.2; echo '{"batch":1,"verdicts":[]}'; sleep 30`)
	cases := randomCases(rand.New(rand.NewPCG(1, 2)), 1000) // far more than a pipe holds
	vs := judge(t, o, cases...)
	want(t, vs[0], oracles.Error, "exec:toy answered garbage: answer came before the whole request was read")
}

// BenchmarkJudge times 1,000 cases through the example verifier in one
// request and one request per case.
func BenchmarkJudge(b *testing.B) {
	cases := randomCases(rand.New(rand.NewPCG(1, 1)), 1000)
	for _, size := range []int{0, 1} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			o, err := Start(context.Background(), Spec{Name: "toy", Argv: []string{verifierPath}},
				Options{BatchSize: size, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				b.Fatal(err)
			}
			defer o.Close()
			for b.Loop() {
				if _, err := o.Judge(context.Background(), cases); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestEscapedChildEndsWithTheVerifier: a verifier's child that left its
// process group with setsid outlived the campaign. It ends with the
// verifier, whichever way the verifier ends.
func TestEscapedChildEndsWithTheVerifier(t *testing.T) {
	if _, err := osexec.LookPath("setsid"); err != nil {
		t.Skipf("setsid not found: %v", err)
	}
	for _, end := range []string{"close", "crash"} {
		t.Run(end, func(t *testing.T) {
			dir := t.TempDir()
			o := script(t, Options{}, `setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! > `+dir+`/child
echo '{"protocol":"legalfuzz-exec/1","name":"s","version":"1","domains":["kindword"]}'
read line; exit 1`)
			var child int
			for deadline := time.Now().Add(5 * time.Second); child == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				data, _ := os.ReadFile(filepath.Join(dir, "child"))
				fmt.Sscan(string(data), &child)
			}
			if child == 0 || !running(child) {
				t.Fatalf("the verifier's setsid child (pid %d) did not start", child)
			}
			if end == "crash" {
				judge(t, o, kw(kindword.F16, 1, false)) // the verifier exits mid-batch, leaving its child
			}
			if err := o.Close(); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(5 * time.Second); running(child); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					_ = syscall.Kill(child, syscall.SIGKILL)
					t.Fatalf("the verifier's setsid child (pid %d) still runs after the verifier ended", child)
				}
			}
		})
	}
}

// running reports whether pid is a live process (not a zombie).
func running(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
