package cuda

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
)

// LDSMForm is an ldmatrix or stmatrix .m8n8 .b16 instruction the gpu
// oracle runs: its op, matrix count (.x1/.x2/.x4) and .trans.
type LDSMForm struct {
	Op    ldsm.Op
	Num   int
	Trans bool
}

// LDSMForms lists every form, in kernel order.
func LDSMForms() []LDSMForm {
	var out []LDSMForm
	for _, op := range []ldsm.Op{ldsm.Load, ldsm.Store} {
		for _, num := range []int{1, 2, 4} {
			for _, trans := range []bool{false, true} {
				out = append(out, LDSMForm{op, num, trans})
			}
		}
	}
	return out
}

// Kernel is the form's entry name, e.g. "ldsm_ldmatrix_x4_trans".
func (f LDSMForm) Kernel() string {
	name := fmt.Sprintf("ldsm_%s_x%d", f.Op, f.Num)
	if f.Trans {
		name += "_trans"
	}
	return name
}

// Instruction spells the form as PTX.
func (f LDSMForm) Instruction() string {
	trans := ""
	if f.Trans {
		trans = ".trans"
	}
	return fmt.Sprintf("%s.sync.aligned.m8n8.x%d%s.shared.b16", f.Op, f.Num, trans)
}

// Geometry of the ldsm kernels: a 1024-byte aligned tile of shared memory,
// the first 16 bytes of row r of matrix m at tile + off + 16*(8m + r)
// (lane 8m + r supplies that address), off being the case's alignment.
const (
	ldsmTileBytes = 2048
	ldsmThreads   = 32
	ldsmMaxOffset = 1024
)

// LDSMTile is the tile an ldmatrix check loads: byte b holds the low or
// high byte of the 16-bit value b/2 + 1, so every b16 read, aligned or not,
// names the bytes it came from.
func LDSMTile() []byte {
	tile := make([]byte, ldsmTileBytes)
	for b := 0; b < ldsmTileBytes; b += 2 {
		binary.LittleEndian.PutUint16(tile[b:], uint16(b/2+1))
	}
	return tile
}

// LDSMOffset is where the rows of a case with shared-operand alignment
// align (a power of two) start from the tile's 1024-byte boundary: at
// exactly that alignment (1024 for 1024).
func LDSMOffset(align uint16) int { return min(int(align), ldsmMaxOffset) }

// ldsmElem is the fragment element (row, col) of lane t's register half h
// in the non-transposed layout: row t/4, columns 2*(t%4) and 2*(t%4)+1.
// .trans swaps row and column.
func ldsmElem(f LDSMForm, t, h int) (row, col int) {
	row, col = t/4, 2*(t%4)+h
	if f.Trans {
		row, col = col, row
	}
	return row, col
}

// ExpectLDSM predicts what each lane's registers hold after an ldmatrix of
// form f with rows at tile offset off: regs[lane][m] for matrix m, the
// lower-column element in the low half. Reads are of the bytes at the
// given addresses, aligned or not, which is what a misaligned case would
// return if the hardware did not fault.
func ExpectLDSM(f LDSMForm, off int, tile []byte) [ldsmThreads][]uint32 {
	var regs [ldsmThreads][]uint32
	for t := range ldsmThreads {
		regs[t] = make([]uint32, f.Num)
		for m := range f.Num {
			var v uint32
			for h := range 2 {
				row, col := ldsmElem(f, t, h)
				a := off + 16*(8*m+row) + 2*col
				v |= uint32(binary.LittleEndian.Uint16(tile[a:])) << (16 * h)
			}
			regs[t][m] = v
		}
	}
	return regs
}

// LDSMStoreValue is the register lane t holds for matrix m in an stmatrix
// check: halves 0x10II and 0x11II for II = 4t + m, so every stored b16 is
// distinct and none of its bytes is the sentinel.
func LDSMStoreValue(t, m int) uint32 {
	idx := uint32(t*4 + m)
	return idx | idx<<16 | 0x11001000
}

// ExpectSTSM predicts the tile after an stmatrix of form f with rows at
// offset off, from a tile filled with the sentinel.
func ExpectSTSM(f LDSMForm, off int) []byte {
	tile := make([]byte, ldsmTileBytes)
	for i := range tile {
		tile[i] = Sentinel
	}
	for t := range ldsmThreads {
		for m := range f.Num {
			v := LDSMStoreValue(t, m)
			for h := range 2 {
				row, col := ldsmElem(f, t, h)
				binary.LittleEndian.PutUint16(tile[off+16*(8*m+row)+2*col:], uint16(v>>(16*h)))
			}
		}
	}
	return tile
}

// LDSMModule is the PTX module of every ldsm kernel, for sm_90a.
func LDSMModule() string {
	var b strings.Builder
	b.WriteString(".version 8.0\n.target sm_90a\n.address_size 64\n")
	for _, f := range LDSMForms() {
		b.WriteString("\n")
		b.WriteString(ldsmKernel(f))
	}
	return b.String()
}

