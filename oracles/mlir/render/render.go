package render

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// spelledAs is one of the element types MLIR takes for one PTX (or driver)
// type: signless, signed or unsigned integers, and the float types that
// travel as its bits. MLIR's verifiers and lowerings branch on the element
// type, so each spelling is a path of its own. The choice hashes the
// value's canonical bytes: a case is spelled the same way every time (its
// reproducer too), and a campaign's cases take every spelling.
func spelledAs(v domain.Value, types []string) string {
	if len(types) < 2 {
		return strings.Join(types, "")
	}
	h := fnv.New64a()
	h.Write(v.Encode())
	// FNV's low bits depend only on the bytes' low bits; its high bits on all.
	return types[(h.Sum64()>>32)%uint64(len(types))]
}

// Renderer turns one domain value into a kernel; an error made by
// unsupported means the value has no spelling in the renderer's release.
type Renderer func(v domain.Value) (Kernel, error)

// typed makes a renderer of a function of one domain's values, V; a value
// of another type is a harness bug (a case filed under the wrong domain).
func typed[V domain.Value](r func(v V) (Kernel, error)) Renderer {
	return func(dv domain.Value) (Kernel, error) {
		v, err := domain.As[V](dv)
		if err != nil {
			return Kernel{}, fmt.Errorf("renderer: %w", err)
		}
		return r(v)
	}
}

// renderers lists the domains the oracle judges, with MLIR 19's rendering
// of each; a release whose ops differ replaces some (release.renderers).
var renderers = map[string]Renderer{}

// Kernel is what a renderer produces for one case: a gpu.func with its
// parameters and body, module-level globals, and host code outside the
// gpu.module (TMA descriptors are created on the host).
type Kernel struct {
	Host    string
	Globals string
	Params  string
	Body    string
	// Value says the kernel stores a computed i64 through its first
	// parameter (a !llvm.ptr<1>); the lowering reads it into the verdict.
	Value bool
	// MinPTX is the PTX ISA version the kernel's own ops need where the
	// value does not name the instruction they lower to (a tensor map is
	// the driver's; the TMA load that uses it is ours): the kernel is
	// rendered at the case's version or this one, whichever is newer, so
	// no case fails on a version it never asked for. Zero: the case's.
	MinPTX target.PTX
	// Target is what the kernel is rendered for, llc'd and assembled on.
	Target target.Target
}

// unsupported is the NoSpelling of one of the renderers' declared reasons
// (Reasons): the value or its target has no spelling in the release.
func unsupported(field, class, format string, args ...any) error {
	return Reasons.New(field, class, format, args...)
}

// targetRange is the NVPTX targets a release is judged on: those its llc
// knows, up to the newest PTX ISA version it emits. A target outside it is
// unsupported, never rejected.
type targetRange struct {
	llvm   string // the LLVM release, as messages name it: "LLVM 19"
	llc    string // its llc: "llc-19"
	maxPTX target.PTX
	// newest names the newest target the release knows, or "" when it
	// knows every legalfuzz target.
	newest string
}

var (
	// llvm19Targets stops at sm_90a and PTX ISA 8.5: tcgen05-era targets
	// are unsupported.
	llvm19Targets = targetRange{llvm: "LLVM 19", llc: "llc-19", maxPTX: 85, newest: "sm_90a"}
	// llvm22Targets is every legalfuzz target up to PTX ISA 9.0 (llc-22
	// -mcpu=help lists them all), so MLIR 22 is asked about every op on
	// the tcgen05-era targets, below or beside its floor too.
	llvm22Targets = targetRange{llvm: "LLVM 22", llc: "llc-22", maxPTX: 90}
)

