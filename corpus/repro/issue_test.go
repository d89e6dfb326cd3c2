package repro

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	wg "github.com/legalfuzz/legalfuzz/fuzz/wgmma"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
	"github.com/legalfuzz/legalfuzz/oracles/mlir"
	"github.com/legalfuzz/legalfuzz/oracles/mlir/reproduce"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain/toolchaintest"
)

// TestWriteIssue plants the silent wgmma K miscompile as the campaign
// records it (verdicts as the oracles gave them on a 64x24 f16 tile) and
// checks the issue a maintainer would get.
func TestWriteIssue(t *testing.T) {
	s := storetest.Open(t, "")
	v := wg.Seeds()[0].(wg.Value)
	v.K, v.BK = 24, 24
	c := domain.NewCase(wg.Name, v)
	ref, err := spec.New(spec.PTXISA).Judge(context.Background(), []domain.Case{c})
	if err != nil || ref[0].Kind != oracles.Reject {
		t.Fatalf("spec/ptxisa on K 24: %+v %v", ref, err)
	}
	mlirV := oracles.Verdict{Oracle: "mlir@19", Version: "mlir-opt 19.1.7 +lowering ptxas 12.4.131", Case: c.ID, Domain: c.Domain,
		Kind: oracles.Error, Rule: "ptx/dropped", Diagnostic: "ptx: 1 wgmma.mma_async m64n128k16 where the op needs 2 (a 64x24 tile in m64n128k16 steps)"}
	pair := policy.Pair{A: oracles.SpecPTXISA, B: "mlir@19", On: policy.OnVerdict}
	bs := storetest.Plant(t, s, c, policy.Policy{Domain: c.Domain, Pairs: []policy.Pair{pair}}, []oracles.Verdict{ref[0], mlirV})
	if len(bs) != 1 {
		t.Fatalf("plant: %d buckets", len(bs))
	}
	b := bs[0]
	b.Versions = []store.VersionVerdict{
		{Oracle: "mlir@19", Version: mlirV.Version, Kind: oracles.Error, Rule: "ptx/dropped", Outcome: store.Reproduces},
		{Oracle: "mlir@22", Version: "mlir-opt 22.1.8 +lowering ptxas 12.4.131", Kind: oracles.Error, Rule: "ptx/dropped", Outcome: store.Reproduces},
	}
	if err := s.PutBucket(b); err != nil {
		t.Fatal(err)
	}
	bd, err := Write(context.Background(), s, b.Key, t.TempDir(), discovered(t))
	if err != nil {
		t.Fatal(err)
	}
	path, err := WriteIssue(context.Background(), bd)
	if err != nil {
		t.Fatal(err)
	}
	issue := read(t, path)
	t.Log(issue)
	for _, want := range []string{
		"# [MLIR][NVGPU] nvgpu.warpgroup.mma lowers to PTX with 1 wgmma.mma_async m64n128k16 where the op needs 2 (a 64x24 tile in m64n128k16 steps)\n",
		"**Filing:** File with LLVM (https://github.com/llvm/llvm-project/issues), component MLIR, NVGPU dialect: it reproduces on the newest version tested (22).",
		"Found in: reproduces in 19 and 22. **The newest version tested still reproduces it.**",
		"## Input (`case.mlir`)", "nvgpu.warpgroup.mma", "memref<64x24xf16, 3>",
		"## Command", "mlir-opt --pass-pipeline",
		"says **error** at stage `ptx/dropped`",
		"The lowering must emit all the work the op asks for, or the verifier must reject the op. One instruction cannot do all of it (K must be",
		"got 24, want 16 (PTX ISA 9.7.15.5.2 (wgmma.mma_async); PTX ISA 9.7.15.6.3 (wgmma.mma_async.sp))), so the lowering must emit several.",
	} {
		if !strings.Contains(issue, want) {
			t.Errorf("issue.md lacks %q", want)
		}
	}
	if filepath.Base(path) != IssueFile {
		t.Errorf("written to %s", path)
	}
}

