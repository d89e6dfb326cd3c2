package sass

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// mapping is one PTX instruction whose SASS opcode NVIDIA's "CUDA Binary
// Utilities" (12.4, §4.4 Ampere and Ada and §4.5 Hopper Instruction Set)
// names, checked on the seeds of every domain package ptx renders.
type mapping struct {
	// what names the PTX instruction for people; ptx matches one in an
	// entry's text.
	what string
	ptx  *regexp.Regexp
	// sass is the opcode, without modifiers: "LDGSTS".
	sass string
	// doc is the table's description of the opcode.
	doc string
	// required is set when ptxas may never drop the instruction: it writes
	// memory. An instruction whose only effect is its destination registers
	// (ldmatrix, mma, wgmma) is work ptxas may legitimately delete when
	// nothing reads them, and the rendered kernels never read them: ptxas
	// -O0 keeps a dead ldmatrix on sm_90 but deletes it on sm_80 to sm_89,
	// and -O3 deletes the dead wgmma's GMMA. Those are found, never required.
	required bool
}

// mappings is the table; docs/sass.md lists it with its sources.
var mappings = []mapping{
	{what: "cp.async.ca/cg", ptx: regexp.MustCompile(`\bcp\.async\.c[ag]\.shared`), sass: "LDGSTS", required: true,
		doc: "Asynchronous Global to Shared Memcopy"},
	{what: "stmatrix", ptx: regexp.MustCompile(`\bstmatrix\.`), sass: "STSM", required: true,
		doc: "Store Matrix to Shared Memory"},
	{what: "cp.async.bulk.tensor (global to shared)", ptx: regexp.MustCompile(`\bcp\.async\.bulk\.tensor\.\dd\.shared::cluster\.global\.`), sass: "UTMALDG", required: true,
		doc: "Tensor Load from Global to Shared Memory"},
	{what: "cp.async.bulk.tensor (shared to global)", ptx: regexp.MustCompile(`\bcp\.async\.bulk\.tensor\.\dd\.global\.shared::cta\.`), sass: "UTMASTG", required: true,
		doc: "Tensor Store from Shared to Global Memory"},
	// A prefetch changes no memory a program can read: ptxas may drop it.
	{what: "cp.async.bulk.prefetch.tensor", ptx: regexp.MustCompile(`\bcp\.async\.bulk\.prefetch\.tensor\.`), sass: "UTMAPF",
		doc: "Tensor Prefetch"},
	{what: "ldmatrix", ptx: regexp.MustCompile(`\bldmatrix\.`), sass: "LDSM",
		doc: "Load Matrix from Shared Memory with Element Size Expansion"},
	{what: "wgmma.mma_async", ptx: regexp.MustCompile(`\bwgmma\.mma_async\.`), sass: "HGMMA",
		doc: "Matrix Multiply and Accumulate Across a Warpgroup"},
	{what: "wgmma.mma_async", ptx: regexp.MustCompile(`\bwgmma\.mma_async\.`), sass: "IGMMA",
		doc: "Integer Matrix Multiply and Accumulate Across a Warpgroup"},
	{what: "wgmma.mma_async", ptx: regexp.MustCompile(`\bwgmma\.mma_async\.`), sass: "QGMMA",
		doc: "FP8 Matrix Multiply and Accumulate Across a Warpgroup"},
	{what: "wgmma.mma_async", ptx: regexp.MustCompile(`\bwgmma\.mma_async\.`), sass: "BGMMA",
		doc: "Bit Matrix Multiply and Accumulate Across Warpgroup"},
	{what: "mma", ptx: regexp.MustCompile(`\bmma\.(sync|sp)`), sass: "HMMA", doc: "Matrix Multiply and Accumulate"},
	{what: "mma", ptx: regexp.MustCompile(`\bmma\.(sync|sp)`), sass: "IMMA", doc: "Integer Matrix Multiply and Accumulate"},
	{what: "mma", ptx: regexp.MustCompile(`\bmma\.(sync|sp)`), sass: "DMMA", doc: "Matrix Multiply Accumulate"},
	{what: "mma", ptx: regexp.MustCompile(`\bmma\.(sync|sp)`), sass: "BMMA", doc: "Bit Matrix Multiply and Accumulate"},
}

// family is an opcode without its modifiers: "LDSM" for "LDSM.16.M88.4".
func family(opcode string) string {
	f, _, _ := strings.Cut(opcode, ".")
	return f
}

// dropped says which required instruction of the entry's PTX its SASS
// lacks, or "" when none is missing.
func dropped(ptxText string, code []Instr) string {
	have := map[string]int{}
	for _, in := range code {
		have[family(in.Opcode())]++
	}
	for _, m := range mappings {
		if !m.required {
			continue
		}
		if n := len(m.ptx.FindAllStringIndex(ptxText, -1)); n > 0 && have[m.sass] == 0 {
			return fmt.Sprintf("the PTX has %d %s where the SASS has no %s (%q)", n, m.what, m.sass, m.doc)
		}
	}
	return ""
}

// found lists, sorted and once each, the opcodes of the entry's SASS whose
// family the table names, for the instructions its PTX holds: what the case
// became ("LDSM.16.M88.4").
func found(ptxText string, code []Instr) string {
	want := map[string]bool{}
	for _, m := range mappings {
		if m.ptx.MatchString(ptxText) {
			want[m.sass] = true
		}
	}
	var ops []string
	for _, in := range code {
		if op := in.Opcode(); want[family(op)] {
			ops = append(ops, op)
		}
	}
	slices.Sort(ops)
	return strings.Join(slices.Compact(ops), " ")
}
