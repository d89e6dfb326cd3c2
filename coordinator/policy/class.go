package policy

import (
	"regexp"
	"slices"

	"github.com/legalfuzz/legalfuzz/oracles"
)

// Class says what kind of root cause a bucket is: a bug of the tool that
// deviates, a limitation the tool states itself, or evidence about a seed
// algorithm under test. Triage, reports and the exit status read it.
type Class string

// The classes, most severe first.
const (
	// Crash: the tool failed (an internal error, a crash, a hang).
	Crash Class = "crash"
	// Miscompile: the tool accepted and produced the wrong thing (another
	// value than the reference's).
	Miscompile Class = "miscompile"
	// ExitZeroError: the tool printed an error and exited 0, carrying on
	// as if it had succeeded: no crash, but a build stays green on broken
	// output.
	ExitZeroError Class = "exit-0-error"
	// TooPermissive: the tool accepts what spec/ptxisa rejects.
	TooPermissive Class = "too-permissive"
	// TooStrict: the tool rejects what spec/ptxisa accepts.
	TooStrict Class = "too-strict"
	// Disputed: two tools disagree and spec/ptxisa does not say which is
	// wrong.
	Disputed Class = "disputed"
	// Limitation: the tool rejects with its own "not supported (yet)" or
	// "hit a limitation": documented, not a bug.
	Limitation Class = "limitation"
	// SeedEvidence: the deviating "tool" is a seed's algorithm under test
	// (the fence inserter, the waitcnt lowering): evidence about the seed.
	SeedEvidence Class = "seed-evidence"
)

// classOrder ranks the classes for listing: crashes and miscompiles first.
var classOrder = []Class{Crash, Miscompile, ExitZeroError, TooPermissive, TooStrict, Disputed, Limitation, SeedEvidence}

// Classes lists every class, most severe first.
func Classes() []Class { return slices.Clone(classOrder) }

// Rank is the class's place in listings, most severe first.
func (c Class) Rank() int {
	for i, k := range classOrder {
		if k == c {
			return i
		}
	}
	return len(classOrder)
}

// Bug reports whether the class is a tool bug: what a nightly run fails
// on. Limitations and seed evidence are listed and counted, not failed on.
func (c Class) Bug() bool { return c != Limitation && c != SeedEvidence }

// limitationWords are how tools say they do not do something on purpose:
// MLIR's "Interleave options are not supported yet.", "hit a limitation",
// "(or not supported yet)", "supports non-transpose A ... for the time being".
var limitationWords = regexp.MustCompile(`(?i)not supported yet|not supported \(yet\)|or not supported yet|hit a limitation|not yet supported|unimplemented|for the time being`)

// ClassOf classifies a bucket's signature.
func ClassOf(s Signature) Class {
	in, _ := oracles.Lookup(s.Tool)
	switch {
	case in.Family == "algo" || PolicyFor(s.Domain).UnderTest != "":
		return SeedEvidence
	case s.Kind == oracles.Error || s.Kind == oracles.Timeout:
		return faultClass(s)
	case s.Kind == oracles.Result || (s.On == OnValue && s.Kind == oracles.Accept && !specRejects(s)):
		return Miscompile // an accept of what spec/ptxisa rejects is too permissive, whatever its value
	case limitationWords.MatchString(s.Diag):
		return Limitation
	case s.Tool != "" && in.Name == "":
		return Disputed
	case s.Kind == oracles.Accept:
		return TooPermissive
	}
	return TooStrict
}

// faultClass classifies a tool's failure by the fault its stage names (see
// oracles.Stage). Code that silently lacks the work asked for is a
// miscompile, and so is code that does it with wrong values. A pass of
// the tool's own lowering refusing the case, or leaving its op
// unconverted, is its verifier too permissive whatever spec/ptxisa says:
// it let through what the same installation cannot lower. Output a later
// tool refused is a verifier too permissive when spec/ptxisa rejects the
// case, and a miscompile when the case is legal. An error printed with exit status 0
// is a class of its own: the tool did not crash, it reported success.
// Crashes and hangs are crashes.
func faultClass(s Signature) Class {
	switch oracles.ParseStage(s.Stage).Fault {
	case oracles.Dropped, oracles.WrongValue:
		return Miscompile
	case oracles.ExitZero:
		return ExitZeroError
	case oracles.Unconverted, oracles.PassRefused:
		return TooPermissive
	case oracles.Refused:
		if specRejects(s) {
			return TooPermissive
		}
		return Miscompile
	}
	return Crash
}

// specRejects reports whether spec/ptxisa rejected the bucket's case: its
// kind when the signature has it, else its rule, which is a rule ID on a
// rejection and the rule set ("ptxisa.DOMAIN") on an accept.
func specRejects(s Signature) bool {
	if s.SpecKind != "" {
		return s.SpecKind == oracles.Reject
	}
	return s.Rule != "" && s.Rule != "ptxisa."+s.Domain
}
