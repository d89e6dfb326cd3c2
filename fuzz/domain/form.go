package domain

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// The JSON forms of the domains mark an absent field by a nil pointer, so
// that a hand-written case names only what it cares about. The helpers below
// are the one place that turns such optional fields into value fields, so
// every domain refuses bad input with the same messages.

// ParseForm decodes data strictly into a form F and builds the value with
// build. Every error is prefixed with the domain's name, so a message read in
// a log says which domain refused the input.
func ParseForm[F any, V Value](domainName string, data []byte, build func(F) (V, error)) (Value, error) {
	var f F
	if err := DecodeStrict(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", domainName, err)
	}
	v, err := build(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", domainName, err)
	}
	return v, nil
}

// targetForm is a JSON form that embeds target.JSON, whose FromJSON it
// promotes.
type targetForm interface {
	FromJSON(def target.Arch) (target.Target, error)
}

// ParseTargetForm is ParseForm for a form that embeds target.JSON: it
// resolves the target ("target" and "ptx", def when absent) before build
// sees the rest of the form. The NVIDIA domains all began their build this
// way; here it is written once, and a bad target is reported before any
// other field, as it always was.
func ParseTargetForm[F targetForm, V Value](domainName string, data []byte, def target.Arch, build func(F, target.Target) (V, error)) (Value, error) {
	return ParseForm(domainName, data, func(f F) (V, error) {
		t, err := f.FromJSON(def)
		if err != nil {
			var zero V
			return zero, err
		}
		return build(f, t)
	})
}

// OptEnum parses an optional enum field into dst, keeping dst when absent.
func OptEnum[T ~uint8](e Enum, field string, given *string, dst *T) error {
	if given == nil {
		return nil
	}
	i, err := e.Parse(field, *given)
	if err != nil {
		return err
	}
	*dst = T(i)
	return nil
}

// OptInt parses an optional integer field in [lo, hi] into dst, keeping dst
// when absent; the range is checked before the conversion, so dst never
// holds a truncated value.
func OptInt[T ~int8 | ~uint8 | ~uint16 | ~uint32, N ~int | ~int64](field string, given *N, lo, hi int64, dst *T) error {
	if given == nil {
		return nil
	}
	if err := Range(field, int64(*given), lo, hi); err != nil {
		return err
	}
	*dst = T(*given)
	return nil
}