// TestIssueOnTrunk: a bucket LLVM main still reproduces is written for
// main: its words, its commands, and the snapshot's commit. The case is
// the wgmma K miscompile (K=24 lowered to one m64n128k16), which the
// 2026-10-25 trunk still has.
func TestIssueOnTrunk(t *testing.T) {
	ctx := context.Background()
	in := toolchaintest.Trunk(t)
	trunk, st := mlir.Discover(ctx, in)
	if trunk == nil || trunk.Lower == nil {
		t.Skipf("mlir@trunk with its lowering: %s", st.Reason)
	}
	s := storetest.Open(t, "")
	v := wg.Seeds()[0].(wg.Value)
	v.K, v.BK = 24, 24
	c := domain.NewCase(wg.Name, v)
	ref, err := spec.New(spec.PTXISA).Judge(ctx, []domain.Case{c})
	if err != nil {
		t.Fatal(err)
	}
	old := oracles.Verdict{Oracle: "mlir@19", Version: "mlir-opt 19.1.7 +lowering ptxas 12.4.131", Case: c.ID, Domain: c.Domain,
		Kind: oracles.Error, Rule: "ptx/dropped", Diagnostic: "ptx: 1 wgmma.mma_async m64n128k16 where the op needs 2 (a 64x24 tile in m64n128k16 steps)"}
	pair := policy.Pair{A: oracles.SpecPTXISA, B: "mlir@19", On: policy.OnVerdict}
	b := storetest.Plant(t, s, c, policy.Policy{Domain: c.Domain, Pairs: []policy.Pair{pair}}, []oracles.Verdict{ref[0], old})[0]
	b.Versions = []store.VersionVerdict{
		{Oracle: "mlir@19", Version: old.Version, Kind: oracles.Error, Rule: "ptx/dropped", Outcome: store.Reproduces},
		{Oracle: trunk.Name(), Version: trunk.Version(), Kind: oracles.Error, Rule: "ptx/dropped", Outcome: store.Reproduces},
	}
	if err := s.PutBucket(b); err != nil {
		t.Fatal(err)
	}
	bd, err := Write(ctx, s, b.Key, t.TempDir(), []oracles.Oracle{trunk})
	if err != nil {
		t.Fatal(err)
	}
	path, err := WriteIssue(ctx, bd)
	if err != nil {
		t.Fatal(err)
	}
	issue := read(t, path)
	for _, want := range []string{
		"trunk is LLVM main of " + in.Snapshot,
		"mlir@trunk (" + trunk.Version() + ") says **error** at stage `ptx/dropped`",
		"# the tools of the LLVM installation trunk",
	} {
		if !strings.Contains(issue, want) {
			t.Errorf("issue.md lacks %q:\n%s\ncommands.txt:\n%s", want, issue, read(t, filepath.Join(bd.Dir, CommandsFile)))
		}
	}
	if bd.Observed.Oracle != "mlir@trunk" || !strings.Contains(read(t, bd.Script), in.Path("mlir-opt")) {
		t.Errorf("bundle observed %s; repro.sh does not run trunk's mlir-opt", bd.Observed.Oracle)
	}
}

// issueCase is a bucket as a campaign stored it: its signature, the
// deviating tool's verdict and spec/ptxisa's, in their real words, with
// the input file its bundle held (testdata/issue/KEY/, from `triage
// bundle` on the buckets docs/triage-audit.md lists).
type issueCase struct {
	name     string
	key      string
	sig      policy.Signature
	obs, ref oracles.Verdict
	// outcomes are the replay's, one per installation of the tool's
	// family, oldest first.
	outcomes []string
	title    string
	filing   string
}

// mlirVerdict is an mlir@trunk verdict as the oracle stores it.
func mlirVerdict(kind oracles.Kind, rule, diagnostic string) oracles.Verdict {
	return oracles.Verdict{Oracle: "mlir@trunk", Version: "mlir-opt 24.0.0 +lowering ptxas 12.4.131", Kind: kind, Rule: rule, Diagnostic: diagnostic}
}

// specVerdict is spec/ptxisa's verdict on a case.
func specVerdict(kind oracles.Kind, rule, diagnostic string) oracles.Verdict {
	return oracles.Verdict{Oracle: oracles.SpecPTXISA, Version: "rules-58f236c9f967", Kind: kind, Rule: rule, Diagnostic: diagnostic}
}

