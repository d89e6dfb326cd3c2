package cuda

import (
	"context"
	"os"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/matdesc"
	"github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
)

// The tests in this file need a GPU (compute capability 9.0+) and skip
// with the reason elsewhere. docs/gpu-worker.md says how to run them on a
// GPU machine from a test binary built here.

// seedCases are the seeds of the named domains as cases.
func seedCases(names ...string) []domain.Case {
	var out []domain.Case
	for _, n := range names {
		d, _ := fuzz.Lookup(n)
		for _, v := range d.Seeds() {
			out = append(out, domain.NewCase(n, v))
		}
	}
	return out
}

// logVerdicts logs every verdict and returns the count of each kind.
func logVerdicts(t *testing.T, cases []domain.Case, vs []oracles.Verdict) map[oracles.Kind]int {
	t.Helper()
	kinds := map[oracles.Kind]int{}
	for i, v := range vs {
		kinds[v.Kind]++
		t.Logf("%s %s %v: %s %s %s", v.Domain, v.Case, cases[i].Value, v.Kind, v.Diagnostic, v.Value)
	}
	t.Logf("%v", kinds)
	return kinds
}

func TestGPUDriverOracleOnSeeds(t *testing.T) {
	deviceOrSkip(t)
	o, st := DiscoverDriver(context.Background())
	if o == nil {
		t.Fatalf("cuda-driver unavailable on a GPU machine: %+v", st)
	}
	defer o.Close()
	o.AnyTarget = os.Getenv("LEGALFUZZ_ANY_TARGET") != ""
	cases := seedCases(tmadesc.Name)
	vs, err := o.Judge(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	kinds := logVerdicts(t, cases, vs)
	if kinds[oracles.Error] > 0 {
		t.Errorf("the encoder failed in itself on %d seeds", kinds[oracles.Error])
	}
	base, _ := o.Judge(context.Background(), []domain.Case{domain.NewCase(tmadesc.Name, tmadesc.BaseTiled)})
	if o.ctx.dev.SM == 90 && base[0].Kind != oracles.Accept {
		t.Errorf("BaseTiled: %+v", base[0])
	}
}

func TestGPUJITOracleOnSeeds(t *testing.T) {
	deviceOrSkip(t)
	o, st := DiscoverJIT(context.Background(), childOptions())
	if o == nil {
		t.Fatalf("cuda-jit unavailable on a GPU machine: %+v", st)
	}
	defer o.Close()
	cases := seedCases(ptx.Domains()...)
	vs, err := o.Judge(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	logVerdicts(t, cases, vs)
	for i, v := range vs {
		if v.Kind != oracles.Error {
			continue
		}
		if why, ok := knownJITCrashes[cases[i].ID]; ok {
			t.Logf("known JIT crash on %s (%s): %s", cases[i].ID, why, v.Diagnostic)
			continue
		}
		t.Errorf("the JIT failed in itself on seed %s %s: %s", cases[i].Domain, cases[i].ID, v.Diagnostic)
	}
}

// knownJITCrashes are the seeds the driver's JIT crashes on, found on
// hardware and recorded in docs/gpu-runs.md: the JIT's bug, not the
// harness's, and still a crash verdict in every campaign.
var knownJITCrashes = map[string]string{
	"b9b89266504c813e": "mbarrier.init with count 0: SIGSEGV in cuModuleLoadDataEx, driver 580.159.04",
}

// childOptions run launches and JIT loads in this test binary as the
// child, or in process with LEGALFUZZ_GPU_IN_PROCESS set.
func childOptions() GPUOptions {
	return GPUOptions{ChildCommand: []string{os.Args[0], "-test.run=^$"}, InProcess: os.Getenv("LEGALFUZZ_GPU_IN_PROCESS") != ""}
}

// gpuOracle starts the gpu oracle with this test binary as its launch
// child (see TestMain), or in process with LEGALFUZZ_GPU_IN_PROCESS set.
func gpuOracle(t *testing.T) *GPUOracle {
	t.Helper()
	deviceOrSkip(t)
	o, st := DiscoverGPU(context.Background(), childOptions())
	if o == nil {
		t.Fatalf("gpu unavailable on a GPU machine: %+v", st)
	}
	t.Cleanup(func() { o.Close() })
	o.AnyTarget = os.Getenv("LEGALFUZZ_ANY_TARGET") != ""
	return o
}

// The legal tiled seeds land in shared memory as predicted.
func TestGPUTMALoadsOnSeeds(t *testing.T) {
	o := gpuOracle(t)
	cases := seedCases(tmadesc.Name)
	vs, err := o.Judge(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	logVerdicts(t, cases, vs)
	base, err := o.Judge(context.Background(), []domain.Case{domain.NewCase(tmadesc.Name, tmadesc.BaseTiled)})
	if err != nil {
		t.Fatal(err)
	}
	if o.dev.SM == 90 && base[0].Kind != oracles.Accept {
		t.Errorf("BaseTiled (64x64 f16, 128B swizzle): %+v", base[0])
	}
}

// Every aligned ldmatrix/stmatrix form moves the predicted fragments, and
// a misaligned one faults without ending the checks that follow it.
func TestGPULDSMFragments(t *testing.T) {
	o := gpuOracle(t)
	var cases []domain.Case
	for _, f := range LDSMForms() {
		for _, align := range []uint16{16, 128, 1024} {
			cases = append(cases, domain.NewCase(ldsm.Name, ldsmValue(f.Op, uint8(f.Num), f.Trans, align)))
		}
	}
	misaligned := domain.NewCase(ldsm.Name, ldsmValue(ldsm.Load, 4, false, 8))
	after := domain.NewCase(ldsm.Name, ldsmValue(ldsm.Load, 4, true, 32))
	all := append(cases, misaligned, after)
	vs, err := o.Judge(context.Background(), all)
	if err != nil {
		t.Fatal(err)
	}
	logVerdicts(t, all, vs)
	for i := range cases {
		if vs[i].Kind != oracles.Accept {
			t.Errorf("%v: %+v", cases[i].Value, vs[i])
		}
	}
	t.Logf("misaligned (8 bytes): %s %s", vs[len(cases)].Kind, vs[len(cases)].Diagnostic)
	if vs[len(cases)+1].Kind != oracles.Accept {
		t.Errorf("the case after the misaligned one: %+v", vs[len(cases)+1])
	}
}

// wgmma descriptors of the seeds: predictions where the layout reading
// holds, results (to read) where it does not.
func TestGPUWGMMADescriptors(t *testing.T) {
	o := gpuOracle(t)
	if o.dev.SM != 90 {
		t.Skipf("wgmma needs an sm_90 device; this is sm_%d", o.dev.SM)
	}
	cases := seedCases(matdesc.Name)
	vs, err := o.Judge(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	logVerdicts(t, cases, vs)
}
