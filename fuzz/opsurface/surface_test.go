package opsurface

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.dump.json from the installed llvm-tblgen of .oracles/llvm/LABEL, and the expected surfaces")

// golden are the dumps kept as testdata: real llvm-tblgen output of an
// installation's NVVMOps.td, trimmed to a few ops that show each kind of
// operand, attribute, target requirement, lowering and reason.
var golden = []struct {
	label string
	ops   []string
}{
	{"trunk", []string{
		"NVVM_ShflOp",                 // dialect enum (angled), i32-or-struct result, unit attribute
		"NVVM_CpAsyncOp",              // pointers, enum, integer attribute, sm_80
		"NVVM_ConvertF32x2ToBF16x2Op", // vector result, rounding enum
		"NVVM_Tcgen05CommitOp",        // architecture-specific targets, optional operand
		"NVVM_LdMatrixOp",             // struct attribute (#nvvm.ld_st_matrix_shape<m = 8, n = 8>)
		"NVVM_WMMAMmaOp",              // LLVM struct result, variadic operands
		"NVVM_InlinePtxOp",            // string attribute: not instantiable; no translation of its own
		"NVVM_SparseCompressOp",       // only sm_107a, which legalfuzz does not know: not instantiable
		"NVVM_CpAsyncCommitGroupOp",   // no operand: the intrinsic named in the record
	}},
	{"23", []string{
		"NVVM_ShflOp", // dialect enum in 23's bare format: #nvvm<shfl_kind bfly>
	}},
}

func TestGoldenSurfaces(t *testing.T) {
	for _, g := range golden {
		t.Run(g.label, func(t *testing.T) {
			dumpPath := filepath.Join("testdata", "nvvm-"+g.label+".dump.json")
			wantPath := filepath.Join("testdata", "nvvm-"+g.label+".surface.json")
			if *update {
				writeGoldenDump(t, g.label, g.ops, dumpPath)
			}
			s := readGolden(t, dumpPath)
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false) // the spellings' <> as written
			enc.SetIndent("", "  ")
			if err := enc.Encode(s); err != nil {
				t.Fatal(err)
			}
			got := buf.Bytes()
			if *update {
				if err := os.WriteFile(wantPath, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(wantPath)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
				t.Errorf("surface of %s differs from %s (go test -update rewrites it):\n%s", dumpPath, wantPath, got)
			}
		})
	}
}

// writeGoldenDump dumps the installation's NVVMOps.td and keeps the ops'.
func writeGoldenDump(t *testing.T, label string, ops []string, path string) {
	t.Helper()
	root := filepath.Join("..", "..", ".oracles", "llvm", label)
	include := filepath.Join(root, "include")
	out, err := exec.Command(filepath.Join(root, "bin", "llvm-tblgen"), "--dump-json", "-I", include,
		filepath.Join(include, "mlir", "Dialect", "LLVMIR", "NVVMOps.td")).Output()
	if err != nil {
		t.Fatalf("llvm-tblgen of %s (make oracles installs it): %v", root, err)
	}
	rs, err := ReadRecords(out)
	if err != nil {
		t.Fatal(err)
	}
	trimmed, err := rs.Trim(ops)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(trimmed, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readGolden reads the NVVM surface of a golden dump.
func readGolden(t *testing.T, path string) Surface {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := ReadRecords(data)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Read(rs, "nvvm")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCoverage(t *testing.T) {
	c := readGolden(t, filepath.Join("testdata", "nvvm-trunk.dump.json")).Coverage()
	if c.Ops != 9 || c.Instantiable != 7 || c.Lowering != 8 || c.LoweringInstantiable != 7 {
		t.Errorf("coverage %+v, want 9 ops, 7 instantiable, 8 translated (7 of them instantiable)", c)
	}
	var reasons []string
	for _, r := range c.Reasons {
		reasons = append(reasons, r.Reason.String()+" "+strings.Join(r.Ops, ","))
	}
	want := []string{"attribute: string attribute nvvm.inline_ptx", "target: only sm_107a nvvm.sparse.compress"}
	if strings.Join(reasons, "|") != strings.Join(want, "|") {
		t.Errorf("reasons %q, want %q", reasons, want)
	}
}

func TestMalformedDumps(t *testing.T) {
	for name, in := range map[string]string{
		"not JSON":        "{",
		"not an object":   "[1, 2]",
		"no !instanceof":  `{"NVVM_Op": {}}`,
		"bad !instanceof": `{"!instanceof": [1]}`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := ReadRecords([]byte(in)); !errors.Is(err, ErrNotDump) {
				t.Errorf("ReadRecords(%q) = %v, want ErrNotDump", in, err)
			}
		})
	}
	for name, in := range map[string]string{
		"no ops":                               `{"!instanceof": {}}`,
		"op record missing":                    `{"!instanceof": {"Op": ["X"]}}`,
		"op of a record that is not an object": `{"!instanceof": {"Op": ["X"]}, "X": 3}`,
		"arguments not a dag": `{"!instanceof": {"Op": ["X"]}, "D": {"name": "nvvm"},
			"X": {"opDialect": {"kind": "def", "def": "D"}, "opName": "x", "arguments": 5}}`,
		"argument refers to nothing": `{"!instanceof": {"Op": ["X"]}, "D": {"name": "nvvm"},
			"X": {"opDialect": {"kind": "def", "def": "D"}, "opName": "x",
			"arguments": {"kind": "dag", "args": [[{"kind": "def", "def": "Gone"}, "a"]]}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			rs, err := ReadRecords([]byte(in))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Read(rs, "nvvm"); err == nil {
				t.Errorf("Read(%s) succeeded", in)
			}
		})
	}
}

// TestRespell: an enum value spelled one way is the attribute's own
// spelling of the same case the other way (LLVM 23 and trunk spell NVVM's
// shuffle kinds differently); anything else is left as it is.
func TestRespell(t *testing.T) {
	ll23 := Attr{Name: "kind", Kind: EnumAttr, Values: []string{"#nvvm<shfl_kind bfly>", "#nvvm<shfl_kind up>"}}
	trunk := Attr{Name: "kind", Kind: EnumAttr, Values: []string{"#nvvm.shfl_kind<bfly>", "#nvvm.shfl_kind<up>"}}
	for _, tc := range []struct {
		a      Attr
		v, out string
	}{
		{ll23, "#nvvm.shfl_kind<up>", "#nvvm<shfl_kind up>"},
		{trunk, "#nvvm<shfl_kind bfly>", "#nvvm.shfl_kind<bfly>"},
		{trunk, "#nvvm.shfl_kind<up>", "#nvvm.shfl_kind<up>"},
		{trunk, "#nvvm.shfl_kind<idx>", "#nvvm.shfl_kind<idx>"},                  // a case the attribute lacks
		{trunk, "#nvvm.redux_kind<up>", "#nvvm.redux_kind<up>"},                  // another enum
		{trunk, "#nvvm<shfl_kind>", "#nvvm<shfl_kind>"},                          // malformed
		{Attr{Kind: IntAttr, Values: []string{"4 : i32"}}, "8 : i32", "8 : i32"}, // not an enum
	} {
		if got := tc.a.Respell(tc.v); got != tc.out {
			t.Errorf("%v.Respell(%q) = %q, want %q", tc.a.Values, tc.v, got, tc.out)
		}
	}
}
