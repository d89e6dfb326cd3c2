package sass

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles/emitted"
)

// spelling is an instruction as SASS spells what it computes: the opcode
// with its modifiers ("IMMA.16832.S8.U8") and the operand modifiers that
// carry meaning ("tnspA", "negB", "sel=0x1", "desc"), sorted.
type spelling struct {
	opcode string
	mods   []string
}

// String is the spelling as a diagnostic names it:
// "HGMMA.64x128x16.F32 tnspA tnspB".
func (s spelling) String() string { return strings.Join(append([]string{s.opcode}, s.mods...), " ") }

// speller says how ptxas 12.4 spells a PTX instruction of a row of the
// table for the arch; ok is false where no listing showed it (the check
// then claims nothing). See docs/sass.md, "Types in the SASS".
type speller func(in emitted.Inst, arch target.Arch) (s spelling, ok bool)

// spellers are the table's rows (by what) whose SASS opcodes encode the
// PTX instruction's shape, types and qualifiers (a TMA copy's rank and
// mode).
var spellers = []struct {
	what  string
	spell speller
}{
	{"mma", spellMMA},
	{"wgmma.mma_async", spellWGMMA},
	{"ldmatrix", spellMatrix("LDSM")},
	{"stmatrix", spellMatrix("STSM")},
	{"cp.async.ca/cg", spellCPAsync},
	{"cp.async.bulk.tensor (global to shared)", spellTMA("UTMALDG")},
	{"cp.async.bulk.tensor (shared to global)", spellTMA("UTMASTG")},
	{"cp.async.bulk.prefetch.tensor", spellTMA("UTMAPF.L2")},
}

// typeMismatch is a SASS instruction whose spelling none of the PTX
// instructions it may come from has.
type typeMismatch struct {
	ptx  emitted.Inst
	sass Instr
	got  spelling
	want []spelling
}

// Diagnostic is the mismatch as a verdict's diagnostic: the first line
// (the bucket title) in the SASS's terms, then the listing's line and the
// PTX instruction.
func (m *typeMismatch) Diagnostic() string {
	want := make([]string, len(m.want))
	for i, w := range m.want {
		want[i] = w.String()
	}
	slices.Sort(want)
	return fmt.Sprintf("sass: %s assembled to %s, want %s\nemitted: %s\nptx: %s",
		m.ptx.Opcode, m.got, strings.Join(slices.Compact(want), " or "), m.sass.Text, m.ptx.Canonical())
}

// checkTypes compares the typed SASS of an entry with its PTX (step 5):
// for each row of the table with a speller, every SASS instruction of the
// row's opcodes must be spelled as one of the entry's PTX instructions of
// the row is. checked reports whether any SASS instruction was compared:
// ptxas deletes dead mma and ldmatrix on sm_80 to sm_89, leaving nothing.
func checkTypes(ptxText string, arch target.Arch, code []Instr) (m *typeMismatch, checked bool) {
	insts := emitted.Eval(ptxText)
	for _, row := range spellers {
		what, spell := row.what, row.spell
		var from []emitted.Inst
		var want []spelling
		known := true
		for _, in := range insts {
			if !rowOf(what).ptx.MatchString(in.Opcode) {
				continue
			}
			s, ok := spell(in, arch)
			known = known && ok
			from, want = append(from, in), append(want, s)
		}
		if len(want) == 0 || !known {
			continue
		}
		families := familiesOf(what)
		for _, sin := range code {
			if !slices.Contains(families, family(sin.Opcode())) || drain(sin) {
				continue
			}
			checked = true
			got := read(sin)
			if !slices.ContainsFunc(want, func(w spelling) bool { return w.String() == got.String() }) {
				return &typeMismatch{ptx: closest(from, want, got), sass: sin, got: got, want: want}, true
			}
		}
	}
	return nil, checked
}

