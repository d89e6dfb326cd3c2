package nvvmop

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/opsurface"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/internal/clip"
)

// Decode maps fuzz bytes to a case. Bytes that are a case's canonical form
// (Encode) decode to that case, whatever installation defines its op; any
// other bytes choose an op of the embedded snapshot of trunk's surface
// (Snapshot) and, byte by byte, how many values each operand group has,
// each operand's, result's and attribute's spelling among those its
// installation writes (an immediate's constant among its values), which
// optional attributes are given, and the target: the op's first allowed one, or any known one (a case the
// verifier must refuse). Exhausted bytes read as zero, so the empty input
// is the first op's first case. It never fails.
func Decode(data []byte) (domain.Value, error) {
	if v, err := decodeCanonical(data); err == nil {
		return v, nil
	}
	return generate(Ops(), &reader{data: data}), nil
}

// reader reads fuzz bytes, zero past their end.
type reader struct {
	data []byte
	at   int
}

func (b *reader) next() int {
	if b.at >= len(b.data) {
		return 0
	}
	b.at++
	return int(b.data[b.at-1])
}

// pick chooses one of n (n > 0).
func (b *reader) pick(n int) int { return b.next() % n }

// counts are the number of values of a variadic operand group, by byte:
// one first, as an op's first case has.
var counts = []int{1, 0, 2}

// generate writes a case of one of ops as the bytes choose.
func generate(ops []opsurface.Op, b *reader) Value {
	op := ops[(b.next()<<8|b.next())%len(ops)]
	v := Value{Op: op.Name}
	for _, o := range op.Operands {
		n := 1
		switch {
		case o.Variadic:
			n = counts[b.pick(len(counts))]
		case o.Optional:
			n = counts[b.pick(2)]
		}
		for range n {
			typ, value := b.pick(len(o.Types)), 0
			if imm := Immediates(op.Name, o.Name); len(imm) > 1 {
				value = b.pick(len(imm)) // a byte only where there is a choice: other ops decode as before
			}
			v.Operands = append(v.Operands, spell(op.Name, o, typ, value))
		}
		if op.SegmentSizes {
			v.Segments = append(v.Segments, n)
		}
	}
	for _, r := range op.Results {
		v.Results = append(v.Results, r.Types[b.pick(len(r.Types))])
	}
	for _, a := range op.Attrs {
		if a.Optional && b.next()&1 == 0 {
			continue
		}
		choice := make([]int, max(1, len(a.Params)))
		for i := range choice {
			if a.Kind == opsurface.StructAttr {
				choice[i] = b.pick(len(a.Params[i].Values))
			} else {
				choice[i] = b.pick(len(a.Values))
			}
		}
		v.Attrs = append(v.Attrs, Attr{Name: a.Name, Value: a.Spell(choice)})
	}
	slices.SortFunc(v.Attrs, func(a, b Attr) int { return strings.Compare(a.Name, b.Name) })
	known := target.Known()
	if t := b.next(); t%4 != 0 {
		v.Arch = known[(t/4)%len(known)]
	} else if first, err := firstTarget(op.Targets); err == nil {
		v.Arch = first
	} else {
		v.Arch = known[0]
	}
	return v
}

// errCanonical says bytes are not a case's canonical form.
var errCanonical = errors.New("not a canonical nvvmop case")

// maxCount bounds every length and count of the canonical form.
const maxCount = 1 << 12

// decodeCanonical reads the canonical form: exactly the bytes Encode
// writes, of a value Check accepts.
func decodeCanonical(data []byte) (Value, error) {
	if len(data) == 0 || data[0] != codecVersion {
		return Value{}, errCanonical
	}
	rest, bad := data[1:], false
	num := func() int {
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > maxCount {
			bad = true
			return 0
		}
		rest = rest[k:]
		return int(n)
	}
	str := func() string {
		n := num()
		if bad || n > len(rest) {
			bad = true
			return ""
		}
		s := string(rest[:n])
		rest = rest[n:]
		return s
	}
	strs := func() []string {
		var out []string
		for n := num(); n > 0 && !bad; n-- {
			out = append(out, str())
		}
		return out
	}
	v := Value{Op: str(), Operands: strs()}
	for n := num(); n > 0 && !bad; n-- {
		v.Segments = append(v.Segments, num())
	}
	v.Results = strs()
	for n := num(); n > 0 && !bad; n-- {
		v.Attrs = append(v.Attrs, Attr{Name: str(), Value: str()})
	}
	if bad || len(rest) != 2 {
		return Value{}, errCanonical
	}
	v.Arch = target.Decode(rest[0], rest[1])
	if err := v.Check(); err != nil {
		return Value{}, fmt.Errorf("%w: %w", errCanonical, err)
	}
	return v, nil
}

// Check is what every case keeps, parsed from JSON or decoded: an NVVM op
// name, types and attribute values that are one line of text, segments
// (for an op with AttrSizedOperandSegments) that add up to the operands,
// attributes sorted by name, each once, and a known target and PTX ISA
// version. Whether the op and its spellings exist is the installation's to
// say.
func (v Value) Check() error {
	if !strings.HasPrefix(v.Op, "nvvm.") || strings.ContainsAny(v.Op, "\" \n") || !utf8.ValidString(v.Op) {
		return fmt.Errorf("field \"op\": %q is not an NVVM op name", clip.To(v.Op, 64))
	}
	for field, list := range map[string][]string{"operands": v.Operands, "results": v.Results} {
		for i, t := range list {
			if strings.TrimSpace(t) == "" || strings.ContainsAny(t, "\n") || !utf8.ValidString(t) {
				return fmt.Errorf("field %q: entry %d: %q is not a type", field, i, clip.To(t, 64))
			}
		}
	}
	if v.Segments != nil {
		sum := 0
		for _, n := range v.Segments {
			if n < 0 {
				return fmt.Errorf("field \"segments\": %v has a negative size", v.Segments)
			}
			sum += n
		}
		if sum != len(v.Operands) {
			return fmt.Errorf("field \"segments\": %v add up to %d, not the %d operands", v.Segments, sum, len(v.Operands))
		}
	}
	for i, a := range v.Attrs {
		if a.Name == "" || strings.ContainsAny(a.Name, " =\n") || strings.TrimSpace(a.Value) == "" || strings.Contains(a.Value, "\n") ||
			!utf8.ValidString(a.Name) || !utf8.ValidString(a.Value) {
			return fmt.Errorf("field \"attrs\": %q = %q is not an attribute", clip.To(a.Name, 64), clip.To(a.Value, 64))
		}
		if i > 0 && v.Attrs[i-1].Name >= a.Name {
			return fmt.Errorf("field \"attrs\": %q given twice or out of order", clip.To(a.Name, 64))
		}
	}
	if !v.Arch.Valid() {
		return fmt.Errorf("field \"target\": %s is not a known target and PTX ISA version", v.Arch)
	}
	return nil
}
