package llvm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// operand is a typed IR value: a parameter, a constant or a result.
type operand struct{ typ, val string }

func (o operand) String() string { return o.typ + " " + o.val }

// imm is an integer constant operand, e.g. imm("i32", 2) for an immarg.
func imm(typ string, v int64) operand { return operand{typ, fmt.Sprint(v)} }

// kernel is one case rendered as the body of one ptx_kernel function. Its
// value names carry the case's prefix ("%c12.d"), so a verifier message that
// quotes an instruction names the case it came from.
type kernel struct {
	prefix string
	params []operand
	body   []string
	decls  map[string]string // intrinsic name → its declaration
	uses   []string          // intrinsic names, in call order
	n      int               // results so far
}

func newKernel(prefix string) *kernel { return &kernel{prefix: prefix, decls: map[string]string{}} }

// param adds a kernel parameter; parameters keep llc from folding operands.
func (k *kernel) param(typ, name string) operand {
	o := operand{typ, "%" + k.prefix + name}
	k.params = append(k.params, o)
	return o
}

// call calls an intrinsic, declaring it from the operand types, and returns
// its result (the zero operand for void).
func (k *kernel) call(ret, name string, args ...operand) operand {
	types := make([]string, len(args))
	strs := make([]string, len(args))
	for i, a := range args {
		types[i], strs[i] = a.typ, a.String()
	}
	k.decls[name] = fmt.Sprintf("declare %s @%s(%s)", ret, name, strings.Join(types, ", "))
	k.uses = append(k.uses, name)
	c := fmt.Sprintf("call %s @%s(%s)", ret, name, strings.Join(strs, ", "))
	if ret == "void" {
		k.body = append(k.body, c)
		return operand{}
	}
	k.n++
	r := operand{ret, fmt.Sprintf("%%%sr%d", k.prefix, k.n)}
	k.body = append(k.body, r.val+" = "+c)
	return r
}

// roles are the kernel's parameters by name without its prefix, with
// their places.
func (k *kernel) roles() map[string]int {
	out := make(map[string]int, len(k.params))
	for i, p := range k.params {
		out[strings.TrimPrefix(p.val, "%"+k.prefix)] = i
	}
	return out
}

// sink stores a result through a pointer parameter, so llc cannot delete an
// intrinsic without side effects before it ever selects it.
func (k *kernel) sink(r operand) {
	out := k.param("ptr", fmt.Sprintf("out%d", len(k.params)))
	k.body = append(k.body, fmt.Sprintf("store %s, %s", r, out))
}

// module is one llc input: the kernels of a chunk of cases, all for one target.
type module struct {
	text []byte
	// ids are the kernels' case indexes; kernel i is function @k_<ids[i]>.
	ids []int
	// lines[i] is the first and last line of kernel i's function.
	lines [][2]int
	// uses[i] lists the intrinsics kernel i calls.
	uses [][]string
	// cases[i] is kernel i's case.
	cases []domain.Case
	// roles[i] are kernel i's parameters by name without the case prefix
	// ("dst", "x0"): their place among the PTX entry's parameters, which
	// the value checks compare the emitted operands with.
	roles []map[string]int
}

// errConflict reports two renderings declaring one intrinsic differently: a
// renderer bug, caught here instead of as an llc parse error.
var errConflict = errors.New("conflicting intrinsic declarations")

// buildModule lays out kernels as functions k_<id>, one per case, followed
// by the intrinsic declarations they share.
func buildModule(t target.Target, ids []int, ks []*kernel) (*module, error) {
	m := &module{ids: ids}
	var b strings.Builder
	line := 0
	emit := func(s string) { b.WriteString(s); b.WriteByte('\n'); line++ }
	emit(fmt.Sprintf("; legalfuzz: %d case(s) for %s", len(ks), t))
	emit(`target triple = "nvptx64-nvidia-cuda"`)
	decls := map[string]string{}
	var order []string
	for i, k := range ks {
		params := make([]string, len(k.params))
		for j, p := range k.params {
			params[j] = p.String()
		}
		emit("")
		first := line + 1
		emit(fmt.Sprintf("define ptx_kernel void @k_%d(%s) {", ids[i], strings.Join(params, ", ")))
		for _, s := range k.body {
			emit("  " + s)
		}
		emit("  ret void")
		emit("}")
		m.lines = append(m.lines, [2]int{first, line})
		m.roles = append(m.roles, k.roles())
		m.uses = append(m.uses, k.uses)
		for _, name := range k.uses {
			if d, ok := decls[name]; ok && d != k.decls[name] {
				return nil, fmt.Errorf("%w: %q and %q", errConflict, d, k.decls[name])
			} else if !ok {
				decls[name] = k.decls[name]
				order = append(order, name)
			}
		}
	}
	emit("")
	for _, name := range order {
		emit(decls[name])
	}
	m.text = []byte(b.String())
	return m, nil
}

// kernelAtLine returns the position of the kernel whose function holds line.
func (m *module) kernelAtLine(line int) (int, bool) {
	for i, r := range m.lines {
		if line >= r[0] && line <= r[1] {
			return i, true
		}
	}
	return 0, false
}

// kernelByID returns the position of kernel k_<id>.
func (m *module) kernelByID(id int) (int, bool) {
	for i, x := range m.ids {
		if x == id {
			return i, true
		}
	}
	return 0, false
}

// kernelsUsing lists the positions of the kernels that call intrinsic name.
func (m *module) kernelsUsing(name string) []int {
	var ks []int
	for i, us := range m.uses {
		for _, u := range us {
			if u == name {
				ks = append(ks, i)
				break
			}
		}
	}
	return ks
}

// llcArgs are the flags for one target; the module comes on stdin.
func llcArgs(t target.Target) []string {
	return []string{"-march=nvptx64", "-mcpu=" + t.Arch.String(), "-mattr=+" + ptxFeature(t.PTX), "-o", "-"}
}
