package diag

import (
	"regexp"
	"strings"
)

// Title is the dedup key of a diagnostic: its first line that is not blank
// (see headline), normalized, without its position prefix, with targets
// and every run of digits, inside tokens too, made N. One failed check thus
// gives one title whatever the shape, type width or target it failed for:
// "vector<64x256xi32>" and "vector<64x24xi32>" are both "vector<NxNxiN>",
// "m16n8k16" is "mNnNkN", "PTX .version 7.0" is "PTX .version N.N". Every
// GPU target, arch-specific suffix included, is one name: "sm_86", "sm_90a"
// and "sm_100f" are "sm_N", "compute_90a" is "compute_N", "gfx90a" and
// "gfx1100" are "gfxN"; MLIR's small floats ("f8E4M3FN", "f8E5M2") are
// "fN". Operation spellings that differ only by a variant checked by the
// same verifier code are one name (see titleRules). White space runs are
// one space.
func Title(text string) string {
	line := StripLocations(Normalize(headline(text)))
	for _, n := range titleRules {
		line = n.re.ReplaceAllString(line, n.with)
	}
	return strings.Join(strings.Fields(line), " ")
}

// titleRules coarsen a normalized line to a title. Targets go before the
// digit rule so that their suffix letters go too.
var titleRules = []rule{
	{regexp.MustCompile(`\b(sm|compute)_\d+[a-z]?\b`), "${1}_N"},
	// MLIR's small float types (f8E4M3FN, f8E5M2, f6E2M3FN, f4E2M1FN) are
	// one name: one check refuses each the same way, and their letters
	// would survive the digit rule and split its bucket.
	{regexp.MustCompile(`\bf\d+E\d+M\d+(?:FNUZ|FN|B\d+FNUZ)?\b`), "fN"},
	{regexp.MustCompile(`\bgfx[0-9a-f]+\b`), "gfxN"},
	{regexp.MustCompile(`\d+`), "N"},
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