// expected lists the spellings checkTypes wants of an entry's typed
// instructions, and their rows' SASS opcodes; an instruction without a
// claimed spelling is left out.
func expected(ptxText string, arch target.Arch) (want, families []string) {
	for _, in := range emitted.Eval(ptxText) {
		for _, row := range spellers {
			if !rowOf(row.what).ptx.MatchString(in.Opcode) {
				continue
			}
			if s, ok := row.spell(in, arch); ok {
				want = append(want, s.String())
				families = append(families, familiesOf(row.what)...)
			}
		}
	}
	slices.Sort(families)
	return want, slices.Compact(families)
}

// rowOf is the table's first row for the PTX instruction what names.
func rowOf(what string) mapping {
	for _, m := range mappings {
		if m.what == what {
			return m
		}
	}
	panic("sass: no mapping row " + what) // spellers names rows of the table
}

// familiesOf lists the SASS opcodes the table maps the PTX instruction to.
func familiesOf(what string) []string {
	var out []string
	for _, m := range mappings {
		if m.what == what {
			out = append(out, m.sass)
		}
	}
	return out
}

// closest is the PTX instruction a wrong SASS instruction most likely
// comes from: one with the same opcode family, else the first.
func closest(from []emitted.Inst, want []spelling, got spelling) emitted.Inst {
	for i, w := range want {
		if family(w.opcode) == family(got.opcode) {
			return from[i]
		}
	}
	return from[0]
}

// drainGMMA is the HGMMA ptxas 12.4 appends before EXIT of every kernel
// with a wgmma, on zero descriptors with scale-d false (!UPT): it
// computes nothing the kernel reads, and no PTX instruction maps to it.
var drainGMMA = regexp.MustCompile(`^HGMMA\.64x8x16\.F16 R\d+, gdesc\[UR\d+\], R\d+, !UPT, gsb0$`)

// drain reports whether the instruction is that appended HGMMA.
func drain(in Instr) bool { return drainGMMA.MatchString(in.Text) }

var (
	// gmmaMod is an operand modifier of a GMMA: "gdesc[UR4].tnspA.negB".
	gmmaMod = regexp.MustCompile(`\.(tnsp[AB]|neg[AB])\b`)
	// negRegisterA is a GMMA's A in registers, negated: "R24, -R28, gdesc".
	negRegisterA = regexp.MustCompile(`^(?:@\S+ )?\S+ R\d+, -R\d+, `)
	// selector is a sparse MMA's sparsity selector, its last immediate.
	selector = regexp.MustCompile(`, (0x[0-9a-f]+)(?:, gsb0)?$`)
)

// read is a SASS instruction's spelling, with the operand modifiers of
// its family: a GMMA's transposes and negations (of A in registers, a
// minus: "-R28"), a sparse MMA's selector
// (QGMMA.SP and IGMMA.SP print none), an LDGSTS's cache-policy descriptor.
func read(in Instr) spelling {
	op := in.Opcode()
	s := spelling{opcode: op}
	fam := family(op)
	if strings.HasSuffix(fam, "GMMA") {
		for _, m := range gmmaMod.FindAllStringSubmatch(in.Text, -1) {
			s.mods = append(s.mods, m[1])
		}
		if negRegisterA.MatchString(in.Text) {
			s.mods = append(s.mods, "negA")
		}
	}
	if strings.Contains(op, ".SP.") && (fam == "HMMA" || fam == "IMMA" || fam == "HGMMA") {
		if m := selector.FindStringSubmatch(in.Text); m != nil {
			s.mods = append(s.mods, "sel="+m[1])
		}
	}
	if fam == "LDGSTS" && strings.Contains(in.Text, "desc[") {
		s.mods = append(s.mods, "desc")
	}
	slices.Sort(s.mods)
	return s
}

// shapeWord is a PTX shape "m16n8k32" read as its three numbers.
var shapeWord = regexp.MustCompile(`^m(\d+)n(\d+)k(\d+)$`)

