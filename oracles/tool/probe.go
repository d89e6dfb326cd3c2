package tool

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/legalfuzz/legalfuzz/internal/clip"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
)

// ProbeTimeout bounds each question a tool is asked about itself at
// discovery (its version, its processors, its flags): a tool that has not
// answered by then is unavailable, so one hung tool never hangs `legalfuzz
// oracles`, a worker's start or a campaign. A variable, for tests.
var ProbeTimeout = 15 * time.Second

// MaxProbeOutput bounds a probe's answer on each stream; the longest real
// one, mlir-opt --help, is about 210 KB. A tool that prints more is killed
// and unavailable.
const MaxProbeOutput = 4 << 20

// Probe asks the program at path about itself, within ProbeTimeout and
// MaxProbeOutput: the one way discovery runs a tool (Locate,
// toolchain.Open and Installation.Locate, the processor lists, mlir-opt's
// flags). The error names the command and why it gave no answer; a tool
// that ran and exited non-zero with output is answered (some print their
// version so).
func Probe(ctx context.Context, path string, args ...string) (Result, error) {
	return probe(ctx, Tool{Path: path}, args)
}

// Probe is the package's Probe with the tool's environment.
func (t Tool) Probe(ctx context.Context, args ...string) (Result, error) { return probe(ctx, t, args) }

func probe(ctx context.Context, t Tool, args []string) (Result, error) {
	key, keyed := probeKey(t, args)
	if keyed {
		if res, ok := answered.Load(key); ok {
			return res.(Result), nil
		}
	}
	res, err := ask(ctx, t, args)
	if err == nil && keyed {
		answered.Store(key, res)
	}
	return res, err
}

// answered keeps each probe's answer for the life of the process: the same
// question to the same file in the same environment gets the same answer,
// and a process that discovers many times (the CLI's tests, a worker that
// restarts its oracles) ran some ninety tools each time. A tool replaced on
// disk is another file (its size or time changed) and is asked
// again; a probe that failed is never kept.
var answered sync.Map // probeKey -> Result

// probeKey names a question: the file (by path and identity), the
// arguments and the environment. Unkeyed when the file cannot be read.
func probeKey(t Tool, args []string) (string, bool) {
	fi, err := os.Stat(t.Path)
	if err != nil {
		return "", false
	}
	h := sha256.New()
	for _, part := range [][]string{{t.Path, fmt.Sprint(fi.Size(), fi.ModTime().UnixNano())}, args, t.Env, os.Environ()} {
		for _, s := range part {
			h.Write([]byte(s))
			h.Write([]byte{0})
		}
		h.Write([]byte{1})
	}
	return string(h.Sum(nil)), true
}

// ask runs the probe.
func ask(ctx context.Context, t Tool, args []string) (Result, error) {
	what := strings.Join(append([]string{t.Path}, args...), " ")
	res, err := run(ctx, ProbeTimeout, t.command(args), nil, runLimit{bytes: MaxProbeOutput, killOver: true})
	switch {
	case err != nil:
		return res, fmt.Errorf("%s: %w", what, err)
	case res.TimedOut:
		return res, fmt.Errorf("%s gave no answer within %s", what, ProbeTimeout)
	case res.Dropped > 0:
		return res, fmt.Errorf("%s printed more than %d bytes (%q ...)", what, MaxProbeOutput,
			clip.To(diag.FirstLine(res.Output()), 200))
	case res.Signal != "" && len(res.Stdout)+len(res.Stderr) == 0:
		return res, fmt.Errorf("%s was killed by signal %s and printed nothing", what, res.Signal)
	case res.ExitCode != 0 && len(res.Stdout)+len(res.Stderr) == 0:
		return res, fmt.Errorf("%s exited with status %d and printed nothing", what, res.ExitCode)
	}
	return res, nil
}
