package nvvmop

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/opsurface"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

var update = flag.Bool("update", false, "rewrite testdata/first.mlir")

// surface reads the golden surface of opsurface's testdata (real
// llvm-tblgen output of trunk's NVVMOps.td, trimmed to a few ops).
func surface(t *testing.T) opsurface.Surface {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "opsurface", "testdata", "nvvm-trunk.dump.json"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := opsurface.ReadRecords(data)
	if err != nil {
		t.Fatal(err)
	}
	s, err := opsurface.Read(rs, "nvvm")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFirstCases: each instantiable op's first case, in the generic form,
// is testdata/first.mlir (mlir-opt of trunk parses it: TestInstantiableOpsParse
// in oracles/surface); an op the surface cannot write has none.
func TestFirstCases(t *testing.T) {
	var text strings.Builder
	seen := map[string]string{}
	for _, op := range surface(t).Ops {
		v, err := First(op)
		if op.Unusable != nil {
			if err == nil {
				t.Errorf("%s: a first case for an op that is not instantiable (%s)", op.Name, op.Unusable)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		text.WriteString("// " + v.Arch.String() + "\n" + v.Generic(strings.ReplaceAll(op.Name, ".", "_")) + "\n")
		key := string(v.Encode())
		if other, dup := seen[key]; dup {
			t.Errorf("%s and %s encode alike", op.Name, other)
		}
		seen[key] = op.Name
	}
	path := filepath.Join("testdata", "first.mlir")
	if *update {
		if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal([]byte(text.String()), want) {
		t.Errorf("first cases differ from %s (go test -update rewrites it):\n%s", path, text.String())
	}
}

// TestEncodeTellsApart: values that differ in any part encode differently
// (the case ID is a hash of the encoding).
func TestEncodeTellsApart(t *testing.T) {
	base := Value{Op: "nvvm.x", Operands: []string{"i32"}, Results: []string{"i32"},
		Attrs: []Attr{{"a", "1 : i32"}}, Arch: target.MustParse("sm_90", "")}
	variants := map[string]Value{"base": base}
	add := func(name string, f func(*Value)) {
		v := base
		v.Operands, v.Results, v.Attrs = append([]string(nil), base.Operands...), append([]string(nil), base.Results...), append([]Attr(nil), base.Attrs...)
		f(&v)
		variants[name] = v
	}
	add("op", func(v *Value) { v.Op = "nvvm.y" })
	add("operand moved to the result", func(v *Value) { v.Operands, v.Results = nil, []string{"i32", "i32"} })
	add("segments", func(v *Value) { v.Segments = []int{1} })
	add("attribute value", func(v *Value) { v.Attrs[0].Value = "2 : i32" })
	add("attribute name and value split otherwise", func(v *Value) { v.Attrs[0] = Attr{"a1", " : i32"} })
	add("target", func(v *Value) { v.Arch = target.MustParse("sm_90a", "") })
	seen := map[string]string{}
	for name, v := range variants {
		if other, dup := seen[string(v.Encode())]; dup {
			t.Errorf("%s and %s encode alike", name, other)
		}
		seen[string(v.Encode())] = name
	}
}

// TestJSONRoundTrip: every first case parses back from its JSON form.
func TestJSONRoundTrip(t *testing.T) {
	for _, op := range surface(t).Ops {
		v, err := First(op)
		if err != nil {
			continue
		}
		js, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseJSON(js)
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		if !reflect.DeepEqual(back, v) {
			t.Errorf("%s parses to %+v, want %+v", js, back, v)
		}
	}
}

func TestParseJSONRefuses(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{}`, `field "op"`},
		{`{"op": "gpu.barrier"}`, `field "op"`},
		{`{"op": "nvvm.x", "extra": 1}`, `unknown field "extra"`},
		{`{"op": "nvvm.x", "operands": ["i32", ""]}`, `field "operands": entry 1`},
		{`{"op": "nvvm.x", "operands": ["i32"], "segments": [1, 1]}`, `field "segments"`},
		{`{"op": "nvvm.x", "segments": [-1, 1]}`, `field "segments"`},
		{`{"op": "nvvm.x", "attrs": {"a b": "1 : i32"}}`, `field "attrs"`},
		{`{"op": "nvvm.x", "target": "sm_1"}`, `field "target"`},
		{`{"op": "nvvm.x", "ptx": "0.1"}`, `field "ptx"`},
	} {
		if _, err := ParseJSON([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseJSON(%s) = %v, want an error naming %s", tc.in, err, tc.want)
		}
	}
}
