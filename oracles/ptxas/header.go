package ptxas

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
)

// headerCache remembers ptxas's errors about each module header.
type headerCache struct {
	mu   sync.Mutex
	errs map[target.Target][]string
}

// probeEntry is the empty kernel a header is checked with: ptxas checks
// .version against .target only once it reaches an entry.
const probeEntry = "\n.visible .entry probe()\n{\n\tret;\n}\n"

// checkHeader returns ptxas's errors about the header of t's modules (a
// .version that does not support the .target), from assembling an empty
// kernel once per target and oracle. In a module with cases, ptxas reports
// a bad header after the errors of the entries it parsed, or not at all when
// an entry stops its parser, so which cases "see" it would depend on the
// batch. Judged apart, a bad header rejects every case of its group with the
// same diagnostic, batched or not. A probe that crashes or hangs says
// nothing; the cases are then assembled as usual.
func (o *Oracle) checkHeader(ctx context.Context, dir string, t target.Target) ([]string, error) {
	o.headers.mu.Lock()
	errs, ok := o.headers.errs[t]
	o.headers.mu.Unlock()
	if ok {
		return errs, nil
	}
	path := filepath.Join(dir, "header.ptx")
	if err := os.WriteFile(path, []byte(ptx.Header(t)+probeEntry), 0o644); err != nil {
		return nil, fmt.Errorf("ptxas: %w", err)
	}
	res, err := o.tool.Run(ctx, o.timeout(), nil, o.CommandArgs(t.Arch, path)...)
	if err != nil {
		return nil, fmt.Errorf("ptxas: %w", err)
	}
	if res.TimedOut || res.Crashed() {
		return nil, nil
	}
	errs = []string{}
	for _, line := range strings.Split(res.Output(), "\n") {
		if d, ok := parseLine(line); ok && d.isError() {
			errs = append(errs, d.text)
		}
	}
	o.headers.mu.Lock()
	o.headers.errs[t] = errs
	o.headers.mu.Unlock()
	return errs, nil
}
