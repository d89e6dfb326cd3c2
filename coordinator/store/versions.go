package store

import (
	"regexp"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// The outcomes of replaying a bucket's case on one version of its tool.
const (
	// Reproduces: the version shows the bucket's signature.
	Reproduces = "reproduces"
	// Fixed: the version judges the case and does not show it.
	Fixed = "fixed"
	// CannotJudge: the version cannot judge the case (unsupported).
	CannotJudge = "cannot judge"
)

// VersionVerdict is one version of a bucket's tool replaying the bucket's
// case.
type VersionVerdict struct {
	Oracle  string       `json:"oracle"`
	Version string       `json:"version"`
	Kind    oracles.Kind `json:"verdict"`
	Rule    string       `json:"rule,omitempty"`
	Outcome string       `json:"outcome"`
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

// FoundIn spells the replay for people: "19: reproduces, 22: fixed";
// empty when the bucket was not replayed.
func (b Bucket) FoundIn() string {
	parts := make([]string, len(b.Versions))
	for i, v := range b.Versions {
		parts[i] = v.Label() + ": " + v.Outcome
	}
	return strings.Join(parts, ", ")
}

// NewestReproduces reports whether the newest version that judged the
// case still shows the bug: what upstream wants to hear about.
func (b Bucket) NewestReproduces() bool {
	for i := len(b.Versions) - 1; i >= 0; i-- {
		if b.Versions[i].Outcome != CannotJudge {
			return b.Versions[i].Outcome == Reproduces
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
		case v.Main() && v.Outcome == Fixed:
			mainFixed = true
		case !v.Main() && v.Outcome == Reproduces:
			releaseHas = true
		}
	}
	return mainFixed && releaseHas
}