// ptxForm is a PTX mma or wgmma opcode split up: its shape, .satfinite,
// its types in order (D, A, B and, for mma, C), and the single-bit
// operation.
type ptxForm struct {
	m, n, k   int
	sparse    bool
	satfinite bool
	types     []string
	bitOp     string
}

// parseForm reads an mma or wgmma opcode; ok is false when it has no
// shape.
func parseForm(opcode string) (f ptxForm, ok bool) {
	words := strings.Split(opcode, ".")
	f.sparse = slices.ContainsFunc(words[:min(3, len(words))], func(w string) bool { return strings.HasPrefix(w, "sp") })
	at := slices.IndexFunc(words, shapeWord.MatchString)
	if at < 0 {
		return f, false
	}
	fmt.Sscanf(words[at], "m%dn%dk%d", &f.m, &f.n, &f.k)
	for _, w := range words[at+1:] {
		switch w {
		case "row", "col", "popc":
		case "satfinite":
			f.satfinite = true
		case "and", "xor":
			f.bitOp = w
		default:
			f.types = append(f.types, w)
		}
	}
	return f, len(f.types) >= 3
}

// up is a PTX type as SASS spells it: "S8" for s8.
func up(t string) string { return strings.ToUpper(t) }

// spellMMA is mma.sync and mma.sp as ptxas 12.4 assembles them for sm_90
// and sm_90a (at -O0 it deletes the dead mma of the rendered kernels on
// sm_80 to sm_89, so no other listing shows them): HMMA.16816.F32.BF16,
// IMMA.16832.S8.U8.SAT, DMMA.16x8x8, BMMA.168256.AND.POPC, with .SP and
// the selector when sparse. sm_90 has no 4-bit or XOR tensor core
// instruction: ptxas emulates .s4/.u4 with two IMMA of half the K on the
// operands widened to 8 bits (and applies .satfinite apart), .xor.popc
// with BMMA .AND.POPC. The Volta shape m8n8k4 on .f16 and the FP8 types
// show no MMA opcode.
func spellMMA(in emitted.Inst, arch target.Arch) (spelling, bool) {
	f, ok := parseForm(in.Opcode)
	if !ok || arch.SM < 90 || len(f.types) < 4 {
		return spelling{}, false
	}
	d, a, b := f.types[0], f.types[1], f.types[2]
	var op string
	switch a {
	case "f16", "bf16", "tf32":
		if f.m == 8 {
			return spelling{}, false
		}
		op = fmt.Sprintf("HMMA.%d%d%d.%s", f.m, f.n, f.k, up(d))
		if a != "f16" {
			op += "." + up(a)
		}
	case "f64":
		op = fmt.Sprintf("DMMA.%dx%dx%d", f.m, f.n, f.k)
	case "s8", "u8", "s4", "u4":
		k, sat := f.k, f.satfinite
		if a == "s4" || a == "u4" {
			k, sat = k/2, false
		}
		op = fmt.Sprintf("IMMA.%d%d%d.%s.%s", f.m, f.n, k, widen(a), widen(b))
		if sat {
			op += ".SAT"
		}
	case "b1":
		op = fmt.Sprintf("BMMA.%d%d%d.AND.POPC", f.m, f.n, f.k)
	default:
		return spelling{}, false
	}
	s := spelling{opcode: op}
	if f.sparse {
		fam, rest, _ := strings.Cut(op, ".")
		s.opcode = fam + ".SP." + rest
		sel, ok := lastConst(in)
		if !ok {
			return spelling{}, false
		}
		s.mods = []string{fmt.Sprintf("sel=%#x", sel)}
	}
	return s, true
}

// widen is a 4-bit integer type as the 8-bit one sm_90 computes it in.
func widen(t string) string {
	return up(strings.NewReplacer("4", "8").Replace(t))
}

