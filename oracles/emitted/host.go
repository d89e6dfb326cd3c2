package emitted

import (
	"regexp"
	"strconv"
	"strings"
)

// The host side of a lowering is LLVM dialect, not PTX: nvgpu's tensor-map
// creation lowers to a call of a runtime function whose arguments are
// constants and arrays the host code fills with llvm.store. HostCall reads
// them in the LLVM dialect mlir-opt prints (the host part of the lowered
// module; it is never translated or compiled, so no later form exists).

// Call is a call in the LLVM dialect with what its arguments hold.
type Call struct {
	Callee string
	// Args are the arguments' values: constants where the function knows
	// them, unknown otherwise.
	Args []Value
	// Stored are, per argument, the values stored through it when it
	// points to memory the function allocated (llvm.alloca), by element
	// (llvm.getelementptr index); nil for other arguments. An element
	// never stored is unknown.
	Stored [][]Value
	// Line is the call as printed.
	Line string
}

var (
	hostConst = regexp.MustCompile(`^(%[\w.#]+) = (?:llvm\.mlir\.constant\((-?\d+) : \w+\)|arith\.constant (-?\d+) : \w+)`)
	hostAlloc = regexp.MustCompile(`^(%[\w.#]+) = llvm\.alloca `)
	hostGEP   = regexp.MustCompile(`^(%[\w.#]+) = llvm\.getelementptr (?:inbounds )?(%[\w.#]+)\[(-?\d+)\]`)
	hostStore = regexp.MustCompile(`^llvm\.store (%[\w.#]+), (%[\w.#]+) :`)
	hostCall  = regexp.MustCompile(`^(?:%[\w.#]+ = )?llvm\.call @(\w+)\(([^)]*)\)`)
)

// slot is an element of allocated memory: the alloca and an index.
type slot struct {
	obj string
	idx int64
}

// HostCall evaluates LLVM dialect text up to its first call of callee.
func HostCall(text, callee string) (Call, bool) {
	consts := map[string]int64{}
	ptrs := map[string]slot{}
	mem := map[slot]Value{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch m := matchHost(line); {
		case m == nil:
		case m[0] == "const":
			c, _ := strconv.ParseInt(m[2], 10, 64)
			consts[m[1]] = c
		case m[0] == "alloca":
			ptrs[m[1]] = slot{obj: m[1]}
		case m[0] == "gep":
			if p, ok := ptrs[m[2]]; ok {
				i, _ := strconv.ParseInt(m[3], 10, 64)
				ptrs[m[1]] = slot{obj: p.obj, idx: p.idx + i}
			}
		case m[0] == "store":
			if p, ok := ptrs[m[2]]; ok {
				mem[p] = hostValue(consts, m[1])
			}
		case m[0] == "call" && m[1] == callee:
			return evalCall(consts, ptrs, mem, m[1], m[2], line), true
		}
	}
	return Call{}, false
}

// matchHost classifies a line: its kind and submatches, or nil.
func matchHost(line string) []string {
	for _, k := range []struct {
		kind string
		re   *regexp.Regexp
	}{{"const", hostConst}, {"alloca", hostAlloc}, {"gep", hostGEP}, {"store", hostStore}, {"call", hostCall}} {
		if m := k.re.FindStringSubmatch(line); m != nil {
			if k.kind == "const" && m[2] == "" {
				m[2] = m[3]
			}
			return append([]string{k.kind}, m[1:]...)
		}
	}
	return nil
}

// evalCall is the call with its arguments' values and stored arrays.
func evalCall(consts map[string]int64, ptrs map[string]slot, mem map[slot]Value, callee, args, line string) Call {
	c := Call{Callee: callee, Line: line}
	for _, a := range strings.Split(args, ",") {
		a = strings.TrimSpace(a)
		c.Args = append(c.Args, hostValue(consts, a))
		p, ok := ptrs[a]
		if !ok {
			c.Stored = append(c.Stored, nil)
			continue
		}
		var vs []Value
		for i := p.idx; ; i++ {
			v, ok := mem[slot{obj: p.obj, idx: i}]
			if !ok {
				break
			}
			vs = append(vs, v)
		}
		c.Stored = append(c.Stored, vs)
	}
	return c
}

// hostValue is an SSA value's constant, or unknown.
func hostValue(consts map[string]int64, name string) Value {
	if c, ok := consts[name]; ok {
		return Const(c)
	}
	return Value{}
}

// String spells the call with its arguments' values, a stored array as
// its elements: "mgpuTensorMapEncodeTiledMemref(?, ?, 6, 0, 3, 0, 0, [64, 32])".
func (c Call) String() string {
	parts := make([]string, len(c.Args))
	for i, v := range c.Args {
		parts[i] = v.String()
		if i < len(c.Stored) && c.Stored[i] != nil {
			s := make([]string, len(c.Stored[i]))
			for j, e := range c.Stored[i] {
				s[j] = e.String()
			}
			parts[i] = "[" + strings.Join(s, ", ") + "]"
		}
	}
	return c.Callee + "(" + strings.Join(parts, ", ") + ")"
}