// signature is the signature a bucket of tool's verdict against ref has.
func signature(domainName string, tool, ref oracles.Verdict) policy.Signature {
	s := policy.Signature{Domain: domainName, Tool: tool.Oracle, Kind: tool.Kind, Rule: ref.Rule, SpecKind: ref.Kind, On: policy.OnVerdict,
		Pair: policy.Pair{A: oracles.SpecPTXISA, B: tool.Oracle, On: policy.OnVerdict}}
	if tool.Kind != oracles.Accept {
		s.Stage = tool.Rule
	}
	return s
}

// fileLLVM is the filing line of a bucket LLVM's newest version tested
// still shows.
func fileLLVM(component, newest string) string {
	return "File with LLVM (https://github.com/llvm/llvm-project/issues), component " + component + ": it reproduces on the newest version tested (" + newest + ")."
}

// withRule is s keyed by another rule: the first one the tool can see
// (policy's accountable rule), not the first spec/ptxisa names.
func withRule(s policy.Signature, rule string) policy.Signature {
	s.Rule = rule
	return s
}

// The verdicts of the buckets of issueCases, as the campaign stored them.
var (
	d062     = mlirVerdict(oracles.Error, "lowering", "lowering: mlir-opt crashed (aborted) in mlir::NVVM::MmaOp::verify()")
	d062Ref  = specVerdict(oracles.Reject, "ptxisa.mma.accumulator-type", ".ctype/.dtype not allowed for this .atype")
	x7d93    = mlirVerdict(oracles.Error, "translate", "translate: mlir-translate crashed (segmentation fault) in llvm::Intrinsic::getIntrinsicInfoTableEntries(unsigned int, llvm::SmallVectorImpl<llvm::Intrinsic::IITDescriptor>&)")
	x7d93Ref = specVerdict(oracles.Reject, "ptxisa.blockscale.mxf8f6f4-types", ".kind::mxf8f6f4 takes .e4m3, .e5m2, .e3m2, .e2m3 or .e2m1 for A and B")
	x93af    = mlirVerdict(oracles.Error, "ptx/dropped", "ptx: 1 wgmma.mma_async m64n8k16 where the op needs 2 (a 64x24 tile in m64n8k16 steps)")
	x93afRef = specVerdict(oracles.Reject, "ptxisa.wgmma.k", "K must be one 32-byte row of A (16 .f16/.bf16, 8 .tf32, 32 8-bit, 256 .b1), doubled with .sp: got 24, want 16")
	e413     = mlirVerdict(oracles.Accept, "ptxas", "")
	e413Ref  = specVerdict(oracles.Reject, "ptxisa.tmadesc.oob-fill-float", "oobFill NAN_REQUEST_ZERO_FMA requires a floating-point type")
	x1760    = mlirVerdict(oracles.Error, "llc/refused", "llc: LLVM ERROR: Cannot select: intrinsic llvm.nvvm.stmatrix.sync.aligned.m8n8.x1.b16")
	x1760Ref = specVerdict(oracles.Reject, "ptxisa.ldsm.stmatrix-target", "stmatrix requires sm_90 or later")
	x6631Ref = specVerdict(oracles.Reject, "ptxisa.ldsm.type-spelling", "PTX spells the element type .b16 or .b8, not u16 or u8")
	x6ada    = oracles.Verdict{Oracle: "ptxas", Version: "12.4.131", Kind: oracles.Accept}
	x6adaRef = specVerdict(oracles.Reject, "ptxisa.mma.selector", "sparsity selector out of range for this shape and type: 2, allowed 0..1")
	x9952    = oracles.Verdict{Oracle: "amdgpu-mc@trunk", Version: "24.0.0", Kind: oracles.Accept, Rule: "amdgpu-mc@trunk.assembled", Value: "0xbf8c8100"}
	x9952Ref = specVerdict(oracles.Reject, "ptxisa.waitcntasm.operand-range", "the integer operand is outside 0..0xFFFF: 0x18100")
	x26fd    = mlirVerdict(oracles.Reject, "verify", "'nvgpu.mma.sync' op failed to verify that matrixA and matrixB have same element type")
	x4014    = mlirVerdict(oracles.Reject, "lowering", "lowering: invalid shape or multiplicand type: f64")
	x1e44    = oracles.Verdict{Oracle: "mlir@23", Version: "mlir-opt 23.1.4 +lowering ptxas 12.4.131", Kind: oracles.Reject, Rule: "verify",
		Diagnostic: "expected input data type (i4,i8,f16,bf16,tf32,f64) supported by nvgpu.mma.sync"}
	mmaAccepts = specVerdict(oracles.Accept, "ptxisa.mma", "")
	x4c6e      = oracles.Verdict{Oracle: "llc@19", Version: "19.1.7", Kind: oracles.Accept, Rule: "llc.accepted"}
	// x6381 is a wrong-value verdict of llc's (the diagnostic made up: the
	// real bucket was a check of ours that forgot .and.popc).
	x6381 = oracles.Verdict{Oracle: "llc@trunk", Version: "24.0.0", Kind: oracles.Error, Rule: "ptx/value",
		Diagnostic: "ptx: mma.sync.aligned.m8n8k128 .row.col.s32.b1.b1.s32.xor.popc where the op means .row.col.s32.b1.b1.s32.and.popc\n" +
			"emitted: mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {...}, {param0}, {param1}, {param2, param3}"}
	x4c6eRef = specVerdict(oracles.Reject, "ptxisa.mma.dtype-ctype", ".dtype must equal .ctype (only m8n8k4 .f16 lets an .f16 C give an .f32 D)")
)

