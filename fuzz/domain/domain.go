// Package domain defines what every input family (a domain) provides: a value
// type with a canonical byte form and a strict JSON form, a decoder from
// arbitrary fuzz bytes, and seed values. Cases are domain values with a stable
// content-hash ID.
package domain

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/internal/clip"
)

// Value is one input of a domain.
type Value interface {
	// Encode returns the canonical bytes: Decode(Encode(v)) == v, and equal
	// values have equal bytes, so the bytes identify the value.
	Encode() []byte
	// Target is the architecture and PTX ISA version the value is judged for.
	Target() target.Target
}

// AMDValue is a value judged for an AMD processor: its Target is an NVIDIA
// placeholder the harness records, and Processor names the real one
// ("gfx942"), for whatever shows a case's target to people.
type AMDValue interface {
	Value
	Processor() string
}

// TargetName is the target a case is judged for, as people read it.
func TargetName(v Value) string {
	if a, ok := v.(AMDValue); ok {
		return a.Processor()
	}
	return v.Target().String()
}

// Domain describes one input family. Its functions never panic on input.
type Domain struct {
	// Name is the domain's identifier, e.g. "kindword".
	Name string
	// Doc is one sentence saying what the values are.
	Doc string
	// FuzzTarget names the native fuzz target in package fuzz, e.g.
	// "FuzzKindWord"; its seed corpus is testdata/fuzz/<FuzzTarget>/.
	FuzzTarget string
	// Decode maps arbitrary fuzz bytes to a value of the right shape (legal or
	// not); it never panics and returns a clear error when no value fits.
	Decode func(data []byte) (Value, error)
	// ParseJSON parses the strict JSON form: unknown fields and out-of-range
	// values are errors naming the field; absent fields take documented defaults.
	ParseJSON func(data []byte) (Value, error)
	// Seeds are hand-picked values: the seeds' worked examples and every
	// rule's boundary values.
	Seeds func() []Value
}

// Case is a domain value with its identity.
type Case struct {
	Domain string
	Value  Value
	ID     string
}

// NewCase wraps v; the ID is a hash of (domain, canonical bytes), so the same
// input has the same ID everywhere.
func NewCase(domainName string, v Value) Case {
	return Case{Domain: domainName, Value: v, ID: ID(domainName, v.Encode())}
}

// ID hashes a domain name and canonical bytes into a 16-hex-digit case ID.
func ID(domainName string, canonical []byte) string {
	h := sha256.New()
	h.Write([]byte(domainName))
	h.Write([]byte{0})
	h.Write(canonical)
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// DecodeStrict parses data into dst, refusing unknown fields, trailing data
// and type mismatches, with errors that name the offending field.
func DecodeStrict(data []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("field %q: want %s, got JSON %s", te.Field, te.Type, te.Value)
		}
		return fmt.Errorf("bad JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("bad JSON: trailing data after the value")
	}
	return nil
}

// Enum maps the names of a closed enumeration to their indices.
type Enum []string

// As returns v as a value of its domain's concrete type V. A value of
// another type is a harness bug (a case filed under the wrong domain): an
// error, never a panic. Renderers and rule sets register functions of V and
// convert through it.
func As[V any](v any) (V, error) {
	tv, ok := v.(V)
	if !ok {
		return tv, fmt.Errorf("a value of type %T where a %T is due", v, tv)
	}
	return tv, nil
}

// Parse returns the index of name, or an error naming field and the choices.
func (e Enum) Parse(field, name string) (int, error) {
	for i, n := range e {
		if n == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("field %q: unknown value %q (want one of %q)", field, clip.To(name, 256), []string(e))
}

// Name returns the name of index i, or "?N" for an index out of range.
func (e Enum) Name(i int) string {
	if i >= 0 && i < len(e) {
		return e[i]
	}
	return fmt.Sprintf("?%d", i)
}

// Range returns an error naming field when v is outside [lo, hi].
func Range(field string, v, lo, hi int64) error {
	if v < lo || v > hi {
		return fmt.Errorf("field %q: %d out of range [%d, %d]", field, v, lo, hi)
	}
	return nil
}

// RoundTrip returns v's canonical bytes after checking that they decode to
// v: only such a value is a real case. It is the one round-trip check:
// the fuzz invariants, mutation, minimization and the domains' tests ask it.
func RoundTrip(d Domain, v Value) ([]byte, error) {
	b := v.Encode()
	back, err := d.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: decode(encode(v)): %w", d.Name, err)
	}
	if !reflect.DeepEqual(back, v) {
		return nil, fmt.Errorf("%s: decode(encode(v)) = %+v, want %+v", d.Name, back, v)
	}
	return b, nil
}

// JSONRoundTrip checks that v parses from its own JSON to itself: the JSON
// form loses nothing.
func JSONRoundTrip(d Domain, v Value) error {
	js, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: marshal JSON: %w", d.Name, err)
	}
	parsed, err := d.ParseJSON(js)
	if err != nil {
		return fmt.Errorf("%s: parse own JSON %s: %w", d.Name, js, err)
	}
	if !reflect.DeepEqual(parsed, v) {
		return fmt.Errorf("%s: JSON round trip %s = %+v, want %+v", d.Name, js, parsed, v)
	}
	return nil
}
