package nvvmop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/nvvmop"
	"github.com/legalfuzz/legalfuzz/fuzz/opsurface"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/surface"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// figureTarget is the second target each op is judged on: the newest
// architecture-specific target whose PTX ISA version 22, 23 and trunk all
// write, where most ops with an NVVMRequiresSM trait verify.
var figureTarget = target.MustParse("sm_100a", "8.8")

// TestFigure measures docs/toolchains.md's figure: on each installation
// LEGALFUZZ_NVVMOP_FIGURE names ("trunk,23"), every op its own surface
// can write and translate, judged by its nvvm-op judge on the op's first
// case and on the same case for sm_100a at PTX ISA 8.8; it writes one
// line a verdict to $LEGALFUZZ_NVVMOP_FIGURE_DIR (default the test's
// temporary folder) and logs the verdict mix.
//
//	LEGALFUZZ_NVVMOP_FIGURE=trunk,23 LEGALFUZZ_NVVMOP_FIGURE_DIR=/tmp go test ./oracles/nvvmop -run TestFigure -v -timeout 30m
func TestFigure(t *testing.T) {
	labels := os.Getenv("LEGALFUZZ_NVVMOP_FIGURE")
	if labels == "" {
		t.Skip("LEGALFUZZ_NVVMOP_FIGURE names the installations to measure (trunk,23)")
	}
	dir := os.Getenv("LEGALFUZZ_NVVMOP_FIGURE_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	ctx := context.Background()
	for _, label := range strings.Split(labels, ",") {
		in, ok := toolchain.Find(ctx, toolchain.Options{}, label)
		if !ok {
			t.Fatalf("no installation %s", label)
		}
		o, st := Discover(ctx, in)
		if o == nil {
			t.Fatalf("%s: %s", st.Name, st.Reason)
		}
		s, err := surface.Read(ctx, in, nvvm)
		if err != nil {
			t.Fatal(err)
		}
		var cases []domain.Case
		var ops []string
		for _, op := range s.Ops {
			if op.Unusable != nil || op.Lowering.Kind == opsurface.NoLowering {
				continue
			}
			v, err := nvvmop.First(op)
			if err != nil {
				t.Fatal(err)
			}
			cases = append(cases, domain.NewCase(nvvmop.Name, v))
			ops = append(ops, op.Name)
			if v.Arch != figureTarget {
				v.Arch = figureTarget
				cases = append(cases, domain.NewCase(nvvmop.Name, v))
				ops = append(ops, op.Name)
			}
		}
		vs := judgeAll(t, o, cases, 2)
		mix := map[string]int{}
		var lines []string
		for i, v := range vs {
			tgt := cases[i].Value.Target().String()
			class := string(v.Kind) + " " + v.Rule
			if cases[i].Value.Target() == figureTarget {
				class = "sm_100a: " + class
			} else {
				class = "first: " + class
			}
			mix[class]++
			lines = append(lines, fmt.Sprintf("%s\t%s\t%s\t%s\t%s", ops[i], tgt, v.Kind, v.Rule, firstLine(v.Diagnostic)))
		}
		path := filepath.Join(dir, "nvvmop_figure_"+label+".tsv")
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for k := range mix {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.Logf("%s (LLVM %s): %-40s %d", label, in.Version, k, mix[k])
		}
		t.Logf("%s: %d ops, %d cases, written to %s", label, len(s.Ops), len(cases), path)
	}
}

// judgeAll judges the cases with n judges at once, in order.
func judgeAll(t *testing.T, o *Oracle, cases []domain.Case, n int) []oracles.Verdict {
	t.Helper()
	out := make([]oracles.Verdict, len(cases))
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(cases); i += n {
				vs, err := o.Judge(context.Background(), cases[i:i+1])
				if err != nil {
					errs <- err
					return
				}
				out[i] = vs[0]
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return out
}

// firstLine is a diagnostic's first line.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
