package mlir

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/mlir/render"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain/toolchaintest"
)

// nvvmAnswer is what an mlir-nvvm oracle said of a case.
type nvvmAnswer struct {
	kind       oracles.Kind
	rule, diag string
}

// knownAnswersNVVM were observed running the mlir-nvvm oracle's chain by
// hand (mlir-opt, mlir-translate, llvm-link, llc of the release, ptxas
// 12.4) on the rendered modules of MLIR 22 (22.1.8) and trunk (the
// 2026-10-25 snapshot); where the two differ, trunk's answer is given
// apart.
var knownAnswersNVVM = []struct {
	name, domain string
	override     m
	want         nvvmAnswer
	trunk        *nvvmAnswer
}{
	{"mma f16", "mma", m{"shape": []int{16, 8, 16}}, nvvmAnswer{oracles.Accept, "ptxas", ""}, nil},
	// nvgpu.mma.sync cannot deduce bf16's PTX type (the mlir oracle's
	// known answer "mma bf16 lowering"); nvvm.mma.sync names it.
	{"mma bf16", "mma", m{"shape": []int{16, 8, 16}, "a_type": "bf16", "b_type": "bf16"}, nvvmAnswer{oracles.Accept, "ptxas", ""}, nil},
	{"mma col-major A", "mma", m{"shape": []int{16, 8, 16}, "a_layout": "col"},
		nvvmAnswer{oracles.Reject, "verify", "requires layoutA = #nvvm.mma_layout<row> and layoutB = #nvvm.mma_layout<col>"}, nil},
	{"mma sp col-major A", "mma", m{"shape": []int{16, 8, 16}, "sparsity": "sp", "a_layout": "col"},
		nvvmAnswer{oracles.Unsupported, "unspelled.tool:layout=not-row-col", "always .row.col"}, nil},
	{"mma 2-entry shape", "mma", m{"shape": []int{16, 8}}, nvvmAnswer{oracles.Unsupported, "unspelled.tool:shape_rank=not-3", "a 2-entry mmaShape"}, nil},
	// The verifier lets .satfinite through on an f16 mma; the translation
	// then looks up an intrinsic that does not exist.
	{"mma f16 satfinite", "mma", m{"shape": []int{16, 8, 16}, "satfinite": true},
		nvvmAnswer{oracles.Error, "translate", "mlir-translate crashed (segmentation fault) in llvm::Intrinsic::getIntrinsicInfoTableEntries"}, nil},
	// The verifier takes b1Op on an f16 mma, and the translation drops it.
	{"mma f16 xor.popc", "mma", m{"shape": []int{16, 8, 16}, "bit_op": "xor"},
		nvvmAnswer{oracles.Error, "ptx/value", "ptx: mma.sync.aligned.m16n8k16 without the single-bit operation the op names"}, nil},
	{"ldmatrix x1", "ldsm", m{}, nvvmAnswer{oracles.Accept, "ptxas", ""}, nil},
	{"ldmatrix from global", "ldsm", m{"src_space": "global"},
		nvvmAnswer{oracles.Reject, "verify", "operand #0 must be LLVM pointer in address space 3"}, nil},
	{"ldmatrix m16n16 b8 trans sm_100a", "ldsm", m{"mode": "reserved", "shape": "m16n16", "size": "b8", "transpose": true, "result_dim0": 8,
		"target": "sm_100a", "ptx": "8.6"}, nvvmAnswer{oracles.Accept, "llc", "lowering stopped at llc"}, nil},
	// MLIR checks no target for the sm_100 shapes: llc cannot select them
	// on sm_90a.
	{"ldmatrix m16n16 b8 trans sm_90a", "ldsm", m{"mode": "reserved", "shape": "m16n16", "size": "b8", "transpose": true, "result_dim0": 8,
		"target": "sm_90a", "ptx": "8.0"}, nvvmAnswer{oracles.Error, "llc/refused", "Cannot select: intrinsic llvm.nvvm.ldmatrix.sync.aligned.m16n16.x1.trans.b8"}, nil},
	{"cpasync 16B ca", "cpasync", m{}, nvvmAnswer{oracles.Accept, "ptxas", ""}, nil},
	{"cpasync cs", "cpasync", m{"cache": "cs"}, nvvmAnswer{oracles.Reject, "verify", "Only CG and CA cache modifiers are supported."}, nil},
	{"cpasync cg 8B", "cpasync", m{"elem": "f16", "src_elem": "f16", "cache": "cg"},
		nvvmAnswer{oracles.Reject, "verify", "CG cache modifier is only support for 16 bytes copy."}, nil},
	{"cpasync strided", "cpasync", m{"src_stride": 2}, nvvmAnswer{oracles.Unsupported, "unspelled.tool:stride=not-unit", "copies contiguous bytes"}, nil},
	{"wgmma f16", "wgmma", m{}, nvvmAnswer{oracles.Accept, "ptxas", ""}, nil},
	{"wgmma M 128", "wgmma", m{"m": 128}, nvvmAnswer{oracles.Reject, "verify", "shape 'm' must be 64"}, nil},
	{"wgmma sparse", "wgmma", m{"sparse": true, "k": 32, "b_k": 32}, nvvmAnswer{oracles.Unsupported, "unspelled.tool:sparse=any", "no wgmma.mma_async.sp op"}, nil},
}