// lastConst is the instruction's last operand, a constant.
func lastConst(in emitted.Inst) (int64, bool) {
	if len(in.Values) == 0 {
		return 0, false
	}
	v := in.Values[len(in.Values)-1]
	return v.Off, v.Known && v.Param < 0
}

// spellWGMMA is wgmma.mma_async as ptxas 12.4 assembles it for sm_90a:
// HGMMA.64x128x16.F32.BF16 (the A type after D unless .f16),
// QGMMA.64x8x32.F32.E4M3.E5M2, IGMMA.64x32x32.S8.U8.SAT (no D type: always
// .s32), BGMMA.64x256x256.AND.POPC; .SP when sparse, with HGMMA's
// selector; imm-trans-a/b as .tnspA/.tnspB and imm-scale-a/b of -1 as
// .negA/.negB on the descriptor operand (A in registers: "-R28").
func spellWGMMA(in emitted.Inst, _ target.Arch) (spelling, bool) {
	f, ok := parseForm(in.Opcode)
	if !ok {
		return spelling{}, false
	}
	d, a, b := f.types[0], f.types[1], f.types[2]
	shape := fmt.Sprintf("%dx%dx%d", f.m, f.n, f.k)
	var fam, types string
	var imms []string // the immediates after scale-d, by name
	switch a {
	case "f16", "bf16":
		fam, types = "HGMMA", "."+up(d)
		if a != "f16" {
			types += "." + up(a)
		}
		imms = []string{"negA", "negB", "tnspA", "tnspB"}
		if strings.HasPrefix(arg(in, 1), "{") {
			imms = []string{"negA", "negB", "tnspB"} // A in registers: no imm-trans-a
		}
	case "tf32":
		fam, types, imms = "HGMMA", "."+up(d)+"."+up(a), []string{"negA", "negB"}
	case "e4m3", "e5m2":
		fam, types, imms = "QGMMA", "."+up(d)+"."+up(a)+"."+up(b), []string{"negA", "negB"}
	case "s8", "u8":
		fam, types = "IGMMA", "."+up(a)+"."+up(b)
		if f.satfinite {
			types += ".SAT"
		}
	case "b1":
		fam, types = "BGMMA", ".AND.POPC"
	default:
		return spelling{}, false
	}
	scaleD := 3
	if f.sparse {
		fam, scaleD = fam+".SP", 5
	}
	s := spelling{opcode: fam + "." + shape + types}
	tail := in.Values[min(scaleD+1, len(in.Values)):]
	if len(tail) != len(imms) {
		return spelling{}, false // a form the PTX ISA does not define
	}
	for i, name := range imms {
		want := int64(1) // .tnspX when the immediate is 1
		if strings.HasPrefix(name, "neg") {
			want = -1
		}
		if !tail[i].Known || tail[i].Param >= 0 {
			return spelling{}, false
		}
		if tail[i].Off == want {
			s.mods = append(s.mods, name)
		}
	}
	if f.sparse && fam == "HGMMA.SP" {
		sel := in.Values[4]
		if !sel.Known || sel.Param >= 0 {
			return spelling{}, false
		}
		s.mods = append(s.mods, fmt.Sprintf("sel=%#x", sel.Off))
	}
	slices.Sort(s.mods)
	return s, true
}

// arg is the instruction's operand i as printed, or "".
func arg(in emitted.Inst, i int) string {
	if i < len(in.Args) {
		return in.Args[i]
	}
	return ""
}

