package cuda

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/oracles"
)

// TestMain lets the test binary serve kernel launches as a child process
// (ChildExecutor re-runs it with ChildEnv set), as legalfuzz's main does.
func TestMain(m *testing.M) {
	ServeChildIfAsked()
	os.Exit(m.Run())
}

// deviceOrSkip opens device 0 or skips the test with the reason.
func deviceOrSkip(t *testing.T) *Device {
	t.Helper()
	dev, err := Open(0)
	if err != nil {
		t.Skipf("no CUDA device: %v", err)
	}
	return dev
}

// noDevice returns why this machine has no usable device, or skips the
// test where one is present.
func noDevice(t *testing.T) error {
	t.Helper()
	_, err := Open(0)
	if err == nil {
		t.Skip("a CUDA device is present; this test is for machines without one")
	}
	if !errors.Is(err, ErrNoDriver) && !errors.Is(err, ErrNoCUDADevice) && !errors.Is(err, ErrOldDevice) {
		t.Fatalf("Open: %v does not wrap a documented sentinel", err)
	}
	return err
}

// Without a driver or device every GPU oracle is unavailable, and its
// status says why (the dlopen error for a missing libcuda.so.1) and how
// to get one.
func TestDiscoverWithoutDevice(t *testing.T) {
	reason := noDevice(t)
	t.Logf("no device: %v", reason)
	if errors.Is(reason, ErrNoDriver) && !strings.Contains(reason.Error(), "libcuda.so.1") && os.Getenv(LibraryEnv) == "" {
		t.Errorf("the reason %q does not name libcuda.so.1", reason)
	}
	ctx := context.Background()
	d, ds := DiscoverDriver(ctx)
	j, js := DiscoverJIT(ctx, GPUOptions{})
	g, gs := DiscoverGPU(ctx, GPUOptions{})
	if d != nil || j != nil || g != nil {
		t.Fatalf("an oracle was made without a device")
	}
	for _, st := range []oracles.Status{ds, js, gs} {
		if st.Available || st.Reason != reason.Error() || st.Install != Install || len(st.Domains) == 0 {
			t.Errorf("status %+v, want unavailable because %q", st, reason)
		}
	}
	if ds.Name != DriverName || js.Name != JITName || gs.Name != GPUName {
		t.Errorf("names %s %s %s", ds.Name, js.Name, gs.Name)
	}
}

// A library that is not there is ErrNoDriver with the loader's words.
func TestLoadMissingLibrary(t *testing.T) {
	_, err := load("/nonexistent/libcuda.so.1")
	if !errors.Is(err, ErrNoDriver) || !strings.Contains(err.Error(), "/nonexistent/libcuda.so.1") {
		t.Fatalf("load: %v", err)
	}
}

// A binary that does not serve launches is ErrNoChild, and so is a child
// without a device, with its reason.
func TestChildHandshake(t *testing.T) {
	ctx := context.Background()
	c := &ChildExecutor{Command: []string{"/bin/true"}}
	if _, _, err := c.Start(ctx); !errors.Is(err, ErrNoChild) {
		t.Fatalf("/bin/true as child: %v", err)
	}
	self := &ChildExecutor{Command: []string{os.Args[0], "-test.run=^$"}}
	defer self.Close()
	name, sm, err := self.Start(ctx)
	if _, derr := Open(0); derr != nil {
		if !errors.Is(err, ErrNoChild) || !strings.Contains(err.Error(), derr.Error()) {
			t.Fatalf("child without a device: %v, want ErrNoChild with %q", err, derr)
		}
		return
	}
	if err != nil || sm < MinSM {
		t.Fatalf("child on a device: %s sm_%d, %v", name, sm, err)
	}
}

// fakeChild is a launch child in sh: it greets, then runs answer on each
// request it reads.
func fakeChild(answer string) *ChildExecutor {
	hello := `{"protocol":"` + childProtocol + `","device":"fake","sm":90}`
	return &ChildExecutor{Command: []string{"sh", "-c", "echo '" + hello + "'; while read req; do " + answer + "; done"}}
}

// A JIT that crashes the child on a module is that module's result (a
// crash, saying how the child ended), and the next load starts a new child.
func TestChildJITCrash(t *testing.T) {
	ctx := context.Background()
	crash := fakeChild("kill -SEGV $$")
	defer crash.Close()
	res, err := crash.LoadModule(ctx, ".version 8.0")
	if err != nil || !res.Crashed || res.OK || !strings.Contains(res.Log, "segmentation fault") {
		t.Fatalf("crashing JIT: %+v, %v", res, err)
	}
	if res, err := crash.LoadModule(ctx, ".version 8.0"); err != nil || !res.Crashed {
		t.Fatalf("second load after a crash: %+v, %v", res, err)
	}
	ok := fakeChild(`echo '{"result":{},"jit":{"OK":true,"Log":"fine"}}'`)
	defer ok.Close()
	if res, err := ok.LoadModule(ctx, ".version 8.0"); err != nil || !res.OK || res.Log != "fine" {
		t.Fatalf("a load the child answers: %+v, %v", res, err)
	}
	// The crash decides nothing in a module of several entries (the batch
	// is split), and is an error verdict for one entry alone.
	o := NewJITOracle(crash, "fake", 90, 90)
	two := jitModule{names: map[string]int{"case_a": 0, "case_b": 1}}
	if rep := o.Parse(two, res); len(rep.Decided) != 0 {
		t.Errorf("a crashed module of two decided %v", rep.Decided)
	}
	one := jitModule{names: map[string]int{"case_a": 0}}
	if got := o.Parse(one, res).Decided[0]; got.Kind != oracles.Error || !strings.Contains(got.Diagnostic, "JIT crashed") {
		t.Errorf("a crashed module of one: %+v", got)
	}
}
