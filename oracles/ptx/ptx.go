// Package ptx renders domain values as PTX: one kernel entry per case, and
// batch modules of many entries with a line table that maps every line of
// the file back to its case. The ptxas oracles and the CUDA JIT oracle share
// these renderers, so a value means the same PTX to every tool that reads it.
//
// Renderers spell what a value says as literally as they can: an illegal
// value becomes illegal PTX, which is the point. Only a value that PTX has
// no spelling for at all (a reserved field value) is refused, with
// an oracles.NoSpelling.
package ptx

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// noSpelling is the NoSpelling of a declared reason (Reasons), e.g. {kind,
// reserved-6} "for reserved kind 6": PTX cannot express the value at all,
// and an oracle reports the case as unsupported, never as rejected.
func noSpelling(field, class, format string, args ...any) error {
	return Reasons.New(field, class, "no PTX spelling "+format, args...)
}

// Entry is one case rendered as a kernel entry.
type Entry struct {
	// CaseID is the case's ID; Domain its domain.
	CaseID, Domain string
	// Target is the case's target: the module header it needs.
	Target target.Target
	// Name is the entry's symbol, derived from the case ID.
	Name string
	// Text is the entry's lines, from ".visible .entry" to the closing brace,
	// each ending in a newline, preceded by the module-scope declarations the
	// entry needs (shared and global variables, .func helpers), if any; every
	// such symbol starts with Name and "$", so entries of a module never clash.
	Text string
}

// renderer spells one domain's value into a kernel.
type renderer func(v domain.Value, k *kernel) error

// renderers maps a domain name to its renderer; each domain file registers
// itself in init.
var renderers = map[string]renderer{}

// register adds the renderer of one domain, whose values are V; a value of
// another type is a harness bug (a case filed under the wrong domain).
func register[V domain.Value](domainName string, r func(v V, k *kernel) error) {
	renderers[domainName] = func(dv domain.Value, k *kernel) error {
		v, err := domain.As[V](dv)
		if err != nil {
			return fmt.Errorf("%s renderer: %w", domainName, err)
		}
		return r(v, k)
	}
}

// Domains lists the domains this package renders, sorted.
func Domains() []string {
	return slices.Sorted(maps.Keys(renderers))
}

// Renders reports whether the domain has a renderer.
func Renders(domainName string) bool {
	_, ok := renderers[domainName]
	return ok
}

// EntryName is the kernel symbol of a case: "case_" and its hex ID, a form
// diag.Normalize replaces by ENTRY, so diagnostics do not depend on the case.
func EntryName(caseID string) string { return "case_" + caseID }

// Render spells the case as one kernel entry for its own target. An
// *oracles.NoSpelling says PTX cannot express the value; any other error is a bug
// (a value of the wrong type, a domain without renderer).
func Render(c domain.Case) (Entry, error) {
	r, ok := renderers[c.Domain]
	if !ok {
		return Entry{}, fmt.Errorf("ptx: no renderer for domain %q", c.Domain)
	}
	if c.Value == nil {
		return Entry{}, fmt.Errorf("ptx: case %s has no value", c.ID)
	}
	name := EntryName(c.ID)
	k := newKernel(name)
	err := r(c.Value, k)
	if _, ok := oracles.AsNoSpelling(err); ok {
		return Entry{}, err // the same reason for every case, so verdicts compare
	} else if err != nil {
		return Entry{}, fmt.Errorf("ptx: %s case %s: %w", c.Domain, c.ID, err)
	}
	return Entry{CaseID: c.ID, Domain: c.Domain, Target: c.Value.Target(), Name: name, Text: k.text(name)}, nil
}

// regClass is a PTX register class: its declared type and name prefix.
type regClass struct{ typ, prefix string }

var (
	b16  = regClass{".b16", "%h"}
	b32  = regClass{".b32", "%r"}
	b64  = regClass{".b64", "%rd"}
	f32  = regClass{".f32", "%f"}
	f64  = regClass{".f64", "%fd"}
	pred = regClass{".pred", "%p"}
)

// classOrder fixes the order of register declarations.
var classOrder = []regClass{pred, b16, b32, b64, f32, f64}

