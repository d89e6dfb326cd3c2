package waitcntasm

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// jsonForm is the JSON form.
type jsonForm struct {
	Target *string           `json:"target"`
	Op     *string           `json:"op"`
	Syntax *string           `json:"syntax"`
	Counts map[string]uint64 `json:"counts"`
}

// MarshalJSON writes every field; counts holds the counters the text
// writes, by name.
func (v Value) MarshalJSON() ([]byte, error) {
	t, op, syn := v.CPU.String(), v.Op.String(), v.Syntax.String()
	f := jsonForm{Target: &t, Op: &op, Syntax: &syn, Counts: map[string]uint64{}}
	l, _ := v.Layout()
	for i, fl := range l.Fields {
		if !v.Syntax.Helpers() || v.Named&(1<<i) != 0 {
			f.Counts[fl.Name] = uint64(v.Counts[i])
		}
	}
	return json.Marshal(f)
}

// ParseJSON parses the strict JSON form. Defaults: target gfx942, op
// s_waitcnt, syntax named for instructions with counter helpers (else
// dec), counts {} . With a counter-helper syntax (named, amp, comma, sat,
// reversed) counts names the counters the text writes (none: all, at
// their maximum); with an integer syntax (dec, hex, expr) a counter it
// does not name is at its maximum. A counter the instruction does not
// have, a count above 65535, a helper syntax for an instruction without
// helpers and expr for a single-counter instruction are errors.
func ParseJSON(data []byte) (domain.Value, error) {
	return domain.ParseForm(Name, data, jsonForm.value)
}

func (f jsonForm) value() (Value, error) {
	v := Value{CPU: gfx942}
	if err := domain.OptEnum(CPUs, "target", f.Target, &v.CPU); err != nil {
		return Value{}, err
	}
	if err := domain.OptEnum(Ops, "op", f.Op, &v.Op); err != nil {
		return Value{}, err
	}
	l, _ := v.Layout()
	if !l.Named {
		v.Syntax = Dec
	}
	if err := domain.OptEnum(Syntaxes, "syntax", f.Syntax, &v.Syntax); err != nil {
		return Value{}, err
	}
	if v.Syntax.Helpers() && !l.Named {
		return Value{}, fmt.Errorf("field \"syntax\": %s has no counter helpers; use dec, hex or expr", v.Op)
	}
	if v.Syntax == Expr && len(l.Fields) == 1 {
		return Value{}, fmt.Errorf("field \"syntax\": %s has one counter; use dec or hex", v.Op)
	}
	names := slices.Sorted(maps.Keys(f.Counts))
	for _, name := range names {
		i := fieldIndex(l, name)
		if i < 0 {
			return Value{}, fmt.Errorf("field \"counts\": %s has no counter %q", v.Op, name)
		}
		if err := domain.Range("counts."+name, int64(f.Counts[name]), 0, 0xffff); err != nil {
			return Value{}, err
		}
		v.Counts[i] = uint16(f.Counts[name])
		v.Named |= 1 << i
	}
	if !v.Syntax.Helpers() {
		for i, fl := range l.Fields {
			if v.Named&(1<<i) == 0 {
				v.Counts[i] = uint16(fl.Max())
			}
		}
	}
	return v.normalize(), nil
}
