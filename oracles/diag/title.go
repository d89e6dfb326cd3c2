package diag

import (
	"regexp"
	"strings"
)

// Title is the dedup key of a diagnostic: its first line that is not blank
// (see headline), normalized, without its position prefix, with the
// numbers that vary with the case made N and the words that name what the
// check is about kept. One failed check thus gives one title whatever the
// shape, count or target it failed for, and two checks that differ by the
// type they refuse give two titles (see words).
// White space runs are one space.
func Title(text string) string {
	line := StripLocations(Normalize(headline(text)))
	line = words.ReplaceAllStringFunc(line, titleWord)
	for _, n := range titleRules {
		line = n.re.ReplaceAllString(line, n.with)
	}
	return strings.Join(strings.Fields(line), " ")
}

// words matches, leftmost first, the words of a line Title rewrites or
// keeps, one alternative each (titleWord tells them apart):
//   - a target a tool names as a requirement ("requires .target sm_90 or
//     higher"): a constant of the check, kept;
//   - any other GPU target ("sm_86", "sm_90a", "sm_100f", "compute_90a",
//     "gfx90a"): the case's own in every message we have seen of it
//     (testdata: five of the six that name an NVIDIA target), so one name,
//     "sm_N", "compute_N", "gfxN", or one check would be a bucket per
//     target;
//   - a type or qualifier word: MLIR's small floats ("f8E4M3FN"), PTX and
//     MLIR element types ("f16", "bf16", "tf32", "i8", "u8", "s32", "b16",
//     "f16x2", the "i32" of "vector<4xi32>", each "fN" of "kind::mxf8f6f4"),
//     fp8 formats ("e4m3", "ue8m0") and PTX's count qualifiers (".x3",
//     ".v4"): kept, so that two checks that refuse different types are two
//     titles;
//   - any other run of digits (a count, a shape's "m16n8k16", an offset, a
//     version, the digits inside a name): N.
var words = regexp.MustCompile(`requires \.target sm_\d+[a-z]?` +
	`|\b(?:sm|compute)_\d+[a-z]?\b|\bgfx[0-9a-f]+\b` +
	`|f\d+E\d+M\d+(?:FNUZ|FN|B\d+FNUZ)?|(?:bf|tf|ue|[fiusb])\d+(?:x\d+)?|e\d+m\d+|\.[xv]\d+\b` +
	`|\d+`)

var (
	digits  = regexp.MustCompile(`\d+`)
	target  = regexp.MustCompile(`^(sm|compute)_\d+[a-z]?$`)
	gfx     = regexp.MustCompile(`^gfx[0-9a-f]+$`)
	keptTyp = regexp.MustCompile(`^(?:requires |f\d+E|(?:bf|tf|ue|[fiusb])\d|e\d|\.[xv]\d)`)
)

// titleWord rewrites one word words matched.
func titleWord(w string) string {
	switch {
	case target.MatchString(w):
		return target.ReplaceAllString(w, "${1}_N")
	case gfx.MatchString(w):
		return "gfxN"
	case keptTyp.MatchString(w):
		return w
	}
	return digits.ReplaceAllString(w, "N")
}

// titleRules coarsen a titled line further.
var titleRules = []rule{
	// Operations whose verifier messages are one message are one name.
	// MLIR verifies nvgpu.mma.sp.sync with the same code as nvgpu.mma.sync
	// and says the same thing for the same fault, quoted as the op or named
	// in the text (testdata/mlir-opt-*-mma-sp-*, mlir-opt-19-mma-*e4m3).
	{regexp.MustCompile(`\bnvgpu\.mma\.sp\.sync\b`), "nvgpu.mma.sync"},
	// MLIR 22's six nvvm.tcgen05.mma ops (.sp, .block_scale, .ws) share
	// their target list and verifier (testdata/mlir-opt-22-tcgen05-mma-*).
	{regexp.MustCompile(`\bnvvm\.tcgenN\.mma(?:\.(?:sp|ws|block_scale))+\b`), "nvvm.tcgenN.mma"},
}

// headline is the first line of text that is not blank. Every tool we
// judge puts its error first (checked on the real output in testdata/):
// MLIR's notes, ptxas's "fatal : Ptx assembly aborted" and llc's stack dump
// follow it, and ptxas prints its -v info and warnings only after parsing
// succeeded.
func headline(text string) string {
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// trailingQualifier is a last clause a tool version may add to or drop from
// a message without changing the check it reports: mlir-opt 22 says
// "expected num attribute to be N, N or N for NxN matrix" where 19 stops
// after the list (testdata/mlir-opt-*-nvvm-ldmatrix-num).
var trailingQualifier = regexp.MustCompile(`(?: (?:for|in|on|at|with) [^,;:'"]*|\s*\([^()]*\))$`)

// AltTitles are the other titles a title's bucket answers to (syzkaller's
// alternative titles): the title without a trailing qualifying clause. Two
// titles name one check when one equals the other or one of its
// alternatives.
func AltTitles(title string) []string {
	alt := strings.TrimSpace(trailingQualifier.ReplaceAllString(title, ""))
	if alt == title || alt == "" || !strings.Contains(alt, " ") {
		return nil
	}
	return []string{alt}
}

// targetGate matches the words with which the tools refuse an instruction
// for the target or the PTX ISA version rather than for its operands:
// ptxas ("requires .target sm_90 or higher", "not supported on .target",
// "requires PTX ISA .version 8.0 or later") and MLIR 22's requiresSM
// checks ("is not supported on sm_80").
var targetGate = regexp.MustCompile(`requires \.target sm_|not supported on \.target|requires PTX ISA \.version|is not supported on sm_\d`)

// TargetGate reports whether a tool's diagnostic refuses the target or the
// PTX ISA version: such a refusal says nothing about any other rule.
func TargetGate(diagnostic string) bool { return targetGate.MatchString(diagnostic) }