// ldsmKernel is one form's kernel. Parameters: in (the tile, ldmatrix),
// out, offs (a u32 row offset per block). Block b uses offs[b]; ldmatrix
// writes each lane's registers to out[(32b + lane)*num], stmatrix the whole
// tile to out[2048 b].
func ldsmKernel(f LDSMForm) string {
	var k strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&k, "\t"+format+"\n", args...) }
	fmt.Fprintf(&k, ".visible .entry %s(\n\t.param .u64 in_param,\n\t.param .u64 out_param,\n\t.param .u64 offs_param\n)\n{\n", f.Kernel())
	w(".reg .pred %%p<4>;")
	w(".reg .b32 %%r<40>;")
	w(".reg .b64 %%rd<16>;")
	w(".shared .align 1024 .b8 tile[%d];", ldsmTileBytes)
	w("ld.param.u64 %%rd1, [in_param];")
	w("cvta.to.global.u64 %%rd1, %%rd1;")
	w("ld.param.u64 %%rd2, [out_param];")
	w("cvta.to.global.u64 %%rd2, %%rd2;")
	w("ld.param.u64 %%rd3, [offs_param];")
	w("cvta.to.global.u64 %%rd3, %%rd3;")
	w("mov.u32 %%r1, %%ctaid.x;")
	w("mov.u32 %%r2, %%tid.x;")
	w("mov.u32 %%r3, tile;")
	w("shl.b32 %%r4, %%r2, 2;")
	w("mov.u32 %%r5, -1515870811; // 0xA5A5A5A5")
	k.WriteString("FILL:\n")
	w("setp.ge.u32 %%p1, %%r4, %d;", ldsmTileBytes)
	w("@%%p1 bra FILLED;")
	if f.Op == ldsm.Load {
		w("cvt.u64.u32 %%rd4, %%r4;")
		w("add.u64 %%rd5, %%rd1, %%rd4;")
		w("ld.global.u32 %%r5, [%%rd5];")
	}
	w("add.u32 %%r6, %%r3, %%r4;")
	w("st.shared.u32 [%%r6], %%r5;")
	w("add.u32 %%r4, %%r4, %d;", 4*ldsmThreads)
	w("bra.uni FILL;")
	k.WriteString("FILLED:\n")
	w("bar.sync 0;")
	w("mul.wide.u32 %%rd6, %%r1, 4;")
	w("add.u64 %%rd7, %%rd3, %%rd6;")
	w("ld.global.u32 %%r7, [%%rd7];")
	w("rem.u32 %%r8, %%r2, %d;", 8*f.Num)
	w("shl.b32 %%r8, %%r8, 4;")
	w("add.u32 %%r9, %%r3, %%r7;")
	w("add.u32 %%r9, %%r9, %%r8; // this lane's row address")
	regs := make([]string, f.Num)
	for m := range regs {
		regs[m] = fmt.Sprintf("%%r%d", 10+m)
	}
	vec := "{" + strings.Join(regs, ", ") + "}"
	if f.Op == ldsm.Load {
		w("%s %s, [%%r9];", f.Instruction(), vec)
		w("mad.lo.u32 %%r20, %%r1, %d, %%r2;", ldsmThreads)
		w("mul.wide.u32 %%rd8, %%r20, %d;", 4*f.Num)
		w("add.u64 %%rd9, %%rd2, %%rd8;")
		for m, r := range regs {
			w("st.global.u32 [%%rd9+%d], %s;", 4*m, r)
		}
		k.WriteString("\tret;\n}\n")
		return k.String()
	}
	for m, r := range regs { // LDSMStoreValue(t, m)
		w("mad.lo.u32 %%r21, %%r2, 4, %d;", m)
		w("shl.b32 %%r22, %%r21, 16;")
		w("or.b32 %%r21, %%r21, %%r22;")
		w("or.b32 %s, %%r21, 285216768; // 0x11001000", r)
	}
	w("%s [%%r9], %s;", f.Instruction(), vec)
	w("bar.sync 0;")
	w("mul.wide.u32 %%rd8, %%r1, %d;", ldsmTileBytes)
	w("add.u64 %%rd9, %%rd2, %%rd8;")
	w("shl.b32 %%r4, %%r2, 2;")
	k.WriteString("COPY:\n")
	w("setp.ge.u32 %%p2, %%r4, %d;", ldsmTileBytes)
	w("@%%p2 bra COPIED;")
	w("add.u32 %%r6, %%r3, %%r4;")
	w("ld.shared.u32 %%r23, [%%r6];")
	w("cvt.u64.u32 %%rd10, %%r4;")
	w("add.u64 %%rd11, %%rd9, %%rd10;")
	w("st.global.u32 [%%rd11], %%r23;")
	w("add.u32 %%r4, %%r4, %d;", 4*ldsmThreads)
	w("bra.uni COPY;")
	k.WriteString("COPIED:\n\tret;\n}\n")
	return k.String()
}
