package cuda

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/oracles/ptxas"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// ptxas124 finds ptxas 12.4 or skips the test, saying why.
func ptxas124(t *testing.T) tool.Tool {
	t.Helper()
	p, err := tool.Locate(context.Background(), ptxas.PTXAS124.Spec)
	if err != nil {
		t.Skipf("ptxas 12.4 not found, so the kernels cannot be assembled here (run make oracles): %v", err)
	}
	return p
}

// kernels lists every module the gpu oracle launches, by name.
func kernels() map[string]string {
	return map[string]string{"tma_tile": TMATilePTX, "ldsm": LDSMModule(), "wgmma_desc": WGMMAPTX()}
}

// Every kernel the gpu oracle launches assembles with ptxas 12.4 for
// sm_90a, and has the entries the checks name.
func TestKernelsAssembleForSM90a(t *testing.T) {
	p := ptxas124(t)
	entries := map[string][]string{"tma_tile": {"tma_tile"}, "wgmma_desc": {"wgmma_desc"}}
	for _, f := range LDSMForms() {
		entries["ldsm"] = append(entries["ldsm"], f.Kernel())
	}
	for name, text := range kernels() {
		t.Run(name, func(t *testing.T) {
			for _, e := range entries[name] {
				if !strings.Contains(text, ".visible .entry "+e+"(") {
					t.Fatalf("module %s has no entry %s", name, e)
				}
			}
			dir := t.TempDir()
			src, bin := filepath.Join(dir, name+".ptx"), filepath.Join(dir, name+".cubin")
			if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := p.Run(context.Background(), time.Minute, nil, "-arch=sm_90a", src, "-o", bin)
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != 0 || strings.Contains(res.Output(), "warning") {
				t.Fatalf("ptxas %s -arch=sm_90a: exit %d\n%s", name, res.ExitCode, res.Output())
			}
		})
	}
}