// check refuses the targets the release cannot be asked about: one its llc
// does not know, a PTX ISA version beyond what it emits, one below the
// target's first version (llc-19 silently raises .version, llc-22 refuses
// it), and one a later PTX ISA renamed away (sm_101 under PTX 9.0).
func (r targetRange) check(t target.Target) error {
	if !t.Valid() || !r.knows(t.Arch) {
		return unsupported("target", "arch-unknown", "%s knows NVPTX targets up to %s, not %s", r.llvm, r.newestName(), t.Arch)
	}
	if t.PTX > r.maxPTX {
		return unsupported("ptx", "beyond-release", "%s emits PTX ISA up to %s, not %s", r.llvm, r.maxPTX, t.PTX)
	}
	if min := target.MinPTX(t.Arch); t.PTX < min {
		return unsupported("ptx", "below-arch-first", "PTX ISA %s is below %s's first, %s (llc-19 raises .version, llc-22 refuses): %s has no spelling of it", t.PTX, t.Arch, min, r.llc)
	}
	if !t.Names() {
		return unsupported("ptx", "renamed-arch", "PTX ISA %s no longer names %s", t.PTX, t.Arch)
	}
	return nil
}

// knows reports whether the release's llc knows the architecture.
func (r targetRange) knows(a target.Arch) bool {
	return r.newest == "" || (a.SM <= 90 && !a.FamilySpecific())
}

func (r targetRange) newestName() string {
	if r.newest == "" {
		return target.ArchNames()[len(target.ArchNames())-1]
	}
	return r.newest
}

// targets lists the targets the release knows among legalfuzz's.
func (r targetRange) targets() []string {
	var names []string
	for _, t := range target.Known() {
		if r.knows(t.Arch) {
			names = append(names, t.Arch.String())
		}
	}
	return names
}

// KernelName is the case's gpu.func; it is unique in a batch because cases
// are deduplicated by ID, and diag.Normalize turns it into ENTRY.
func KernelName(c domain.Case) string { return "k_" + c.ID }

// rendererFor is a release's renderer of a domain: its own (sp.renderers),
// else MLIR 19's unless the spelling's renderers are all it has.
func (sp Spelling) rendererFor(domainName string) (Renderer, bool) {
	if r, ok := sp.renderers[domainName]; ok || sp.alone {
		return r, ok
	}
	r, ok := renderers[domainName]
	return r, ok
}

// Render spells one case as a self-contained MLIR module: host code,
// then a gpu.module carrying the case's own target, one of the release's
// targets, with the release's renderer of the domain (rendererFor). An
// error made by unsupported (an *oracles.NoSpelling of Reasons) means
// the release cannot be asked about the case.
func (sp Spelling) Render(c domain.Case) (string, Kernel, error) {
	targets := sp.targetRange()
	r, ok := sp.rendererFor(c.Domain)
	if !ok {
		return "", Kernel{}, unsupported("domain", "no-renderer", "mlir has no renderer for domain %s", c.Domain)
	}
	t := c.Value.Target()
	if err := targets.check(t); err != nil {
		return "", Kernel{}, err
	}
	k, err := r(c.Value)
	if err != nil {
		return "", Kernel{}, err
	}
	t.PTX = max(t.PTX, k.MinPTX)
	if t.PTX > targets.maxPTX {
		return "", Kernel{}, unsupported("ptx", "ops-need-newer", "the kernel's ops need PTX ISA %s, beyond %s's %s", t.PTX, targets.llvm, targets.maxPTX)
	}
	k.Target = t
	var b strings.Builder
	b.WriteString("module attributes {gpu.container_module} {\n")
	b.WriteString(k.Host)
	fmt.Fprintf(&b, "  gpu.module @m_%s [#nvvm.target<chip = %q, features = \"+ptx%d\">] {\n",
		c.ID, t.Arch.String(), int(t.PTX))
	b.WriteString(k.Globals)
	fmt.Fprintf(&b, "    gpu.func @%s(%s) kernel {\n", KernelName(c), k.Params)
	b.WriteString(k.Body)
	b.WriteString("      gpu.return\n    }\n  }\n}\n")
	return b.String(), k, nil
}

// scaffolding are the ops renderers write around the op a case is about:
// the mbarrier a TMA load waits on (tmadesc.go), the accumulator a
// warpgroup mma starts from (wgmma.go), cp.async's group and wait
// (cpasync.go).
var scaffolding = []string{"nvgpu.mbarrier.create", "nvgpu.warpgroup.mma.init.accumulator",
	"nvgpu.device_async_create_group", "nvgpu.device_async_wait"}

