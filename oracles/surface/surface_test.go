package surface

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/nvvmop"
	"github.com/legalfuzz/legalfuzz/fuzz/opsurface"
	"github.com/legalfuzz/legalfuzz/oracles/batch"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// withSources returns the installed LLVM installations that have TableGen
// sources, skipping the test when none has.
func withSources(t *testing.T) []toolchain.Installation {
	t.Helper()
	found, _, err := toolchain.Discover(context.Background(), toolchain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []toolchain.Installation
	for _, in := range found {
		if _, err := os.Stat(filepath.Join(Include(in), Sources[0].File)); err == nil {
			out = append(out, in)
		}
	}
	if len(out) == 0 {
		t.Skip("no LLVM installation with TableGen sources (make oracles installs them for 22, 23 and trunk)")
	}
	return out
}

// TestInstalledSurfaces reads every installation's NVVM surface twice: the
// first run of llvm-tblgen fills the cache, the second reads it alone and
// must give the same surface; most of the dialect must be instantiable.
func TestInstalledSurfaces(t *testing.T) {
	for _, in := range withSources(t) {
		t.Run(in.Label, func(t *testing.T) {
			t.Setenv(batch.CacheDirEnv, t.TempDir())
			ctx := context.Background()
			start := time.Now()
			s, err := Read(ctx, in, Sources[0])
			if err != nil {
				t.Fatal(err)
			}
			cold := time.Since(start)
			files, _ := filepath.Glob(filepath.Join(batch.CacheDir(), "tablegen-*"))
			if len(files) != 1 {
				t.Fatalf("cache holds %q, want one dump", files)
			}
			start = time.Now()
			again, err := Read(ctx, in, Sources[0])
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("LLVM %s: %d nvvm ops; read in %v with llvm-tblgen, %v from the cache", in.Label, len(s.Ops), cold, time.Since(start))
			if !reflect.DeepEqual(s, again) {
				t.Error("the surface read from the cache differs from the one read with llvm-tblgen")
			}
			c := s.Coverage()
			if c.Ops < 100 || c.LoweringInstantiable*10 < c.Lowering*8 {
				t.Errorf("coverage %+v: want over 100 ops and 80%% of those translated instantiable", c)
			}
		})
	}
}

// TestDamagedCacheIsAnError: a cache file that is not a dump is reported
// with its path, never a panic or a wrong surface.
func TestDamagedCacheIsAnError(t *testing.T) {
	in := withSources(t)[0]
	t.Setenv(batch.CacheDirEnv, t.TempDir())
	ctx := context.Background()
	if _, err := Read(ctx, in, Sources[0]); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(batch.CacheDir(), "tablegen-*"))
	if len(files) != 1 {
		t.Fatalf("cache holds %q, want one dump", files)
	}
	if err := os.WriteFile(files[0], []byte(`{"truncated`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Read(ctx, in, Sources[0])
	if !errors.Is(err, opsurface.ErrNotDump) || !strings.Contains(err.Error(), files[0]) {
		t.Errorf("Read with a damaged cache: %v, want ErrNotDump naming %s", err, files[0])
	}
}

func TestNoSources(t *testing.T) {
	in := toolchain.Installation{Label: "x", Dir: filepath.Join(t.TempDir(), "bin"), Version: "1.0.0"}
	if _, err := Read(context.Background(), in, Sources[0]); !errors.Is(err, ErrNoSources) {
		t.Errorf("Read without sources: %v, want ErrNoSources", err)
	}
}

// TestInstantiableOpsParse writes every instantiable NVVM op's first case
// (nvvmop.First: its first types and its required attributes' first
// values, in the generic form) and has the installation's own mlir-opt parse them (verifier
// off): an op the surface calls instantiable that its parser refuses is a
// spelling legalfuzz got wrong.
func TestInstantiableOpsParse(t *testing.T) {
	for _, in := range withSources(t) {
		t.Run(in.Label, func(t *testing.T) {
			t.Setenv(batch.CacheDirEnv, t.TempDir())
			s, err := Read(context.Background(), in, Sources[0])
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			var lineOp []string // the op each line of the file writes
			for i, op := range s.Ops {
				if op.Unusable != nil {
					continue
				}
				v, err := nvvmop.First(op)
				if err != nil {
					t.Errorf("instantiable op without a first case: %v", err)
					continue
				}
				for _, line := range strings.Split(v.Generic("f"+strconv.Itoa(i))+"// -----", "\n") {
					text.WriteString(line + "\n")
					lineOp = append(lineOp, op.Name)
				}
			}
			file := filepath.Join(t.TempDir(), "ops.mlir")
			if err := os.WriteFile(file, []byte(text.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			out, _ := exec.Command(in.Path("mlir-opt"), "--split-input-file", "--mlir-very-unsafe-disable-verifier-on-parsing",
				"-o", os.DevNull, file).CombinedOutput()
			refused := map[string]string{}
			for _, m := range parseError.FindAllStringSubmatch(string(out), -1) {
				n, _ := strconv.Atoi(m[1])
				if n >= 1 && n <= len(lineOp) {
					refused[lineOp[n-1]] = m[2]
				}
			}
			for op, why := range refused {
				t.Errorf("%s: mlir-opt of LLVM %s does not parse it: %s", op, in.Label, why)
			}
			t.Logf("LLVM %s: %d instantiable ops written, %d refused by the parser", in.Label, s.Coverage().Instantiable, len(refused))
		})
	}
}

// parseError matches mlir-opt's error lines: FILE:LINE:COL: error: WORDS.
var parseError = regexp.MustCompile(`(?m)^[^:\n]+:(\d+):\d+: error: (.*)$`)
