package waitcntasm

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// Gen is an ISA generation: the wait instructions and their operand layout
// are the same for every processor of one generation.
type Gen uint8

const (
	GFX9    Gen = iota // GCN5, CDNA1-3 (gfx900 ... gfx950)
	GFX10              // RDNA1, RDNA2
	GFX11              // RDNA3, RDNA3.5
	GFX12              // RDNA4 (gfx1200, gfx1201)
	GFX1250            // gfx1250, gfx1251: gfx12 without s_waitcnt, expcnt, samplecnt and bvhcnt
)

func (g Gen) String() string {
	return [...]string{"gfx9", "gfx10", "gfx11", "gfx12", "gfx1250"}[g]
}

// targets are the gfx9 through gfx12 processors llvm-mc 19 or 22 lists for
// -mcpu=help (generic targets included), each with its generation. An
// llvm-mc that does not list a processor (gfx940 and gfx941 are gone in 22;
// gfx950, gfx1153, gfx1250 and gfx1251 are new in 22) does not judge it.
var targets = []struct {
	name string
	gen  Gen
}{
	{"gfx900", GFX9}, {"gfx902", GFX9}, {"gfx904", GFX9}, {"gfx906", GFX9}, {"gfx908", GFX9}, {"gfx909", GFX9},
	{"gfx90a", GFX9}, {"gfx90c", GFX9}, {"gfx940", GFX9}, {"gfx941", GFX9}, {"gfx942", GFX9}, {"gfx950", GFX9},
	{"gfx9-generic", GFX9}, {"gfx9-4-generic", GFX9},
	{"gfx1010", GFX10}, {"gfx1011", GFX10}, {"gfx1012", GFX10}, {"gfx1013", GFX10}, {"gfx1030", GFX10},
	{"gfx1031", GFX10}, {"gfx1032", GFX10}, {"gfx1033", GFX10}, {"gfx1034", GFX10}, {"gfx1035", GFX10},
	{"gfx1036", GFX10}, {"gfx10-1-generic", GFX10}, {"gfx10-3-generic", GFX10},
	{"gfx1100", GFX11}, {"gfx1101", GFX11}, {"gfx1102", GFX11}, {"gfx1103", GFX11}, {"gfx1150", GFX11},
	{"gfx1151", GFX11}, {"gfx1152", GFX11}, {"gfx1153", GFX11}, {"gfx11-generic", GFX11},
	{"gfx1200", GFX12}, {"gfx1201", GFX12}, {"gfx12-generic", GFX12}, {"gfx1250", GFX1250}, {"gfx1251", GFX1250},
}

// CPU is an AMD processor, an index into CPUs.
type CPU uint8

// CPUs spells the processors as llvm-mc's -mcpu does.
var CPUs = func() domain.Enum {
	e := make(domain.Enum, len(targets))
	for i, t := range targets {
		e[i] = t.name
	}
	return e
}()

func (t CPU) String() string { return CPUs.Name(int(t)) }

// Enum names the values of CPU: package desc and mutation read its size.
func (CPU) Enum() domain.Enum { return CPUs }

// Gen is the processor's generation.
func (t CPU) Gen() Gen { return targets[t].gen }

// Op is a wait instruction.
type Op uint8

const (
	Waitcnt           Op = iota // s_waitcnt: gfx9 through gfx12 (deprecated on gfx12)
	WaitcntVScnt                // s_waitcnt_vscnt null, N: gfx10, gfx11
	WaitLoadcnt                 // s_wait_loadcnt N and the other s_wait_*: gfx12
	WaitStorecnt                //
	WaitSamplecnt               //
	WaitBvhcnt                  //
	WaitExpcnt                  //
	WaitDscnt                   //
	WaitKmcnt                   //
	WaitLoadcntDscnt            //
	WaitStorecntDscnt           //
	numOps
)

// Ops spells the instructions as llvm-mc does.
var Ops = domain.Enum{"s_waitcnt", "s_waitcnt_vscnt", "s_wait_loadcnt", "s_wait_storecnt", "s_wait_samplecnt",
	"s_wait_bvhcnt", "s_wait_expcnt", "s_wait_dscnt", "s_wait_kmcnt", "s_wait_loadcnt_dscnt", "s_wait_storecnt_dscnt"}

func (o Op) String() string { return Ops.Name(int(o)) }

// Enum names the values of Op: package desc and mutation read its size.
func (Op) Enum() domain.Enum { return Ops }

// Field is one counter's bits in the 16-bit operand: Width bits at Lo, and
// the value's bits above those, if the field is split, HiWidth bits at HiLo.
type Field struct {
	Name            string
	Lo, Width       uint
	HiLo, HiWidth   uint
	loMask, maxMask uint64
}

func field(name string, lo, width uint) Field { return splitField(name, lo, width, 0, 0) }

