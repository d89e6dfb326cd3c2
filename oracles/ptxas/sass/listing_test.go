package sass

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// callEntry is the kernel of testdata/call.*: a schedule seed on sm_90a
// whose entry calls a helper in its own section, listed by nvdisasm -c and
// cuobjdump -sass 12.4.
const callEntry = "case_04f5549d42cad767"

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRealListingsAgree: the two tools' listings of one cubin compare
// equal once nvdisasm's labels are offsets, and the branch targets come
// out as cuobjdump spells them.
func TestRealListingsAgree(t *testing.T) {
	dis := ParseNVDisasm(readTestdata(t, "call.nvdisasm.txt"))
	dump := ParseCUObjdump(readTestdata(t, "call.cuobjdump.txt"))
	if d, ok := FirstDiff(callEntry, dis, dump); ok {
		t.Fatalf("real listings differ: %+v", d)
	}
	code := strings.Join(texts(dis[callEntry]), "\n")
	for _, want := range []string{"@P0 BRA 0x210", "CALL.REL.NOINC 0x220", "RET.REL.NODEC R2 0x0", "UBLKCP.G.S [UR6], [UR5], UR4", "BRA 0x430"} {
		if !strings.Contains(code, want) {
			t.Errorf("nvdisasm listing lacks %q", want)
		}
	}
	if n := len(dis[callEntry]); n < 60 {
		t.Errorf("%d instructions", n)
	}
}

func texts(code []Instr) []string {
	var out []string
	for _, in := range code {
		out = append(out, in.Text)
	}
	return out
}

// TestFirstDiff: a changed operand, a missing instruction and a missing
// function are each the first difference, quoted from both sides.
func TestFirstDiff(t *testing.T) {
	dis := ParseNVDisasm(readTestdata(t, "call.nvdisasm.txt"))
	raw := readTestdata(t, "call.cuobjdump.txt")
	for _, tc := range []struct {
		name, from, to string
		a, b           string
	}{
		{"operand", "UBLKCP.G.S [UR6], [UR5], UR4", "UBLKCP.G.S [UR6], [UR5], UR5",
			"/*03d0*/ UBLKCP.G.S [UR6], [UR5], UR4", "/*03d0*/ UBLKCP.G.S [UR6], [UR5], UR5"},
		{"branch target", "@P0 BRA 0x210", "@P0 BRA 0x200", "/*01a0*/ @P0 BRA 0x210", "/*01a0*/ @P0 BRA 0x200"},
		{"function", "Function : " + callEntry, "Function : other", "80 instructions", "(no such function)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dump := ParseCUObjdump(strings.Replace(raw, tc.from, tc.to, 1))
			d, ok := FirstDiff(callEntry, dis, dump)
			if !ok || d.A != tc.a || d.B != tc.b {
				t.Fatalf("diff %+v (%t), want %q vs %q", d, ok, tc.a, tc.b)
			}
		})
	}
}

// TestDroppedAndFound: the table requires what writes memory and reports
// the opcodes it finds.
func TestDroppedAndFound(t *testing.T) {
	code := ParseNVDisasm(readTestdata(t, "call.nvdisasm.txt"))[callEntry]
	if why := dropped(readTestdata(t, "call.ptx"), code); why != "" {
		t.Errorf("the real kernel is dropped work: %s", why)
	}
	cp := "\tcp.async.ca.shared.global [%r1], [%rd1], 4;\n"
	if why := dropped(cp, code); !strings.Contains(why, "the PTX has 1 cp.async.ca/cg where the SASS has no LDGSTS") {
		t.Errorf("dropped(cp.async) = %q", why)
	}
	ld := "\tldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r2, %r3, %r4, %r5}, [%r1];\n"
	if why := dropped(ld, code); why != "" {
		t.Errorf("a dead ldmatrix may go, but dropped says %q", why)
	}
	withLDSM := append([]Instr{{Addr: 0, Text: "@P0 LDSM.16.M88.4 R4, [R2]"}}, code...)
	if got := found(ld, withLDSM); got != "LDSM.16.M88.4" {
		t.Errorf("found = %q", got)
	}
}
