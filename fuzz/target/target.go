// Package target names the GPU architectures and PTX ISA versions that every
// domain value records, so each case is judged for its own target.
package target

import (
	"fmt"
	"strconv"
	"strings"
)

// Arch is a PTX target architecture such as sm_90a. The zero Arch is invalid.
type Arch struct {
	// SM is the compute capability times ten: 80, 90, 100, 120.
	SM int
	// Suffix is "" for the portable target, "a" for the architecture-specific
	// (arch-conditional) variant and "f" for the family-specific one.
	Suffix string
}

func (a Arch) String() string { return fmt.Sprintf("sm_%d%s", a.SM, a.Suffix) }

// ArchSpecific reports whether a is an sm_XXa target.
func (a Arch) ArchSpecific() bool { return a.Suffix == "a" }

// FamilySpecific reports whether a is an sm_XXf target.
func (a Arch) FamilySpecific() bool { return a.Suffix == "f" }

// archInfo is one row of the known-target table.
type archInfo struct {
	arch   Arch
	minPTX PTX // the first PTX ISA version that accepts the target
	// lastPTX is the last PTX ISA version that names the target, or 0:
	// PTX ISA 9.0 renamed sm_101 to sm_110 (Jetson Thor), so a .version 9.0
	// module has no sm_101 target (llc 22 then selects no tcgen05.mma for it).
	lastPTX PTX
}

// known lists every target legalfuzz can render, oldest first. The order is
// the canonical encoding of a target, so only append to it.
var known = []archInfo{
	{Arch{80, ""}, 70, 0}, {Arch{86, ""}, 71, 0}, {Arch{87, ""}, 74, 0}, {Arch{89, ""}, 78, 0},
	{Arch{90, ""}, 78, 0}, {Arch{90, "a"}, 80, 0},
	{Arch{100, ""}, 86, 0}, {Arch{100, "a"}, 86, 0}, {Arch{100, "f"}, 88, 0},
	{Arch{101, ""}, 86, 88}, {Arch{101, "a"}, 86, 88}, {Arch{101, "f"}, 88, 88},
	{Arch{103, ""}, 88, 0}, {Arch{103, "a"}, 88, 0}, {Arch{103, "f"}, 88, 0},
	{Arch{110, ""}, 90, 0}, {Arch{110, "a"}, 90, 0}, {Arch{110, "f"}, 90, 0},
	{Arch{120, ""}, 87, 0}, {Arch{120, "a"}, 87, 0}, {Arch{120, "f"}, 88, 0},
}

// PTX is a PTX ISA version times ten: 84 is PTX ISA 8.4.
type PTX int

func (p PTX) String() string { return fmt.Sprintf("%d.%d", p/10, p%10) }

// ptxVersions lists the PTX ISA versions legalfuzz knows, oldest first; the
// order is the canonical encoding, so only append.
var ptxVersions = []PTX{60, 61, 62, 63, 64, 65, 70, 71, 72, 73, 74, 75, 76, 77, 78,
	80, 81, 82, 83, 84, 85, 86, 87, 88, 90}

// Target is the architecture and PTX ISA version a case is rendered for.
type Target struct {
	Arch Arch
	PTX  PTX
}

func (t Target) String() string { return t.Arch.String() + " (PTX " + t.PTX.String() + ")" }

// MinPTX returns the first PTX ISA version that accepts arch.
func MinPTX(a Arch) PTX {
	for _, k := range known {
		if k.arch == a {
			return k.minPTX
		}
	}
	return 0
}

// Names reports whether t's PTX ISA version names its architecture: not
// before the target's first version, nor after a rename retired it.
func (t Target) Names() bool {
	for _, k := range known {
		if k.arch == t.Arch {
			return t.PTX >= k.minPTX && (k.lastPTX == 0 || t.PTX <= k.lastPTX)
		}
	}
	return false
}

// ParseArch parses "sm_90a".
func ParseArch(s string) (Arch, error) {
	for _, k := range known {
		if k.arch.String() == s {
			return k.arch, nil
		}
	}
	return Arch{}, fmt.Errorf("unknown target %q (known: %s)", s, strings.Join(ArchNames(), ", "))
}

// ParsePTX parses "8.4".
func ParsePTX(s string) (PTX, error) {
	major, minor, ok := strings.Cut(s, ".")
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(minor)
	if !ok || err1 != nil || err2 != nil || mi > 9 {
		return 0, fmt.Errorf("bad PTX ISA version %q, want MAJOR.MINOR such as 8.4", s)
	}
	p := PTX(ma*10 + mi)
	for _, v := range ptxVersions {
		if v == p {
			return p, nil
		}
	}
	return 0, fmt.Errorf("unknown PTX ISA version %q", s)
}

// Parse builds a target from its JSON spelling. An empty ptx means the first
// PTX ISA version that accepts the architecture, so a hand-written case names
// only what it cares about.
func Parse(arch, ptx string) (Target, error) {
	a, err := ParseArch(arch)
	if err != nil {
		return Target{}, err
	}
	if ptx == "" {
		return Target{a, MinPTX(a)}, nil
	}
	p, err := ParsePTX(ptx)
	if err != nil {
		return Target{}, err
	}
	return Target{a, p}, nil
}

// MustParse is Parse for targets written in Go source; it panics on a typo.
func MustParse(arch, ptx string) Target {
	t, err := Parse(arch, ptx)
	if err != nil {
		panic(err)
	}
	return t
}

// Known lists every known target at its first PTX ISA version, oldest first.
func Known() []Target {
	out := make([]Target, len(known))
	for i, k := range known {
		out[i] = Target{k.arch, k.minPTX}
	}
	return out
}

// ArchNames lists the known targets' spellings.
func ArchNames() []string {
	names := make([]string, len(known))
	for i, k := range known {
		names[i] = k.arch.String()
	}
	return names
}

// Encode appends the canonical two-byte form of t.
func (t Target) Encode(b []byte) []byte {
	ai, pi := 0, 0
	for i, k := range known {
		if k.arch == t.Arch {
			ai = i
		}
	}
	for i, v := range ptxVersions {
		if v == t.PTX {
			pi = i
		}
	}
	return append(b, byte(ai), byte(pi))
}

// Decode maps two arbitrary bytes to a known target; every pair is valid.
func Decode(arch, ptx byte) Target {
	return Target{known[int(arch)%len(known)].arch, ptxVersions[int(ptx)%len(ptxVersions)]}
}

// Valid reports whether t names a known architecture and PTX version.
func (t Target) Valid() bool {
	if MinPTX(t.Arch) == 0 {
		return false
	}
	for _, v := range ptxVersions {
		if v == t.PTX {
			return true
		}
	}
	return false
}

// JSON is the spelling of a target inside a domain value's JSON form.
type JSON struct {
	Target string `json:"target,omitempty"`
	PTX    string `json:"ptx,omitempty"`
}

// ToJSON spells t for a JSON form.
func (t Target) ToJSON() JSON { return JSON{t.Arch.String(), t.PTX.String()} }

// FromJSON parses the JSON spelling, defaulting the architecture to def when
// absent; errors name the field.
func (j JSON) FromJSON(def Arch) (Target, error) {
	arch := j.Target
	if arch == "" {
		arch = def.String()
	}
	t, err := Parse(arch, j.PTX)
	if err != nil {
		if _, aerr := ParseArch(arch); aerr != nil {
			return Target{}, fmt.Errorf("field \"target\": %w", err)
		}
		return Target{}, fmt.Errorf("field \"ptx\": %w", err)
	}
	return t, nil
}