// opLine matches an nvgpu or nvvm op at the start of a line of a module,
// in custom or generic form, with or without results.
var opLine = regexp.MustCompile(`(?m)^\s*(?:%[\w#:, ]+= )?"?((?:nvgpu|nvvm)\.[\w.]+)`)

// SubjectOp is the op a rendered module is about, as its dialect names
// it: its first nvgpu or nvvm op that is not scaffolding; "" when it has
// none. An upstream issue names the op and tags its dialect by it.
func SubjectOp(module string) string {
	for _, m := range opLine.FindAllStringSubmatch(module, -1) {
		if !slices.Contains(scaffolding, m[1]) {
			return m[1]
		}
	}
	return ""
}

// body builds a block of ops with fresh SSA names.
type body struct {
	b      strings.Builder
	indent string
	n      int
}

func newBody(indent string) *body { return &body{indent: indent} }

// op appends one op that defines no value.
func (b *body) op(format string, args ...any) {
	b.b.WriteString(b.indent)
	fmt.Fprintf(&b.b, format, args...)
	b.b.WriteByte('\n')
}

// val appends one op defining a fresh value and returns the value's name.
func (b *body) val(format string, args ...any) string {
	b.n++
	name := fmt.Sprintf("%%v%d", b.n)
	b.b.WriteString(b.indent + name + " = ")
	fmt.Fprintf(&b.b, format, args...)
	b.b.WriteByte('\n')
	return name
}

func (b *body) String() string { return b.b.String() }

// index materializes an index constant.
func (b *body) index(n int64) string { return b.val("arith.constant %d : index", n) }

// i64 materializes an LLVM i64 constant (addresses wrap to two's complement).
func (b *body) i64(n uint64) string { return b.val("llvm.mlir.constant(%d : i64) : i64", int64(n)) }

// i16 materializes an LLVM i16 constant (the im2col::w operands).
func (b *body) i16(n uint16) string { return b.val("llvm.mlir.constant(%d : i16) : i16", int16(n)) }

// memrefType spells a memref of shape, element and memory space (0 is the
// generic space and is left out).
func memrefType(shape []int64, elem string, space int) string {
	var b strings.Builder
	b.WriteString("memref<")
	for _, d := range shape {
		fmt.Fprintf(&b, "%dx", d)
	}
	b.WriteString(elem)
	if space != 0 {
		fmt.Fprintf(&b, ", %d", space)
	}
	b.WriteString(">")
	return b.String()
}

// ptrType is the LLVM pointer type of a memory space.
func ptrType(space int) string {
	if space == 0 {
		return "!llvm.ptr"
	}
	return fmt.Sprintf("!llvm.ptr<%d>", space)
}

// memrefAt builds a contiguous memref whose data starts at the fixed
// address addr, so addresses a value names reach the emitted code
// literally. It returns the memref value and its type.
func (b *body) memrefAt(addr uint64, shape []int64, elem string, space int) (string, string) {
	strides := make([]int64, len(shape))
	stride := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		strides[i] = stride
		stride *= shape[i]
	}
	return b.memrefDesc(addr, shape, strides, space, memrefType(shape, elem, space))
}

// stridedAt is memrefAt with explicit strides (in elements), spelled in the
// type's strided layout.
func (b *body) stridedAt(addr uint64, shape, strides []int64, elem string, space int) (string, string) {
	parts := make([]string, len(strides))
	for i, s := range strides {
		parts[i] = fmt.Sprint(s)
	}
	t := memrefType(shape, elem+", strided<["+strings.Join(parts, ", ")+"]>", space)
	return b.memrefDesc(addr, shape, strides, space, t)
}