func splitField(name string, lo, width, hiLo, hiWidth uint) Field {
	return Field{Name: name, Lo: lo, Width: width, HiLo: hiLo, HiWidth: hiWidth,
		loMask: 1<<width - 1, maxMask: 1<<(width+hiWidth) - 1}
}

// Max is the largest threshold the field holds.
func (f Field) Max() uint64 { return f.maxMask }

// Put places n in the field. A value too wide for it is not masked: its
// high bits land where the plain arithmetic of the documented integer form
// (vm | exp << 4 | ...) puts them, in other fields or above bit 15.
func (f Field) Put(n uint64) uint64 {
	if f.HiWidth == 0 {
		return n << f.Lo
	}
	return (n&f.loMask)<<f.Lo | (n>>f.Width)<<f.HiLo
}

// Get reads the field's threshold from an operand.
func (f Field) Get(op uint16) uint64 {
	n := uint64(op) >> f.Lo & f.loMask
	if f.HiWidth > 0 {
		n |= (uint64(op) >> f.HiLo & (1<<f.HiWidth - 1)) << f.Width
	}
	return n
}

// Layout is one instruction's encoding on one generation.
type Layout struct {
	// Base is the 32-bit instruction word with a zero operand.
	Base uint32
	// Fields are the counters in the order llvm-mc prints them.
	Fields []Field
	// Named is set when the operand may be written as counter helpers
	// (vmcnt(N) expcnt(N) lgkmcnt(N)); else it is an integer.
	Named bool
	// Null is set for SOPK forms, whose text starts with "null, ".
	Null bool
}

// Used is the mask of the operand bits some field uses.
func (l Layout) Used() uint16 {
	var m uint64
	for _, f := range l.Fields {
		m |= f.Put(f.Max())
	}
	return uint16(m)
}

// The layouts. Sources: the LLVM AMDGPU assembler syntax pages
// (docs/AMDGPU/gfx9_waitcnt.rst: vmcnt bits 3:0 and 15:14, expcnt 6:4,
// lgkmcnt 11:8; gfx10_waitcnt.rst: lgkmcnt 13:8; gfx11_waitcnt.rst and
// gfx12_waitcnt.rst: expcnt 2:0, bit 3 unused, lgkmcnt 9:4, vmcnt 15:10;
// "the value must be in the range 0..0xFFFF"), the opcode tables of the
// AMD Vega, RDNA1-3 and RDNA4 ISA guides (SOPP s_waitcnt 0x0c on gfx9/10
// and 0x09 on gfx11/12; SOPK s_waitcnt_vscnt 0x17 on gfx10 and 0x18 on
// gfx11, sdst null = 125 / 124; RDNA4 SOPP s_wait_loadcnt 0x40 ...
// s_wait_storecnt_dscnt 0x49), and LLVM's AMDGPUBaseInfo counter widths
// for gfx12 (loadcnt, storecnt, samplecnt, dscnt 6 bits, kmcnt 5, expcnt
// and bvhcnt 3; the combined forms put loadcnt/storecnt at 13:8, dscnt at
// 5:0). LLVM PR 77336: on gfx12 "S_WAITCNT still exists but is deprecated"
// and S_WAITCNT_VSCNT is removed; LLVM PR 145082: gfx1250 drops
// samplecnt, bvhcnt and expcnt waits.
var (
	vm9, exp9, lgkm9 = splitField("vmcnt", 0, 4, 14, 2), field("expcnt", 4, 3), field("lgkmcnt", 8, 4)
	lgkm10           = field("lgkmcnt", 8, 6)
	vm11, exp11      = field("vmcnt", 10, 6), field("expcnt", 0, 3)
	lgkm11           = field("lgkmcnt", 4, 6)
	waitcnt9         = Layout{Base: 0xbf8c0000, Fields: []Field{vm9, exp9, lgkm9}, Named: true}
	waitcnt10        = Layout{Base: 0xbf8c0000, Fields: []Field{vm9, exp9, lgkm10}, Named: true}
	waitcnt11        = Layout{Base: 0xbf890000, Fields: []Field{vm11, exp11, lgkm11}, Named: true}
)

func sopp12(op uint32, fs ...Field) Layout { return Layout{Base: 0xbf800000 | op<<16, Fields: fs} }

var gfx12Waits = map[Op]Layout{
	WaitLoadcnt:       sopp12(0x40, field("loadcnt", 0, 6)),
	WaitStorecnt:      sopp12(0x41, field("storecnt", 0, 6)),
	WaitSamplecnt:     sopp12(0x42, field("samplecnt", 0, 6)),
	WaitBvhcnt:        sopp12(0x43, field("bvhcnt", 0, 3)),
	WaitExpcnt:        sopp12(0x44, field("expcnt", 0, 3)),
	WaitDscnt:         sopp12(0x46, field("dscnt", 0, 6)),
	WaitKmcnt:         sopp12(0x47, field("kmcnt", 0, 5)),
	WaitLoadcntDscnt:  sopp12(0x48, field("loadcnt", 8, 6), field("dscnt", 0, 6)),
	WaitStorecntDscnt: sopp12(0x49, field("storecnt", 8, 6), field("dscnt", 0, 6)),
}