// spellMatrix is ldmatrix (LDSM) or stmatrix (STSM) of .m8n8 .b16 as
// ptxas 12.4 assembles it for sm_90 and sm_90a: LDSM.16.M88.4,
// STSM.16.MT88.2 (.trans), no count for .x1. At -O0 it deletes the dead
// ldmatrix of the rendered kernels on sm_80 to sm_89; other shapes are
// sm_100's, which ptxas 12.4 does not know.
func spellMatrix(opcode string) speller {
	return func(in emitted.Inst, arch target.Arch) (spelling, bool) {
		words := strings.Split(in.Opcode, ".")
		if arch.SM < 90 || !slices.Contains(words, "m8n8") || !slices.Contains(words, "b16") {
			return spelling{}, false
		}
		s := opcode + ".16.M88"
		if slices.Contains(words, "trans") {
			s = opcode + ".16.MT88"
		}
		switch {
		case slices.Contains(words, "x2"):
			s += ".2"
		case slices.Contains(words, "x4"):
			s += ".4"
		case !slices.Contains(words, "x1"):
			return spelling{}, false
		}
		return spelling{opcode: s}, true
	}
}

// cpSizes are cp.async's cp-size as LDGSTS spells it.
var cpSizes = map[int64]string{4: "", 8: ".64", 16: ".128"}

// spellCPAsync is cp.async.ca/cg as ptxas 12.4 assembles it for sm_80 to
// sm_90a: LDGSTS.E, .BYPASS for .cg, .LTC64B/.LTC128B/.LTC256B for the
// L2 prefetch size, .64/.128 for cp-size 8/16, .ZFILL with a src-size
// operand (ignore-src alone adds none). Below sm_90 the global address
// reads a memory descriptor, desc[URn][...], only with .L2::cache_hint (the
// cache policy); on sm_90 and sm_90a every LDGSTS reads one.
func spellCPAsync(in emitted.Inst, arch target.Arch) (spelling, bool) {
	words := strings.Split(in.Opcode, ".")
	if len(in.Values) < 3 || len(words) < 3 {
		return spelling{}, false
	}
	size, ok := cpSizes[in.Values[2].Off]
	if !ok || in.Values[2].Param >= 0 || !in.Values[2].Known {
		return spelling{}, false
	}
	s := spelling{opcode: "LDGSTS.E"}
	if words[2] == "cg" {
		s.opcode += ".BYPASS"
	}
	rest := in.Args[3:]
	hint := strings.Contains(in.Opcode, ".L2::cache_hint")
	if hint {
		rest = rest[:max(len(rest)-1, 0)] // the cache-policy, last
	}
	if hint || arch.SM >= 90 {
		s.mods = []string{"desc"}
	}
	for _, w := range words {
		if n, ok := strings.CutPrefix(w, "L2::"); ok && strings.HasSuffix(n, "B") {
			s.opcode += ".LTC" + n // the L2 prefetch size: "L2::64B"
		}
	}
	s.opcode += size
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "%p") {
		s.opcode += ".ZFILL" // src-size, an immediate or a register that is no predicate
	}
	return s, true
}

// spellTMA is a TMA copy or prefetch as ptxas 12.4 assembles it for sm_90
// and sm_90a: the rank, .IM2COL for .im2col (and a store's
// .im2col_no_offs), .MULTICAST for .multicast::cluster:
// UTMALDG.5D.IM2COL, UTMASTG.3D, UTMAPF.L2.4D.IM2COL. No listing showed
// .L2::cache_hint, im2col with multicast, or sm_100's modes.
func spellTMA(opcode string) speller {
	return func(in emitted.Inst, _ target.Arch) (spelling, bool) {
		var rank, mode, cast string
		for _, w := range strings.Split(in.Opcode, ".") {
			switch {
			case len(w) == 2 && w[1] == 'd' && w[0] >= '1' && w[0] <= '5':
				rank = "." + strings.ToUpper(w)
			case w == "im2col" || w == "im2col_no_offs":
				mode = ".IM2COL"
			case w == "multicast::cluster":
				cast = ".MULTICAST"
			case strings.HasPrefix(w, "tile::") || strings.HasPrefix(w, "im2col::") || strings.HasPrefix(w, "cta_group") || w == "L2::cache_hint":
				return spelling{}, false
			}
		}
		if rank == "" || (mode != "" && cast != "") {
			return spelling{}, false
		}
		return spelling{opcode: opcode + rank + mode + cast}, true
	}
}