func TestKnownAnswersNVVM22(t *testing.T) { knownAnswersNVVMOn(t, toolchaintest.Release(t, 22), false) }

func TestKnownAnswersNVVMTrunk(t *testing.T) { knownAnswersNVVMOn(t, toolchaintest.Trunk(t), true) }

func knownAnswersNVVMOn(t *testing.T, in toolchain.Installation, trunk bool) {
	o, st := DiscoverNVVM(context.Background(), in)
	if o == nil || o.Lower == nil || o.Lower.Ptxas.Path == "" {
		t.Skipf("MLIR %s with its lowering and ptxas not found: %s (%s)", in.Label, st.Reason, st.Install)
	}
	cases := make([]domain.Case, len(knownAnswersNVVM))
	for i, ka := range knownAnswersNVVM {
		cases[i] = caseFrom(t, ka.domain, ka.override)
	}
	verdicts, err := o.Judge(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, ka := range knownAnswersNVVM {
		t.Run(ka.name, func(t *testing.T) {
			want := ka.want
			if trunk && ka.trunk != nil {
				want = *ka.trunk
			}
			v := verdicts[i]
			if v.Kind != want.kind || v.Rule != want.rule || !strings.Contains(v.Diagnostic, want.diag) || v.Oracle != "mlir-nvvm@"+in.Label {
				text, _, _ := o.render(cases[i])
				t.Errorf("got %s %s/%s %q, want %s/%s containing %q\n%s", v.Oracle, v.Kind, v.Rule, v.Diagnostic, want.kind, want.rule, want.diag, text)
			}
		})
	}
}

// TestNVVMBefore22 checks that the mlir-nvvm oracle is not offered on a
// release whose nvvm ops cannot spell the cases, and says why.
func TestNVVMBefore22(t *testing.T) {
	o, st := DiscoverNVVM(context.Background(), toolchain.Installation{Label: "19", Major: 19})
	if o != nil || st.Available || !strings.Contains(st.Reason, "judges LLVM 22 and later") || st.Name != "mlir-nvvm@19" {
		t.Fatalf("got %v %+v", o, st)
	}
}

// TestNVVMPropertiesKept parses every seed as the mlir-nvvm oracle spells
// it and checks that the nvvm op keeps every property written: MLIR drops
// a property an op does not have without a word (nvvm.mma.sp.sync has no
// layoutA and no b1Op), so a rendering that wrote one would have the
// verifier judge another case than the value names.
func TestNVVMPropertiesKept(t *testing.T) {
	o, st := DiscoverNVVM(context.Background(), toolchaintest.Trunk(t))
	if o == nil {
		t.Skipf("MLIR trunk not found: %s (%s)", st.Reason, st.Install)
	}
	checked := 0
	for _, d := range spelled {
		if !o.Judges(d.Name) {
			continue
		}
		for _, v := range d.Seeds() {
			c := domain.NewCase(d.Name, v)
			text, _, err := o.render(c)
			if err != nil {
				continue
			}
			res, err := o.Opt.Run(context.Background(), time.Minute, []byte(text), parseOnly, printGeneric, "-")
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("%s: mlir-opt: %v %s", c.ID, err, res.Stderr)
			}
			op := render.SubjectOp(text)
			wrote, kept := opProps(text, op), opProps(string(res.Stdout), op)
			for name := range wrote {
				if !kept[name] {
					t.Errorf("%s %s: %s drops property %s\n%s", d.Name, c.ID, op, name, text)
				}
			}
			checked++
		}
	}
	if checked < 50 {
		t.Fatalf("checked %d seeds, want at least 50", checked)
	}
}

// opProps lists the property names of the first generic op named op.
func opProps(module, op string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(module, "\n") {
		if !strings.Contains(line, `"`+op+`"(`) {
			continue
		}
		start, end := strings.Index(line, "<{"), strings.Index(line, "}>")
		if start < 0 || end < start {
			return out
		}
		depth, from := 0, start+2
		for i := from; i <= end; i++ {
			switch line[i] {
			case '<', '(', '[':
				depth++
			case '>', ')', ']':
				depth--
			case ',', '}':
				if depth == 0 {
					name, _, _ := strings.Cut(strings.TrimSpace(line[from:i]), " ")
					out[name] = true
					from = i + 1
				}
			}
		}
		return out
	}
	return out
}