// issueCases are one bucket of each class and each component.
var issueCases = []issueCase{
	{"crash NVGPU", "d062ac3b161c509c", signature("mma", d062, d062Ref), d062, d062Ref,
		[]string{store.Fixed, store.Reproduces, store.Reproduces, store.Reproduces},
		"[MLIR][NVGPU] mlir-opt crashed (aborted) in mlir::NVVM::MmaOp::verify", fileLLVM("MLIR, NVGPU dialect", "trunk")},
	{"crash LLVMIR translation", "7d930d48269be513", signature("blockscale", x7d93, x7d93Ref), x7d93, x7d93Ref,
		[]string{store.Fixed, store.Reproduces, store.Reproduces, store.Reproduces},
		"[MLIR][LLVMIR] mlir-translate crashed (segmentation fault) in llvm::Intrinsic::getIntrinsicInfoTableEntries", fileLLVM("MLIR, LLVM IR translation", "trunk")},
	{"miscompile NVGPU", "93afe7d43ba677b8", signature("wgmma", x93af, x93afRef), x93af, x93afRef,
		[]string{store.Reproduces, store.Reproduces, store.Reproduces, store.Reproduces},
		"[MLIR][NVGPU] nvgpu.warpgroup.mma lowers to PTX with 1 wgmma.mma_async m64n8k16 where the op needs 2 (a 64x24 tile in m64n8k16 steps)", fileLLVM("MLIR, NVGPU dialect", "trunk")},
	{"too-permissive NVGPU", "e41324ced01f7651", signature("tmadesc", e413, e413Ref), e413, e413Ref,
		[]string{store.Reproduces, store.Reproduces, store.Reproduces, store.Reproduces},
		"[MLIR][NVGPU] nvgpu.tma.create.descriptor verifies though oobFill NAN_REQUEST_ZERO_FMA requires a floating-point type", fileLLVM("MLIR, NVGPU dialect", "trunk")},
	{"too-permissive NVVM", "1760723d14849b82", signature("ldsm", x1760, x1760Ref), x1760, x1760Ref,
		[]string{store.Reproduces, store.Reproduces, store.Reproduces, store.Reproduces},
		"[MLIR][NVVM] nvvm.stmatrix verifies though stmatrix requires sm_90 or later, and llc refuses its lowering",
		fileLLVM("MLIR, NVVM dialect", "trunk")},
	{"too-permissive by a rule spec/ptxisa did not name first", "6631613eecb43f86", withRule(signature("ldsm", x1760, x6631Ref), "ptxisa.ldsm.stmatrix-ptx"), x1760, x6631Ref,
		[]string{store.Reproduces, store.Reproduces, store.Reproduces, store.Reproduces},
		"[MLIR][NVVM] nvvm.stmatrix verifies though stmatrix requires PTX ISA 7.8, and llc refuses its lowering",
		fileLLVM("MLIR, NVVM dialect", "trunk")},
	{"too-permissive ptxas", "6ada45a3580973fa", signature("mma", x6ada, x6adaRef), x6ada, x6adaRef,
		[]string{store.Reproduces},
		"NVIDIA (ptxas) ptxas accepts mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 though sparsity selector out of range for this shape and type: 2, allowed 0..1",
		"File with NVIDIA (ptxas), not LLVM: it reproduces on the newest version tested (12)."},
	{"too-permissive AMDGPU MC", "99521c907952f57d", signature("waitcntasm", x9952, x9952Ref), x9952, x9952Ref,
		[]string{store.Reproduces, store.Reproduces, store.Reproduces, store.Reproduces},
		"[AMDGPU][MC] llvm-mc accepts s_waitcnt 98560 though the integer operand is outside 0..0xFFFF: 0x18100", fileLLVM("AMDGPU assembler (MC)", "trunk")},
	{"too-permissive NVPTX", "4c6efc859eee6903", signature("mma", x4c6e, x4c6eRef), x4c6e, x4c6eRef,
		[]string{store.Reproduces, store.CannotJudge, store.CannotJudge, store.CannotJudge},
		"[NVPTX] llc compiles llvm.nvvm.mma.m16n8k16.row.col.f16.f32 though .dtype must equal .ctype (only m8n8k4 .f16 lets an .f16 C give an .f32 D)",
		fileLLVM("NVPTX backend", "19") + " Newer versions cannot tell (trunk among them): check them by hand first."},
	{"wrong value NVPTX", "638199a485416642", signature("mma", x6381, mmaAccepts), x6381, mmaAccepts,
		[]string{store.Reproduces, store.Reproduces, store.Reproduces, store.Reproduces},
		"[NVPTX] llc compiles llvm.nvvm.mma.and.popc.m8n8k128.row.col.b1 to wrong PTX: mma.sync.aligned.m8n8k128 .row.col.s32.b1.b1.s32.xor.popc where the op means .row.col.s32.b1.b1.s32.and.popc",
		fileLLVM("NVPTX backend", "trunk")},
	{"too-strict NVGPU", "26fd485103709ac3", signature("mma", x26fd, mmaAccepts), x26fd, mmaAccepts,
		[]string{store.Reproduces, store.Reproduces, store.Reproduces, store.Reproduces},
		"[MLIR][NVGPU] 'nvgpu.mma.sync' op failed to verify that matrixA and matrixB have same element type", fileLLVM("MLIR, NVGPU dialect", "trunk")},
	{"too-strict in the lowering", "4014d332301a8d99", signature("mma", x4014, mmaAccepts), x4014, mmaAccepts,
		[]string{store.Fixed, store.Fixed, store.Reproduces, store.Reproduces},
		"[MLIR][NVGPU] nvgpu.mma.sync: invalid shape or multiplicand type: f64", fileLLVM("MLIR, NVGPU dialect", "trunk")},
	{"fixed on main", "1e4488315060e847", signature("mma", x1e44, mmaAccepts), x1e44, mmaAccepts,
		[]string{store.CannotJudge, store.Reproduces, store.Reproduces, store.Fixed},
		"[MLIR][NVGPU] expected input data type (i4,i8,f16,bf16,tf32,f64) supported by nvgpu.mma.sync", "Fixed on LLVM main: do not file."},
}