// kernel collects one entry's registers, shared buffers and instructions,
// so a renderer allocates what it uses and the declarations always match.
type kernel struct {
	// name is the entry's symbol; module-scope symbols start with name+"$".
	name   string
	used   map[regClass]int
	shared []string
	body   []string
	// decls are module-scope declarations written before the entry, each
	// ending in a newline; directives are performance directives (.reqntid)
	// written between the entry's name and its body.
	decls      []string
	directives []string
}

func newKernel(name string) *kernel { return &kernel{name: name, used: map[regClass]int{}} }

// symbol is the module-scope symbol name+"$"+suffix: unique in a module,
// and normalized with the entry's name in diagnostics.
func (k *kernel) symbol(suffix string) string { return k.name + "$" + suffix }

// reg allocates a fresh register of class c.
func (k *kernel) reg(c regClass) string {
	k.used[c]++
	return fmt.Sprintf("%s%d", c.prefix, k.used[c])
}

// zero allocates a register of class c set to zero (predicates to false), so
// no instruction reads an undefined register.
func (k *kernel) zero(c regClass) string {
	r := k.reg(c)
	switch c {
	case pred:
		k.emit("setp.ne.b32 %s, 0, 0;", r)
	case f32:
		k.emit("mov.f32 %s, 0f00000000;", r)
	case f64:
		k.emit("mov.f64 %s, 0d0000000000000000;", r)
	default:
		k.emit("mov%s %s, 0;", c.typ, r)
	}
	return r
}

// value allocates a register of integer class c holding x.
func (k *kernel) value(c regClass, x uint64) string {
	r := k.reg(c)
	k.emit("mov%s %s, %#x;", c.typ, r, x)
	return r
}

// sharedBuf declares a shared-memory buffer (named prefix and a number, so
// names never clash) and returns a b32 register holding its shared-window
// address.
func (k *kernel) sharedBuf(prefix string, align, size int) string {
	name := fmt.Sprintf("%s%d", prefix, len(k.shared))
	k.shared = append(k.shared, fmt.Sprintf(".shared .align %d .b8 %s[%d];", align, name, size))
	r := k.reg(b32)
	k.emit("mov.u32 %s, %s;", r, name)
	return r
}

// emit appends one instruction line.
func (k *kernel) emit(format string, args ...any) {
	k.body = append(k.body, fmt.Sprintf(format, args...))
}

// text is the entry's source.
func (k *kernel) text(name string) string {
	var b strings.Builder
	for _, d := range k.decls {
		b.WriteString(d)
	}
	fmt.Fprintf(&b, ".visible .entry %s()\n", name)
	for _, d := range k.directives {
		fmt.Fprintf(&b, "%s\n", d)
	}
	b.WriteString("{\n")
	k.regDecls(&b)
	for _, s := range k.shared {
		fmt.Fprintf(&b, "\t%s\n", s)
	}
	for _, l := range k.body {
		fmt.Fprintf(&b, "\t%s\n", l)
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}

// regDecls writes the .reg declarations of the registers k allocated.
func (k *kernel) regDecls(b *strings.Builder) {
	for _, c := range classOrder {
		if n := k.used[c]; n > 0 {
			fmt.Fprintf(b, "\t.reg %s %s<%d>;\n", c.typ, c.prefix, n+1)
		}
	}
}

// vec spells a register vector operand: {%r1, %r2}.
func vec(regs []string) string { return "{" + strings.Join(regs, ", ") + "}" }

// mods joins qualifiers into one instruction name, skipping empty ones:
// mods("mma", "sync", "", "aligned") is "mma.sync.aligned".
func mods(parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), ".")
}

// join spells an operand list.
func join(ops []string) string { return strings.Join(ops, ", ") }

// maxFragment caps a fragment's registers: no PTX form has more than 128,
// and an absurd shape (m511n511k511) must not make a ten-thousand-line entry.
const maxFragment = 256

// fragment spells a vector of n zeroed registers of class c, n clamped to
// [1, maxFragment].
func fragment(k *kernel, c regClass, n int) string {
	return vec(zeros(k, c, min(max(n, 1), maxFragment)))
}

// zeros allocates n zeroed registers of class c.
func zeros(k *kernel, c regClass, n int) []string {
	regs := make([]string, n)
	for i := range regs {
		regs[i] = k.zero(c)
	}
	return regs
}
