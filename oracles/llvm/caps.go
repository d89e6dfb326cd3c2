package llvm

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/internal/clip"
	"github.com/legalfuzz/legalfuzz/oracles/batch"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// caps is what one llc knows of NVPTX, read from its own -mcpu=help, so that
// a target or PTX version the tool has never heard of is `unsupported`
// (llc 19 only warns "is not a recognized processor" and compiles for a
// default CPU, which would otherwise look like a verdict).
type caps struct {
	cpus map[string]bool
	ptx  map[target.PTX]bool
}

var (
	helpCPU = regexp.MustCompile(`^\s+(sm_\w+)\s+- Select the`)
	helpPTX = regexp.MustCompile(`^\s+ptx(\d+)\s+- Use PTX version`)
)

// probeCaps runs `llc -march=nvptx64 -mcpu=help` on an empty module, once
// for the life of the probe cache: it keeps the help text.
func probeCaps(ctx context.Context, t tool.Tool, probes *batch.Probes) (caps, error) {
	var help string
	if probes.Get("mcpu=help", &help) {
		return parseCaps(help), nil
	}
	res, err := t.Probe(ctx, "-march=nvptx64", "-mcpu=help", "-o", "/dev/null")
	if err != nil {
		return caps{}, fmt.Errorf("probing processors: %w", err)
	}
	c := parseCaps(res.Output())
	if len(c.cpus) == 0 {
		return caps{}, fmt.Errorf("probing processors: %s -mcpu=help listed no sm_ processor (exit %d): %q",
			t.Path, res.ExitCode, clip.To(res.Output(), 200))
	}
	probes.Put("mcpu=help", res.Output())
	probes.Save()
	return c, nil
}

func parseCaps(help string) caps {
	c := caps{cpus: map[string]bool{}, ptx: map[target.PTX]bool{}}
	for _, line := range strings.Split(help, "\n") {
		if m := helpCPU.FindStringSubmatch(line); m != nil {
			c.cpus[m[1]] = true
		}
		if m := helpPTX.FindStringSubmatch(line); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				c.ptx[target.PTX(n)] = true
			}
		}
	}
	return c
}

// gate says why this llc cannot judge a case for t at all, or "" when it can.
func (c caps) gate(version string, t target.Target) string {
	if !c.cpus[t.Arch.String()] {
		return fmt.Sprintf("llc %s does not know processor %s", version, t.Arch)
	}
	if !c.ptx[t.PTX] {
		return fmt.Sprintf("llc %s does not know PTX ISA %s (no +%s feature)", version, t.PTX, ptxFeature(t.PTX))
	}
	return ""
}

// targets lists the legalfuzz targets this llc knows.
func (c caps) targets() []string {
	var ts []string
	for _, a := range target.ArchNames() {
		if c.cpus[a] {
			ts = append(ts, a)
		}
	}
	return ts
}

// ptxFeature spells a PTX ISA version as llc's subtarget feature: ptx86.
func ptxFeature(p target.PTX) string { return fmt.Sprintf("ptx%d", int(p)) }