// TestIssueTitles writes the issue of a bucket of each class and each
// component and checks that it reads as a maintainer of that component
// would file it: the title in the tool's terms and tagged by what
// failed, never a placeholder of a normalized diagnostic or a legalfuzz
// rule ID, and whether and where to file it.
func TestIssueTitles(t *testing.T) {
	for _, tc := range issueCases {
		t.Run(tc.name, func(t *testing.T) {
			bd := issueBundle(t, tc)
			path, err := WriteIssue(context.Background(), bd)
			if err != nil {
				t.Fatal(err)
			}
			issue := read(t, path)
			title, _, _ := strings.Cut(issue, "\n")
			if title != "# "+tc.title {
				t.Errorf("title\n%s\nwant\n# %s", title, tc.title)
			}
			if len(title) > 256 {
				t.Errorf("title of %d characters, past GitHub's 256: %s", len(title), title)
			}
			for _, bad := range []string{"sm_N", "mNnNkN", "FILE:", "FILE ", "%V", "ptxisa."} {
				if strings.Contains(title, bad) {
					t.Errorf("title holds %q: %s", bad, title)
				}
			}
			if !strings.Contains(issue, "**Filing:** "+tc.filing+"\n") {
				t.Errorf("issue.md lacks the filing line %q:\n%s", tc.filing, issue)
			}
			if tc.obs.Value != "" && !strings.Contains(issue, "value `"+tc.obs.Value+"`") {
				t.Errorf("issue.md does not say what %s computed, %s:\n%s", tc.obs.Oracle, tc.obs.Value, issue)
			}
			for _, id := range []string{tc.ref.Rule, tc.sig.Rule} {
				if strings.Contains(issue, id) {
					t.Errorf("issue.md cites legalfuzz's rule %s:\n%s", id, issue)
				}
			}
		})
	}
}