// LayoutOf returns op's layout on generation g; ok is false where the
// instruction does not exist.
func LayoutOf(op Op, g Gen) (Layout, bool) {
	switch {
	case op == Waitcnt && g == GFX9:
		return waitcnt9, true
	case op == Waitcnt && g == GFX10:
		return waitcnt10, true
	case op == Waitcnt && (g == GFX11 || g == GFX12):
		return waitcnt11, true
	case op == WaitcntVScnt && g == GFX10:
		return Layout{Base: 0xbbfd0000, Fields: []Field{field("vscnt", 0, 6)}, Null: true}, true
	case op == WaitcntVScnt && g == GFX11:
		return Layout{Base: 0xbc7c0000, Fields: []Field{field("vscnt", 0, 6)}, Null: true}, true
	case g == GFX12 || g == GFX1250:
		l, ok := gfx12Waits[op]
		if g == GFX1250 && (op == WaitSamplecnt || op == WaitBvhcnt || op == WaitExpcnt) {
			return Layout{}, false
		}
		return l, ok
	}
	return Layout{}, false
}

// OpsOn lists the instructions generation g has.
func OpsOn(g Gen) []Op {
	var ops []Op
	for op := range numOps {
		if _, ok := LayoutOf(op, g); ok {
			ops = append(ops, op)
		}
	}
	return ops
}

// OpOf finds the instruction a mnemonic names.
func OpOf(mnemonic string) (Op, bool) {
	i, err := Ops.Parse("op", mnemonic)
	return Op(i), err == nil
}

// ReadText reads an instruction as llvm-mc prints it (and as a person
// writes it in the named forms) for generation g, and returns the
// instruction word it says: counters written as name(N) or name_sat(N) in
// any order and with any separator, the others at their maximum; or one
// integer operand, placed in the word as it is (not an expression, which
// llvm-mc never prints). It refuses a named
// threshold outside its field, an operand outside 0..0xFFFF and a counter
// named twice: the word must say exactly what the text says.
func ReadText(g Gen, text string) (uint32, error) {
	mn, rest, _ := strings.Cut(strings.TrimSpace(text), " ")
	op, ok := OpOf(mn)
	if !ok {
		return 0, fmt.Errorf("not a wait instruction: %q", text)
	}
	l, ok := LayoutOf(op, g)
	if !ok {
		return 0, fmt.Errorf("%s does not exist on %s", op, g)
	}
	rest = strings.TrimSpace(rest)
	if l.Null {
		r, ok := strings.CutPrefix(rest, "null,")
		if !ok {
			return 0, fmt.Errorf("%q: want \"null, N\"", text)
		}
		rest = strings.TrimSpace(r)
	}
	if l.Named && strings.Contains(rest, "(") {
		operand, err := readNamed(l, rest)
		if err != nil {
			return 0, fmt.Errorf("%q: %w", text, err)
		}
		return l.Base | uint32(operand), nil
	}
	n, err := strconv.ParseUint(rest, 0, 64)
	if err != nil || n > 0xffff {
		return 0, fmt.Errorf("%q: operand is not an integer in 0..0xFFFF", text)
	}
	return l.Base | uint32(n), nil
}

// readNamed reads "vmcnt(1) & lgkmcnt_sat(70)".
func readNamed(l Layout, s string) (uint64, error) {
	vals := make([]uint64, len(l.Fields))
	seen := make([]bool, len(l.Fields))
	for i, f := range l.Fields {
		vals[i] = f.Max()
	}
	words := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '&' || r == ',' })
	for _, w := range words {
		name, arg, ok := strings.Cut(w, "(")
		num, closed := strings.CutSuffix(arg, ")")
		n, err := strconv.ParseUint(num, 0, 64)
		if !ok || !closed || err != nil {
			return 0, fmt.Errorf("bad counter %q", w)
		}
		base, sat := strings.CutSuffix(name, "_sat")
		i := fieldIndex(l, base)
		switch {
		case i < 0:
			return 0, fmt.Errorf("no counter %q here", base)
		case seen[i]:
			return 0, fmt.Errorf("%s named twice", base)
		case sat:
			n = min(n, l.Fields[i].Max())
		case n > l.Fields[i].Max():
			return 0, fmt.Errorf("%s(%d) does not fit its field (0..%d)", base, n, l.Fields[i].Max())
		}
		vals[i], seen[i] = n, true
	}
	var operand uint64
	for i, f := range l.Fields {
		operand |= f.Put(vals[i])
	}
	return operand, nil
}

func fieldIndex(l Layout, name string) int {
	for i, f := range l.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// gfx942 is the default target.
var gfx942 = mustTarget("gfx942")

func mustTarget(name string) CPU {
	i, err := CPUs.Parse("target", name)
	if err != nil {
		panic(err) // a typo in this package
	}
	return CPU(i)
}
