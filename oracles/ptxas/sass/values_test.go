package sass

import (
	"cmp"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/fuzz/wgmma"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/emitted"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
)

var update = flag.Bool("update", false, "rewrite testdata/typed.* with the installed ptxas 12.4 and nvdisasm")

// typedTargets are the modules of testdata/typed.*: one per target, with
// the number of entries whose SASS checkTypes compares (the rest lost
// their dead instruction to ptxas, or have no spelling it claims).
var typedTargets = []typedTarget{{"sm_80", 10}, {"sm_90", 8}, {"sm_90a", 83}}

type typedTarget struct {
	arch    string
	checked int
}

// typedCases are the samples of the golden files: the seeds of the
// domains whose SASS encodes types (tmamode's: the TMA copies' rank and
// mode), mma's moved to sm_90a (ptxas deletes
// a dead mma below sm_90, and the seeds are mostly sm_80), cp.async's on
// sm_90a too, wgmma's with N
// at most 32 and one more with A in registers negated, and two mma
// the seeds lack: mixed 4-bit types and a saturating 4-bit one, which
// sm_90 emulates.
func typedCases(t *testing.T) []domain.Case {
	cases := seedCases(t, "mma", "ldsm", "cpasync", "wgmma", "tmamode")
	for i, c := range cases {
		switch v := c.Value.(type) {
		case mma.Value:
			v.Tgt = sm90a
			cases[i] = domain.NewCase(c.Domain, v)
		case cpasync.Value:
			// sm_90's LDGSTS differs: it always reads a memory descriptor.
			v.Tgt = sm90a
			cases = append(cases, domain.NewCase(c.Domain, v))
		case wgmma.Value:
			// N sets only the accumulator's registers, whose MOVs would
			// make the listing 500 KB.
			v.N = min(v.N, 32)
			cases[i] = domain.NewCase(c.Domain, v)
		}
	}
	for _, c := range cases {
		// A in registers, negated: SASS spells it "-R28", not .negA.
		if v, ok := c.Value.(wgmma.Value); ok && v.ARegister && v.TransB {
			v.ScaleA, v.ScaleB = -1, -1
			cases = append(cases, domain.NewCase(wgmma.Name, v))
			break
		}
	}
	for _, c := range cases {
		v, ok := c.Value.(mma.Value)
		if !ok || v.AType != mma.S4 || v.ShapeName() != "m16n8k64" || v.Sparse() {
			continue
		}
		mixed := v
		mixed.BType = mma.U4
		sat := v
		sat.Satfinite = true
		cases = append(cases, domain.NewCase(mma.Name, mixed), domain.NewCase(mma.Name, sat))
		break
	}
	return cases
}

