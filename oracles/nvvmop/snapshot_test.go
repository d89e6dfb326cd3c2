package nvvmop

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/nvvmop"
	"github.com/legalfuzz/legalfuzz/fuzz/opsurface"
	"github.com/legalfuzz/legalfuzz/oracles/surface"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

var update = flag.Bool("update", false, "rewrite fuzz/nvvmop's snapshot of trunk's surface")

// snapshotPath is the domain's embedded surface.
var snapshotPath = filepath.Join("..", "..", "fuzz", "nvvmop", nvvmop.SnapshotFile)

// snapshotText writes a surface one op a line, so that a new trunk's
// snapshot differs by the ops that changed.
func snapshotText(t *testing.T, s opsurface.Surface) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`{"dialect": "` + s.Dialect + `", "ops": [` + "\n")
	for i, op := range s.Ops {
		var js bytes.Buffer
		enc := json.NewEncoder(&js)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(op); err != nil {
			t.Fatal(err)
		}
		b.Write(bytes.TrimSuffix(js.Bytes(), []byte("\n")))
		if i < len(s.Ops)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]}\n")
	return b.Bytes()
}

// TestSnapshotUpToDate: the domain's embedded surface is trunk's, as its
// own llvm-tblgen reads it (-update rewrites it after a new snapshot of
// trunk is installed); the test skips without trunk's TableGen sources.
func TestSnapshotUpToDate(t *testing.T) {
	ctx := context.Background()
	in, ok := toolchain.Find(ctx, toolchain.Options{}, "trunk")
	if !ok || !surface.Has(in, nvvm) {
		t.Skip("no trunk installation with its TableGen sources (make oracles installs them)")
	}
	s, err := surface.Read(ctx, in, nvvm)
	if err != nil {
		t.Fatal(err)
	}
	text := snapshotText(t, s)
	if *update {
		if err := os.WriteFile(snapshotPath, text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(snapshotPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, text) {
		t.Errorf("%s is not trunk's (LLVM %s) surface: go test ./oracles/nvvmop -run TestSnapshotUpToDate -update rewrites it", snapshotPath, in.Version)
	}
}
