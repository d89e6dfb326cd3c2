package nvvmop

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
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

// TestImmediatesAreConstants: an operand the op's intrinsic takes as an
// immediate (immarg) is a constant in every case written of the op, its
// first and decoded ones: an llvm.mlir.constant in the function's body,
// never one of its arguments (mlir-translate refuses such an argument,
// "immarg operand has non-immediate parameter", whatever the op).
func TestImmediatesAreConstants(t *testing.T) {
	withImm := map[string]opsurface.Op{}
	for _, op := range Ops() {
		for _, o := range op.Operands {
			if len(Immediates(op.Name, o.Name)) > 0 {
				withImm[op.Name] = op
			}
		}
	}
	if len(withImm) != len(immediates) {
		t.Errorf("the snapshot's ops with immediates: %d, the table names %d", len(withImm), len(immediates))
	}
	check := func(v Value) {
		t.Helper()
		text := v.Generic("f")
		header, _, _ := strings.Cut(text, "\n")
		for i, o := range v.Operands {
			value, typ, ok := splitConstant(o)
			if !ok {
				continue
			}
			if want := fmt.Sprintf("%%a%d = llvm.mlir.constant(%s : %s) : %s", i, value, typ, typ); !strings.Contains(text, want) {
				t.Errorf("%s: no %q in\n%s", v.Op, want, text)
			}
			if strings.Contains(header, fmt.Sprintf("%%a%d:", i)) {
				t.Errorf("%s: operand %d is an argument:\n%s", v.Op, i, text)
			}
		}
	}
	for name, op := range withImm {
		v, err := First(op)
		if err != nil {
			t.Fatal(err)
		}
		constants := 0
		for _, o := range v.Operands {
			if _, _, ok := splitConstant(o); ok {
				constants++
			}
		}
		if constants == 0 {
			t.Errorf("%s's first case has no constant operand: %v", name, v.Operands)
		}
		check(v)
	}
	seen := map[string]bool{}
	for i := range 1 << 16 {
		v, _ := Decode([]byte{byte(i >> 8), byte(i), byte(i * 7), byte(i * 13), byte(i * 31), byte(i * 3), byte(i * 5), byte(i * 11)})
		val := v.(Value)
		if op, ok := withImm[val.Op]; ok {
			seen[val.Op] = true
			for j, o := range val.Operands {
				if _, _, isConst := splitConstant(o); !isConst && immediateAt(op, val, j) {
					t.Errorf("%s: operand %d (%s) must be a constant: %v", val.Op, j, o, val.Operands)
				}
			}
			check(val)
		}
	}
	if len(seen) != len(withImm) {
		t.Errorf("decoding reached %d of the %d ops with immediates", len(seen), len(withImm))
	}
}

// immediateAt reports whether the case's j-th operand is of a group the
// op takes as an immediate.
func immediateAt(op opsurface.Op, v Value, j int) bool {
	at := 0
	for g, o := range op.Operands {
		n := 1
		if v.Segments != nil {
			n = v.Segments[g]
		} else if o.Optional || o.Variadic {
			n = len(v.Operands) - (len(op.Operands) - 1) // one optional group at most without segments
		}
		if j < at+n {
			return len(Immediates(op.Name, o.Name)) > 0
		}
		at += n
	}
	return false
}