// writeTyped assembles the samples ptxas accepts, one module per target,
// and writes each module and its nvdisasm listing under testdata.
func writeTyped(t *testing.T) {
	o := realSASS(t)
	cases := typedCases(t)
	vs, err := o.assembler().Judge(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	byArch := map[string][]ptx.Entry{}
	seen := map[string]bool{}
	for i, c := range cases {
		if vs[i].Kind != oracles.Accept {
			continue
		}
		e, err := ptx.Render(c)
		if err != nil {
			t.Fatal(err)
		}
		if k := e.Target.Arch.String() + typedKey(e.Text); seen[k] {
			continue // the same typed instruction as an earlier sample
		} else {
			seen[k] = true
		}
		byArch[e.Target.Arch.String()] = append(byArch[e.Target.Arch.String()], e)
	}
	for _, tt := range typedTargets {
		// One header per module: the newest PTX version its entries need.
		entries := byArch[tt.arch]
		top := slices.MaxFunc(entries, func(a, b ptx.Entry) int { return cmp.Compare(a.Target.PTX, b.Target.PTX) }).Target
		for i := range entries {
			entries[i].Target = top
		}
		text, _, err := ptx.Module(entries)
		if err != nil {
			t.Fatal(err)
		}
		src, cubin := filepath.Join("testdata", "typed."+tt.arch+".ptx"), filepath.Join(t.TempDir(), "m.cubin")
		if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if r, err := o.ptxas.Run(context.Background(), o.timeout(), nil, AssembleArgs(tt.arch, cubin, src)...); err != nil || !clean(r) {
			t.Fatalf("ptxas: %v %s", err, r.Stderr)
		}
		r, err := o.nvdisasm.Run(context.Background(), o.timeout(), nil, NVDisasmArgs(cubin)...)
		if err != nil || !clean(r) {
			t.Fatalf("nvdisasm: %v %s", err, r.Stderr)
		}
		// nvdisasm pads its columns with runs of blanks, which the parser
		// reads as one: squeezed, the listing is a third of its size.
		listing := regexp.MustCompile(`[ \t]+`).ReplaceAll(r.Stdout, []byte(" "))
		if err := os.WriteFile(filepath.Join("testdata", "typed."+tt.arch+".nvdisasm.txt"), listing, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// typedKey is the entry's instructions that checkTypes reads, with their
// operands' values.
func typedKey(text string) string {
	var key []string
	for _, in := range emitted.Eval(text) {
		for _, row := range spellers {
			if rowOf(row.what).ptx.MatchString(in.Opcode) {
				key = append(key, in.Canonical())
			}
		}
	}
	return strings.Join(key, "\n")
}

// typedModule is one golden module: its entries' PTX and their SASS.
type typedModule struct {
	arch    target.Arch
	entries map[string]string
	sass    Listing
}

func readTyped(t *testing.T) []typedModule {
	t.Helper()
	if *update {
		writeTyped(t)
	}
	var out []typedModule
	for _, tt := range typedTargets {
		out = append(out, typedModule{
			arch:    target.MustParse(tt.arch, "").Arch,
			entries: emitted.Entries(readTestdata(t, "typed."+tt.arch+".ptx")),
			sass:    ParseNVDisasm(readTestdata(t, "typed."+tt.arch+".nvdisasm.txt")),
		})
	}
	return out
}

// TestTypedListings: in real listings of ptxas 12.4 (testdata/typed.*,
// -update rewrites them, blanks squeezed), every typed SASS instruction is spelled as the
// PTX instruction it comes from is, and the entries checked are those
// whose instruction ptxas kept.
func TestTypedListings(t *testing.T) {
	for i, m := range readTyped(t) {
		checked := 0
		for name, text := range m.entries {
			code, ok := m.sass[name]
			if !ok {
				t.Fatalf("%s: no listing of %s", m.arch, name)
			}
			mm, c := checkTypes(text, m.arch, code)
			if mm != nil {
				t.Errorf("%s %s: %s", m.arch, name, mm.Diagnostic())
			}
			if c {
				checked++
			}
		}
		if want := typedTargets[i].checked; checked != want {
			t.Errorf("%s: %d of %d entries checked, want %d", m.arch, checked, len(m.entries), want)
		}
	}
}

// TestTypedMismatches: a real listing with one suffix or operand modifier
// changed fails with the mismatch named in the SASS's terms.
func TestTypedMismatches(t *testing.T) {
	mods := readTyped(t)
	for _, tc := range []struct {
		name  string
		arch  string
		from  *regexp.Regexp
		repl  string
		title string
	}{
		{"IMMA signedness", "sm_90a", regexp.MustCompile(`^IMMA\.16832\.S8\.U8 `), "IMMA.16832.S8.S8 ",
			"sass: mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 assembled to IMMA.16832.S8.S8, want IMMA.16832.S8.U8"},
		{"IMMA .SAT lost", "sm_90a", regexp.MustCompile(`^IMMA\.16832\.S8\.S8\.SAT `), "IMMA.16832.S8.S8 ",
			"sass: mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 assembled to IMMA.16832.S8.S8, want IMMA.16832.S8.S8.SAT"},
		{"emulated 4-bit mma at full K", "sm_90a", regexp.MustCompile(`^IMMA\.16832\.S8\.U8 (R\d+, R\d+\.ROW, R\d+\.COL, RZ)$`), "IMMA.16864.S8.U8 $1",
			"sass: mma.sync.aligned.m16n8k64.row.col.s32.s4.u4.s32 assembled to IMMA.16864.S8.U8, want IMMA.16832.S8.U8"},
		{"HMMA operand type", "sm_90a", regexp.MustCompile(`^HMMA\.16816\.F32\.BF16 `), "HMMA.16816.F32 ",
			"sass: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 assembled to HMMA.16816.F32, want HMMA.16816.F32.BF16"},
		{"HMMA accumulator type", "sm_90a", regexp.MustCompile(`^HMMA\.1688\.F16 `), "HMMA.1688.F32 ",
			"sass: mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 assembled to HMMA.1688.F32, want HMMA.1688.F16"},
		{"sparsity selector", "sm_90a", regexp.MustCompile(`^(HMMA\.SP\.16816\.F32 .*), 0x3$`), "$1, 0x1",
			"sass: mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 assembled to HMMA.SP.16816.F32 sel=0x1, want HMMA.SP.16816.F32 sel=0x3"},
		{"DMMA shape", "sm_90a", regexp.MustCompile(`^DMMA\.16x8x16 `), "DMMA.16x8x8 ",
			"sass: mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 assembled to DMMA.16x8x8, want DMMA.16x8x16"},
		{"BMMA shape", "sm_90a", regexp.MustCompile(`^BMMA\.88128\.AND\.POPC `), "BMMA.168128.AND.POPC ",
			"sass: mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc assembled to BMMA.168128.AND.POPC, want BMMA.88128.AND.POPC"},
		{"LDSM transpose lost", "sm_90a", regexp.MustCompile(`^LDSM\.16\.MT88\.4 `), "LDSM.16.M88.4 ",
			"sass: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 assembled to LDSM.16.M88.4, want LDSM.16.MT88.4"},
		{"STSM count", "sm_90", regexp.MustCompile(`^STSM\.16\.MT88\.2 `), "STSM.16.MT88.4 ",
			"sass: stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 assembled to STSM.16.MT88.4, want STSM.16.MT88.2"},
		{"LDGSTS .cg lost", "sm_80", regexp.MustCompile(`^LDGSTS\.E\.BYPASS\.128 `), "LDGSTS.E.128 ",
			"sass: cp.async.cg.shared.global assembled to LDGSTS.E.128, want LDGSTS.E.BYPASS.128"},
		{"LDGSTS size", "sm_80", regexp.MustCompile(`^LDGSTS\.E\.64 `), "LDGSTS.E.128 ",
			"sass: cp.async.ca.shared.global assembled to LDGSTS.E.128, want LDGSTS.E.64"},
		{"LDGSTS src-size lost", "sm_80", regexp.MustCompile(`^LDGSTS\.E\.128\.ZFILL `), "LDGSTS.E.128 ",
			"sass: cp.async.ca.shared.global assembled to LDGSTS.E.128, want LDGSTS.E.128.ZFILL"},
		{"LDGSTS cache policy lost", "sm_80", regexp.MustCompile(`desc\[UR\d+\]`), "",
			"sass: cp.async.ca.shared.global.L2::cache_hint.L2::256B assembled to LDGSTS.E.LTC256B.128, want LDGSTS.E.LTC256B.128 desc"},
		{"HGMMA transpose lost", "sm_90a", regexp.MustCompile(`gdesc\[UR4\]\.tnspA\.tnspB`), "gdesc[UR4].tnspB",
			"sass: wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 assembled to HGMMA.64x32x16.F32 tnspB, want HGMMA.64x32x16.F32 tnspA tnspB"},
		{"HGMMA negation", "sm_90a", regexp.MustCompile(`gdesc\[UR4\]\.negA,`), "gdesc[UR4].negB,",
			"sass: wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 assembled to HGMMA.64x32x16.F32 negB, want HGMMA.64x32x16.F32 negA"},
		{"HGMMA register A negation lost", "sm_90a", regexp.MustCompile(`^(HGMMA\S+ R\d+, )-(R\d+, gdesc)`), "$1$2",
			"sass: wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 assembled to HGMMA.64x32x16.F32 negB tnspB, want HGMMA.64x32x16.F32 negA negB tnspB"},
		{"UTMALDG im2col lost", "sm_90a", regexp.MustCompile(`^UTMALDG\.5D\.IM2COL `), "UTMALDG.5D ",
			"sass: cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes assembled to UTMALDG.5D, want UTMALDG.5D.IM2COL"},
		{"UTMASTG rank", "sm_90", regexp.MustCompile(`^UTMASTG\.3D `), "UTMASTG.2D ",
			"sass: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group assembled to UTMASTG.2D, want UTMASTG.3D"},
		{"UTMALDG multicast lost", "sm_90", regexp.MustCompile(`^UTMALDG\.2D\.MULTICAST `), "UTMALDG.2D ",
			"sass: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster assembled to UTMALDG.2D, want UTMALDG.2D.MULTICAST"},
		{"QGMMA operand order", "sm_90a", regexp.MustCompile(`^QGMMA\.64x8x32\.F32\.E4M3\.E5M2 `), "QGMMA.64x8x32.F32.E5M2.E4M3 ",
			"sass: wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2 assembled to QGMMA.64x8x32.F32.E5M2.E4M3, want QGMMA.64x8x32.F32.E4M3.E5M2"},
		{"IGMMA signedness", "sm_90a", regexp.MustCompile(`^IGMMA\.64x32x32\.S8\.U8 `), "IGMMA.64x32x32.U8.U8 ",
			"sass: wgmma.mma_async.sync.aligned.m64n32k32.s32.s8.u8 assembled to IGMMA.64x32x32.U8.U8, want IGMMA.64x32x32.S8.U8"},
		{"GMMA family", "sm_90a", regexp.MustCompile(`^IGMMA\.64x24x32\.S8\.S8 `), "HGMMA.64x24x32.F32 ",
			"sass: wgmma.mma_async.sync.aligned.m64n24k32.s32.s8.s8 assembled to HGMMA.64x24x32.F32, want IGMMA.64x24x32.S8.S8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := mods[slices.IndexFunc(typedTargets, func(tt typedTarget) bool { return tt.arch == tc.arch })]
			name, code := rewrite(t, m.sass, tc.from, tc.repl)
			mm, _ := checkTypes(m.entries[name], m.arch, code)
			if mm == nil {
				t.Fatalf("%s passes with %q", name, tc.repl)
			}
			if got, _, _ := strings.Cut(mm.Diagnostic(), "\n"); got != tc.title {
				t.Errorf("got  %s\nwant %s", got, tc.title)
			}
		})
	}
}

// rewrite rewrites the first instruction of the listing (its entries in
// name order) that from matches, and returns that entry and its code.
func rewrite(t *testing.T, l Listing, from *regexp.Regexp, repl string) (string, []Instr) {
	t.Helper()
	names := make([]string, 0, len(l))
	for name := range l {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for i, in := range l[name] {
			if from.MatchString(in.Text) {
				code := slices.Clone(l[name])
				code[i].Text = from.ReplaceAllString(in.Text, repl)
				return name, code
			}
		}
	}
	t.Fatalf("no instruction matches %s", from)
	return "", nil
}

// TestReproducerNamesTheSpelling: a bundle's commands.txt says what SASS
// the case's typed instruction must assemble to and greps the listing for
// it; a case without one gets neither line.
func TestReproducerNamesTheSpelling(t *testing.T) {
	var imma, f64 domain.Case
	for _, c := range typedCases(t) {
		if v, ok := c.Value.(mma.Value); ok && v.AType == mma.S8 && v.BType == mma.U8 && !v.Sparse() {
			imma = c
		}
		if v, ok := c.Value.(mma.Value); ok && v.AType == mma.F64 && v.ShapeName() == "m8n8k4" {
			v.Tgt = sm80
			f64 = domain.NewCase(c.Domain, v)
		}
	}
	rep := Reproducer{}.Reproduce(context.Background(), oracles.ReproRequest{Name: oracles.SASS, Case: imma})
	cmds := strings.Join(rep.Commands, "\n")
	for _, want := range []string{"must assemble to (docs/sass.md, \"Types in the SASS\"): IMMA.16832.S8.U8\n",
		"nvdisasm -c case.cubin | grep -E 'BMMA|DMMA|HMMA|IMMA'"} {
		if !strings.Contains(cmds, want) {
			t.Errorf("commands lack %q:\n%s", want, cmds)
		}
	}
	rep = Reproducer{}.Reproduce(context.Background(), oracles.ReproRequest{Name: oracles.SASS, Case: f64})
	if cmds := strings.Join(rep.Commands, "\n"); strings.Contains(cmds, "grep") || len(rep.Commands) != 4 {
		t.Errorf("an sm_80 mma, which ptxas deletes, got typed commands:\n%s", cmds)
	}
}

// TestWrongTypeIsFiledWithPtxas: the disassemblers agree on a sass/value
// listing, so the bucket is ptxas's; their own faults stay theirs.
func TestWrongTypeIsFiledWithPtxas(t *testing.T) {
	f := Reproducer{}.Filing()
	if c := f.ComponentOf(oracles.Stage{Name: stageSASS, Fault: oracles.WrongValue}, ""); c.Tag != "NVIDIA (ptxas)" {
		t.Errorf("sass/value filed under %q", c.Tag)
	}
	if c := f.ComponentOf(oracles.Stage{Name: stageSASS, Fault: oracles.Disagree}, ""); c.Tag != "NVIDIA (nvdisasm)" {
		t.Errorf("sass/disagree filed under %q", c.Tag)
	}
}

// TestRead: the operand modifiers read from listing lines, a guarded one
// included; QGMMA.SP prints no selector, so none is read.
func TestRead(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"@P0 HGMMA.64x8x16.F32 R24, -R28, gdesc[UR4].negB.tnspB, R24, !UP0, gsb0", "HGMMA.64x8x16.F32 negA negB tnspB"},
		{"HGMMA.SP.64x64x32.F32 R24, gdesc[UR4], R24, !UP0, R56, 0x1, gsb0", "HGMMA.SP.64x64x32.F32 sel=0x1"},
		{"QGMMA.SP.64x128x64.F32.E4M3.E4M3 R24, gdesc[UR4], R24, !UP0, R88, gsb0", "QGMMA.SP.64x128x64.F32.E4M3.E4M3"},
		{"IMMA.SP.16864.U8.S8.SAT R8, R4.ROW, R8.COL, R12, R4, 0x0", "IMMA.SP.16864.U8.S8.SAT sel=0x0"},
		{"LDGSTS.E.BYPASS.LTC128B.128 [R0], desc[UR4][R2.64]", "LDGSTS.E.BYPASS.LTC128B.128 desc"},
		{"LDSM.16.MT88.4 R4, [R2]", "LDSM.16.MT88.4"},
	} {
		if got := read(Instr{Text: tc.text}).String(); got != tc.want {
			t.Errorf("read(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}
