package sass

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Instr is one SASS instruction as a disassembler printed it, normalized:
// its offset in the function, and its text without the offset, the closing
// semicolon, the encoding comment and runs of blanks; a branch target is an
// offset ("BRA 0x210") whichever way the tool spelled it.
type Instr struct {
	Addr uint64
	Text string
}

// String is the instruction as a diagnostic quotes it: "/*0210*/ EXIT".
func (in Instr) String() string { return fmt.Sprintf("/*%04x*/ %s", in.Addr, in.Text) }

// Opcode is the instruction's mnemonic with its modifiers, after any
// predicate: "LDSM.16.M88.4" in "@P0 LDSM.16.M88.4 R4, [R2]".
func (in Instr) Opcode() string {
	f := strings.Fields(in.Text)
	if len(f) > 1 && strings.HasPrefix(f[0], "@") {
		f = f[1:]
	}
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// Listing is a cubin's SASS, function by function, as one disassembler
// printed it.
type Listing map[string][]Instr

var (
	// instrLine is an instruction line of either tool: "/*0210*/ TEXT ;",
	// where cuobjdump adds the encoding as a comment.
	instrLine = regexp.MustCompile(`^\s*/\*([0-9a-f]+)\*/\s+(.*?)\s*;?\s*(?:/\*\s*0x[0-9a-f]+\s*\*/)?\s*$`)
	// nvdisasm starts a function's code section with
	// "//--------------------- .text.NAME --------------------------".
	nvdisasmSection = regexp.MustCompile(`^//-+ \.text\.(\S+) -+$`)
	// cuobjdump starts one with "Function : NAME".
	cuobjdumpFunction = regexp.MustCompile(`^\s*Function : (\S+)\s*$`)
	// label is a line nvdisasm writes before the instruction it names:
	// ".L_x_0:", "case_0123:", "$case_0123$helper:".
	label = regexp.MustCompile(`^\s*([^\s/][^\s]*):\s*$`)
	// labelRef is a branch target nvdisasm spells by name: "`(.L_x_0)".
	labelRef = regexp.MustCompile("`\\(([^)]+)\\)")
	blanks   = regexp.MustCompile(`\s+`)
)

// ParseNVDisasm reads `nvdisasm -c` output. It resolves the labels nvdisasm
// prints as branch targets to the offsets cuobjdump prints, so that the two
// listings compare line by line.
func ParseNVDisasm(out string) Listing {
	l := Listing{}
	var name string
	var labels map[string]uint64
	var pending []string // labels waiting for the next instruction's offset
	var refs []int       // positions in l[name] whose text names a label
	resolve := func() {
		for _, i := range refs {
			in := &l[name][i]
			in.Text = labelRef.ReplaceAllStringFunc(in.Text, func(ref string) string {
				if addr, ok := labels[labelRef.FindStringSubmatch(ref)[1]]; ok {
					return fmt.Sprintf("%#x", addr)
				}
				return ref
			})
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if m := nvdisasmSection.FindStringSubmatch(line); m != nil {
			resolve()
			name, labels, pending, refs = m[1], map[string]uint64{}, nil, nil
			l[name] = []Instr{}
			continue
		}
		if name == "" {
			continue
		}
		if m := instrLine.FindStringSubmatch(line); m != nil {
			in, err := instr(m)
			if err != nil {
				continue
			}
			for _, p := range pending {
				labels[p] = in.Addr
			}
			pending = nil
			if labelRef.MatchString(in.Text) {
				refs = append(refs, len(l[name]))
			}
			l[name] = append(l[name], in)
			continue
		}
		if m := label.FindStringSubmatch(line); m != nil {
			pending = append(pending, m[1])
		}
	}
	resolve()
	return l
}

// ParseCUObjdump reads `cuobjdump -sass` output.
func ParseCUObjdump(out string) Listing {
	l := Listing{}
	var name string
	for _, line := range strings.Split(out, "\n") {
		if m := cuobjdumpFunction.FindStringSubmatch(line); m != nil {
			name = m[1]
			l[name] = []Instr{}
			continue
		}
		if name == "" {
			continue
		}
		if m := instrLine.FindStringSubmatch(line); m != nil {
			if in, err := instr(m); err == nil {
				l[name] = append(l[name], in)
			}
		}
	}
	return l
}

// instr reads an instruction line's match.
func instr(m []string) (Instr, error) {
	addr, err := strconv.ParseUint(m[1], 16, 64)
	if err != nil {
		return Instr{}, fmt.Errorf("sass: offset %q: %w", m[1], err)
	}
	text := strings.TrimSpace(blanks.ReplaceAllString(m[2], " "))
	return Instr{Addr: addr, Text: strings.TrimSuffix(text, " ;")}, nil
}

// Diff is the first difference between two listings of one function: the
// instruction each side has there, or a note that one side ended.
type Diff struct {
	Function string
	A, B     string
}

// FirstDiff compares the function's instructions in a (nvdisasm) and b
// (cuobjdump); ok is false when they are the same.
func FirstDiff(function string, a, b Listing) (Diff, bool) {
	ia, okA := a[function]
	ib, okB := b[function]
	switch {
	case !okA && !okB:
		return Diff{}, false
	case !okA:
		return Diff{Function: function, A: "(no such function)", B: fmt.Sprintf("%d instructions", len(ib))}, true
	case !okB:
		return Diff{Function: function, A: fmt.Sprintf("%d instructions", len(ia)), B: "(no such function)"}, true
	}
	for i := range max(len(ia), len(ib)) {
		var sa, sb string
		if i < len(ia) {
			sa = ia[i].String()
		} else {
			sa = "(end of function)"
		}
		if i < len(ib) {
			sb = ib[i].String()
		} else {
			sb = "(end of function)"
		}
		if sa != sb {
			return Diff{Function: function, A: sa, B: sb}, true
		}
	}
	return Diff{}, false
}