// memrefDesc builds the LLVM memref descriptor (pointers, offset 0, sizes,
// strides) and casts it to typ.
func (b *body) memrefDesc(addr uint64, shape, strides []int64, space int, typ string) (string, string) {
	ptr := strings.TrimPrefix(ptrType(space), "!llvm.")
	st := fmt.Sprintf("!llvm.struct<(%s, %s, i64", ptr, ptr)
	if len(shape) > 0 {
		st += fmt.Sprintf(", array<%d x i64>, array<%d x i64>", len(shape), len(shape))
	}
	st += ")>"
	p := b.val("llvm.inttoptr %s : i64 to %s", b.i64(addr), ptrType(space))
	d := b.val("llvm.mlir.undef : %s", st)
	d = b.val("llvm.insertvalue %s, %s[0] : %s", p, d, st)
	d = b.val("llvm.insertvalue %s, %s[1] : %s", p, d, st)
	d = b.val("llvm.insertvalue %s, %s[2] : %s", b.i64(0), d, st)
	for i := range shape {
		d = b.val("llvm.insertvalue %s, %s[3, %d] : %s", b.i64(uint64(shape[i])), d, i, st)
		d = b.val("llvm.insertvalue %s, %s[4, %d] : %s", b.i64(uint64(strides[i])), d, i, st)
	}
	return b.val("builtin.unrealized_conversion_cast %s : %s to %s", d, st, typ), typ
}

// castPtr turns a fixed address into a value of an opaque type (a TMA
// descriptor, a barrier) through an unrealized cast, as host-provided
// pointers reach kernels.
func (b *body) castPtr(addr uint64, space int, typ string) string {
	p := b.val("llvm.inttoptr %s : i64 to %s", b.i64(addr), ptrType(space))
	return b.val("builtin.unrealized_conversion_cast %s : %s to %s", p, ptrType(space), typ)
}

// genericOp is one op in MLIR's generic form, "name"(operands)
// <{properties}> : (types) -> result, which MLIR 19, 22, 23 and trunk parse
// alike. The custom forms are not stable: MLIR after 23 spells many ops'
// inherent attributes as keywords and refuses them in the attribute
// dictionary the releases before read ("inherent attribute 'mode' cannot
// be parsed from attr-dict when strict properties in assembly format is
// enabled"), so one custom spelling is a parse error, not a verdict, in
// the other releases. The verifiers see the same op either way. Enum
// attributes are written as full attributes (#nvvm.tma_load_mode<tile>),
// as --mlir-print-op-generic prints them.
type genericOp struct {
	name           string
	operands       []string
	types          []string
	props          []string
	result         string // the result type; "" for none
	sized          bool   // the op has AttrSizedOperandSegments
	segmentLengths []int
}

// generic starts an op of that name; sized says its operands come in
// segments whose lengths the op's operandSegmentSizes property records.
func generic(name string, sized bool) *genericOp { return &genericOp{name: name, sized: sized} }

// args appends one operand segment: the operands (none for an absent
// optional one), all of type typ.
func (g *genericOp) args(typ string, operands ...string) *genericOp {
	for _, o := range operands {
		g.operands, g.types = append(g.operands, o), append(g.types, typ)
	}
	g.segmentLengths = append(g.segmentLengths, len(operands))
	return g
}

// absent appends an empty operand segment: an optional operand the op is
// not given.
func (g *genericOp) absent() *genericOp { return g.args("") }

// prop appends properties, each "name = attribute" or a unit attribute's
// name.
func (g *genericOp) prop(props ...string) *genericOp {
	g.props = append(g.props, props...)
	return g
}

// returns sets the op's result type.
func (g *genericOp) returns(typ string) *genericOp {
	g.result = typ
	return g
}

func (g *genericOp) String() string {
	props := slices.Clone(g.props)
	if g.sized {
		lens := make([]string, len(g.segmentLengths))
		for i, n := range g.segmentLengths {
			lens[i] = strconv.Itoa(n)
		}
		props = append(props, "operandSegmentSizes = array<i32: "+strings.Join(lens, ", ")+">")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%q(%s)", g.name, strings.Join(g.operands, ", "))
	if len(props) > 0 {
		b.WriteString(" <{" + strings.Join(props, ", ") + "}>")
	}
	result := cmp.Or(g.result, "()")
	fmt.Fprintf(&b, " : (%s) -> %s", strings.Join(g.types, ", "), result)
	return b.String()
}
