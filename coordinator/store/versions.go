package store

import (
	"regexp"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// The outcomes of replaying a bucket's case on one version of its tool:
// what that version did at the stage the bucket is about (the stage under
// test: the verifier that crashed, the pass that printed an error at exit
// status 0; for a verifier that lets a case through, every stage up to the
// tool that refused MLIR's output).
const (
	// Reproduces: the version shows the bucket's signature.
	Reproduces = "reproduces"
	// Fixed: the version reaches the stage under test and is right there:
	// it decides the case as spec/ptxisa does, or, where the bucket is a
	// crash or an error at exit status 0, it answers in words.
	Fixed = "fixed"
	// CannotJudge: the version cannot judge the case: it cannot spell or
	// parse the domain (unsupported), or gave no verdict.
	CannotJudge = "cannot judge"
	// StopsEarlier: a stage before the one under test decides the case
	// (another stage refuses first), so whether the bug is there is not
	// known.
	StopsEarlier = "stops earlier"
	// DecidedLater: the stage under test passes the case on without the
	// bug but without the right answer, and a later stage decides it (a
	// verifier that lets an invalid case through instead of crashing on
	// it, the lowering refusing it).
	DecidedLater = "decided later"
	// Differs: the stage under test fails in another way (another crash,
	// other words): another bucket's bug, not this one's.
	Differs = "fails otherwise"
)

// cells are the outcomes as a table cell spells them, at most 8 columns.
var cells = map[string]string{Reproduces: "yes", Fixed: "fixed", CannotJudge: "n/a", StopsEarlier: "earlier",
	DecidedLater: "later", Differs: "other"}

// VersionVerdict is one version of a bucket's tool replaying the bucket's
// case.
type VersionVerdict struct {
	Oracle  string       `json:"oracle"`
	Version string       `json:"version"`
	Kind    oracles.Kind `json:"verdict"`
	Rule    string       `json:"rule,omitempty"`
	Outcome string       `json:"outcome"`
	// Case is the case replayed (the bucket's minimized case, or its
	// example): a replay of the same case on the same version would say
	// the same, and is not repeated.
	Case string `json:"case,omitempty"`
}

// releaseNumber finds the first dotted version in an oracle's version
// string: "mlir-opt 22.1.8 +lowering ptxas 12.4.131" → 22.
var releaseNumber = regexp.MustCompile(`\b(\d+)\.\d+`)

// Label is how found-in/fixed-in names the version: the label of its
// LLVM installation ("22", "trunk"), else its major release, else the
// oracle's name.
func (v VersionVerdict) Label() string {
	if l := oracles.Label(v.Oracle); l != "" {
		return l
	}
	if m := releaseNumber.FindStringSubmatch(v.Version); m != nil {
		return m[1]
	}
	return v.Oracle
}

// Cell is the outcome in a table's cell: yes, fixed, n/a, earlier, later
// or other.
func (v VersionVerdict) Cell() string {
	if c, ok := cells[v.Outcome]; ok {
		return c
	}
	return v.Outcome
}

// Tells reports whether the version ran the stage under test, so that its
// replay says whether the bug is there: it reproduces, or the stage is
// fixed or passes the case on.
func (v VersionVerdict) Tells() bool {
	return v.Outcome == Reproduces || v.Absent()
}

// Absent reports whether the version ran the stage under test and the bug
// did not show there.
func (v VersionVerdict) Absent() bool { return v.Outcome == Fixed || v.Outcome == DecidedLater }

// FoundIn spells the replay for people: "19: reproduces, 22: fixed";
// empty when the bucket was not replayed.
func (b Bucket) FoundIn() string {
	parts := make([]string, len(b.Versions))
	for i, v := range b.Versions {
		parts[i] = v.Label() + ": " + v.Outcome
	}
	return strings.Join(parts, ", ")
}

// NewestReproduces reports whether the newest version that ran the stage
// under test still shows the bug: what upstream wants to hear about.
func (b Bucket) NewestReproduces() bool {
	for i := len(b.Versions) - 1; i >= 0; i-- {
		if b.Versions[i].Tells() {
			return b.Versions[i].Outcome == Reproduces
		}
	}
	return false
}

// Regression reports whether the bug came with a newer version: the
// oldest version that ran the stage under test does not show it, a newer
// one does.
func (b Bucket) Regression() bool {
	absent := false
	for _, v := range b.Versions {
		switch {
		case v.Absent():
			absent = true
		case v.Outcome == Reproduces:
			return absent
		}
	}
	return false
}

// Main reports whether the version is a build of LLVM main: make oracles'
// trunk snapshot, or a build whose version says git.
func (v VersionVerdict) Main() bool {
	return oracles.Label(v.Oracle) == toolchain.Trunk || strings.Contains(v.Version, "git")
}

// ReproducesOn reports whether the bucket's replay shows it on the version
// labelled label (FoundIn's names).
func (b Bucket) ReproducesOn(label string) bool {
	for _, v := range b.Versions {
		if v.Label() == label && v.Outcome == Reproduces {
			return true
		}
	}
	return false
}

// FixedUpstream reports whether LLVM main no longer shows a bucket that a
// release still does: the bug is fixed where it will next be released,
// so a nightly lists it without failing, naming the release that has it.
func (b Bucket) FixedUpstream() bool {
	var mainFixed, releaseHas bool
	for _, v := range b.Versions {
		switch {
		case v.Main() && v.Outcome == Reproduces:
			return false
		case v.Main() && v.Absent():
			mainFixed = true
		case !v.Main() && v.Outcome == Reproduces:
			releaseHas = true
		}
	}
	return mainFixed && releaseHas
}