// issueBundle is a bundle of an issueCase as Write leaves it: the input
// file in its folder, with repro.sh when the bundle's repro.out holds the
// real script's output (a script that prints it again).
func issueBundle(t *testing.T, tc issueCase) Bundle {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("testdata", "issue", tc.key)
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		text, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b := store.Bucket{Key: tc.key, Signature: tc.sig}
	labels := []string{"19", "22", "23", "trunk"}
	for i, o := range tc.outcomes {
		name := oracles.Installed(oracles.Base(tc.obs.Oracle), labels[i])
		if oracles.Label(tc.obs.Oracle) == "" {
			name = tc.obs.Oracle
		}
		b.Versions = append(b.Versions, store.VersionVerdict{Oracle: name, Version: tc.obs.Version, Outcome: o})
	}
	bd := Bundle{Dir: dir, Bucket: b, Reference: tc.ref, Expected: tc.ref, Observed: tc.obs}
	if _, err := os.Stat(filepath.Join(dir, "repro.out")); err == nil {
		bd.Script = filepath.Join(dir, ScriptFile)
		if err := os.WriteFile(bd.Script, []byte("#!/bin/sh\ncat \"$(dirname \"$0\")/repro.out\"\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bd
}

// TestIssueCrashFrames: a crash's issue quotes the top frames of the
// stack dump repro.sh printed (mlir-opt-trunk aborting in
// NVVM::MmaOp::verify, testdata/issue/d062ac3b161c509c/repro.out), not
// the signal handlers, and at most maxFrames of them; an error printed
// with exit status 0 has no dump to quote.
func TestIssueCrashFrames(t *testing.T) {
	bd := issueBundle(t, issueCases[0])
	path, err := WriteIssue(context.Background(), bd)
	if err != nil {
		t.Fatal(err)
	}
	issue := read(t, path)
	want := "```\nmlir::NVVM::MmaOp::verify()\nmlir::verify(mlir::Operation*, bool)\n" +
		"mlir::detail::OpToOpPassAdaptor::run(mlir::Pass*, mlir::Operation*, mlir::AnalysisManager, bool, unsigned int)\n" +
		"mlir::PassManager::run(mlir::Operation*)\n"
	if !strings.Contains(issue, want) {
		t.Errorf("issue.md lacks the top frames %q:\n%s", want, issue)
	}
	if strings.Contains(issue, "llvm::sys::PrintStackTrace") || strings.Contains(issue, "_start") {
		t.Errorf("issue.md quotes the signal handler or frames past %d:\n%s", maxFrames, issue)
	}
	exit0 := mlirVerdict(oracles.Error, "lowering/exit-0", "lowering: 'nvgpu.mma.sync' op failed to deduce operand PTX types\n"+
		"(the error was printed with exit status 0: the stage went on as if it had succeeded)")
	tc := issueCases[0]
	tc.sig, tc.obs = signature("mma", exit0, tc.ref), exit0
	bd = issueBundle(t, tc)
	path, err = WriteIssue(context.Background(), bd)
	if err != nil {
		t.Fatal(err)
	}
	issue = read(t, path)
	if got, want := strings.SplitN(issue, "\n", 2)[0], "# [MLIR][NVGPU] 'nvgpu.mma.sync' op failed to deduce operand PTX types, exits 0"; got != want {
		t.Errorf("exit-0 title %q, want %q", got, want)
	}
	if strings.Contains(issue, "stack dump") {
		t.Errorf("an error printed with exit status 0 has no stack dump to quote:\n%s", issue)
	}
}

// TestVersionLine: issue.md says what each version did, in the stage
// names a maintainer uses, and calls a bug the older release lacks a
// regression. The replays are a 60 s campaign's, by hand: a3a4c6957b3385f9
// (mlir-opt 22 crashes verifying a rank-0 TMA load; 19's verifier lets it
// through and convert-nvgpu-to-nvvm refuses it), 7d930d48269be513 (19 has
// no spelling of blockscale) and a07bf54df757efc6 (an error printed at
// exit status 0 in 23; 19's lowering crashes instead).
func TestVersionLine(t *testing.T) {
	vv := func(label string, kind oracles.Kind, rule, outcome string) store.VersionVerdict {
		return store.VersionVerdict{Oracle: "mlir@" + label, Kind: kind, Rule: rule, Outcome: outcome}
	}
	yes := func(label, rule string) store.VersionVerdict { return vv(label, oracles.Error, rule, store.Reproduces) }
	for _, tc := range []struct {
		name, stage string
		versions    []store.VersionVerdict
		want        string
	}{
		{"regression", "verify", []store.VersionVerdict{vv("19", oracles.Reject, "pass:convert-nvgpu-to-nvvm", store.DecidedLater),
			yes("22", "verify"), yes("23", "verify"), yes("trunk", "verify")},
			"**Regression:** reproduces in 22, 23 and trunk; not in 19 (the verifier lets the case through, convert-nvgpu-to-nvvm refuses it). " +
				"**The newest version tested still reproduces it.** trunk is LLVM main of 2026-10-25."},
		{"cannot judge", "translate", []store.VersionVerdict{vv("19", "", "", store.CannotJudge), yes("22", "translate"), yes("trunk", "translate")},
			"Found in: reproduces in 22 and trunk; 19 cannot judge the case (no spelling of it, or no verdict). " +
				"**The newest version tested still reproduces it.** trunk is LLVM main of 2026-10-25."},
		{"fails otherwise, stops earlier", "lowering/exit-0", []store.VersionVerdict{vv("19", oracles.Error, "lowering", store.Differs),
			vv("22", oracles.Reject, "verify", store.StopsEarlier), yes("23", "lowering/exit-0"), yes("trunk", "lowering/exit-0")},
			"Found in: reproduces in 23 and trunk; 19 fails otherwise (the lowering fails on the case); " +
				"22 cannot tell (the verifier refuses the case before the lowering runs). " +
				"**The newest version tested still reproduces it.** trunk is LLVM main of 2026-10-25."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := store.Bucket{Signature: policy.Signature{Stage: tc.stage}, Versions: tc.versions}
			if got := versionLine(b, []string{"trunk is LLVM main of 2026-10-25"}, reproduce.Reproducer{}.Filing()); got != tc.want {
				t.Errorf("versionLine\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestCleanMessage: a title takes a tool's first line as the verdict
// stored it, normalized, and drops what normalization replaced instead of
// printing it. The outputs are real (llvm-link-19 on inline asm with more
// outputs than results, oracles/diag/testdata's ptxas and mlir-opt runs).
func TestCleanMessage(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{"link: /work/main/.oracles/bin/llvm-link-19: /tmp/bad.ll:2:17: error: number of output constraints does not match number of return struct elements\n" +
			"  %x = call i32 asm \"mov\", \"=r,=r\"()\n",
			"number of output constraints does not match number of return struct elements"},
		{"ptxas: ptxas /tmp/legalfuzz-diag-fniyrI/cp-async-size.ptx, line 11; error   : Argument 2 of instruction 'cp.async': unexpected value '12', expected to be 4 or 8 or 16\n" +
			"ptxas fatal   : Ptx assembly aborted due to errors\n",
			"Argument 2 of instruction 'cp.async': unexpected value '12', expected to be 4 or 8 or 16"},
		{"within split at /tmp/legalfuzz-diag-fniyrI/mma-split.mlir:5 offset :3:8: error: 'nvgpu.mma.sync' op expected 128 warp-wide matrix A elements\n",
			"'nvgpu.mma.sync' op expected 128 warp-wide matrix A elements"},
	} {
		if got := cleanMessage(diag.Normalize(tc.raw)); got != tc.want {
			t.Errorf("cleanMessage(%q)\n= %q\nwant %q", diag.Normalize(tc.raw), got, tc.want)
		}
	}
}
