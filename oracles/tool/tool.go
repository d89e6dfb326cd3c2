// Package tool locates and runs the external programs that oracles wrap
// (ptxas, mlir-opt, llc, llvm-mc, user verifiers), with deadlines that kill
// hung processes and a classification that keeps "the tool crashed" (a
// finding) apart from "the tool could not be started" (a harness failure).
package tool

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/legalfuzz/legalfuzz/internal/clip"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
)

// Spec says how to find one tool.
type Spec struct {
	// Name is the oracle-facing name, e.g. "ptxas".
	Name string
	// Env is the environment variable that, when set, gives the tool's path.
	Env string
	// Files are the file names to look for, in order, in the project's
	// .oracles/bin and then on PATH, e.g. "llc-19", "llc".
	Files []string
	// VersionArgs print the version, e.g. ["--version"].
	VersionArgs []string
	// Version extracts the version from that output, or reports that this is
	// not the wanted tool (a different LLVM major, say).
	Version func(out string) (string, bool)
	// Install says how to get the tool when it is missing.
	Install string
}

// Tool is a located program.
type Tool struct {
	Name    string
	Path    string
	Version string
	// Env holds extra environment variables ("K=V") for every run, on top
	// of legalfuzz's own; nil adds none.
	Env []string
}

// Locate finds the tool: the Env variable, then .oracles/bin, then PATH. A
// candidate whose version output does not match is skipped, with the reason
// kept for the error.
func Locate(ctx context.Context, s Spec) (Tool, error) {
	var tried []string
	for _, path := range Candidates(s) {
		res, err := Probe(ctx, path, s.VersionArgs...)
		if err != nil {
			tried = append(tried, err.Error())
			continue
		}
		out := res.Output()
		version, ok := s.Version(out)
		if !ok {
			tried = append(tried, fmt.Sprintf("%s: version %q does not match", path, clip.Text(diag.FirstLine(out))))
			continue
		}
		return Tool{Name: s.Name, Path: path, Version: version}, nil
	}
	if len(tried) == 0 {
		return Tool{}, fmt.Errorf("%s not found (set %s, run make oracles, or put %s on PATH)", s.Name, s.Env, strings.Join(s.Files, " or "))
	}
	return Tool{}, fmt.Errorf("%s not usable: %s", s.Name, strings.Join(tried, "; "))
}

// candidates lists the paths to try, in order, without duplicates.
// Candidates are the paths Locate tries, in order: Env, the project's bin
// folders, PATH (an absolute name in Files is taken as it is).
func Candidates(s Spec) []string {
	var paths []string
	if p := os.Getenv(s.Env); s.Env != "" && p != "" {
		paths = append(paths, p)
	}
	for _, dir := range OraclesBinDirs() {
		for _, f := range s.Files {
			if p := filepath.Join(dir, f); isExecutable(p) {
				paths = append(paths, p)
			}
		}
	}
	for _, f := range s.Files {
		if p, err := exec.LookPath(f); err == nil {
			paths = append(paths, p)
		}
	}
	return dedup(paths)
}

// OraclesBinDirs lists where the project installs tools: $LEGALFUZZ_ORACLES_DIR/bin,
// the nearest .oracles/bin above the working directory, and the one beside
// the running binary's folder (bin/legalfuzz → .oracles/bin).
func OraclesBinDirs() []string {
	var dirs []string
	if d := os.Getenv("LEGALFUZZ_ORACLES_DIR"); d != "" {
		dirs = append(dirs, filepath.Join(d, "bin"))
	}
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			if p := filepath.Join(dir, ".oracles", "bin"); isDir(p) {
				dirs = append(dirs, p)
				break
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	if exe, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(filepath.Dir(exe)), ".oracles", "bin"); isDir(p) {
			dirs = append(dirs, p)
		}
	}
	return dedup(dirs)
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func dedup(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// Result is what one run of a tool did.
type Result struct {
	Stdout, Stderr []byte
	// ExitCode is the process's exit status; -1 when it died of a signal.
	ExitCode int
	// Signal names the signal that killed the process, if any.
	Signal string
	// TimedOut is set when the deadline passed and the process was killed.
	TimedOut bool
	// Dropped counts the output bytes past the run's bound (MaxOutput, or
	// a probe's MaxProbeOutput), read and not kept.
	Dropped  int64
	Duration time.Duration
}

// Output is stderr followed by stdout, as a user reading the terminal sees it.
func (r Result) Output() string { return string(r.Stderr) + string(r.Stdout) }

// Failure describes a failed run of the named tool for an error verdict:
// its exit status or signal, and its normalized output, bounded.
func (r Result) Failure(name string) string {
	status := fmt.Sprintf("exit status %d", r.ExitCode)
	if r.Signal != "" {
		status = "killed by signal " + r.Signal
	}
	out := clip.Text(diag.Normalize(strings.TrimSpace(r.Output())))
	if out == "" {
		return name + " failed (" + status + ") with no output"
	}
	return name + " failed (" + status + "): " + out
}

// crashMarkers are the texts compilers print when they fail internally.
var crashMarkers = []string{
	"internal compiler error", "Internal error", "PLEASE submit a bug report", "Stack dump:",
	"LLVM ERROR:", "Assertion `", "Segmentation fault", "UNREACHABLE executed", "terminate called",
}

// Crashed reports whether the tool failed in itself (a signal, or an
// internal-error message), which is a finding about the tool, not a verdict
// on the input.
func (r Result) Crashed() bool {
	if r.Signal != "" && !r.TimedOut {
		return true
	}
	out := r.Output()
	for _, m := range crashMarkers {
		if strings.Contains(out, m) {
			return true
		}
	}
	return false
}

// started counts the processes Run has started in this program.
var started atomic.Int64

// Started returns how many tool processes Run, Tool.Run and RunIn have
// started in this program so far; a benchmark reads it before and after a
// run to count the invocations an oracle made.
func Started() int64 { return started.Load() }

// ErrStart wraps failures to start a tool at all: a harness problem.
var ErrStart = errors.New("tool could not be started")

// Run runs the tool with args and stdin. At the timeout the whole process
// group is killed, so a hung tool and its children never outlive the call.
// The error is only for a tool that could not be started (ErrStart) or a
// cancelled ctx; a tool that ran and failed is described by the Result.
func (t Tool) Run(ctx context.Context, timeout time.Duration, stdin []byte, args ...string) (Result, error) {
	return run(ctx, timeout, t.command(args), stdin, runLimit{})
}

// command is the tool's command line with its environment.
func (t Tool) command(args []string) *exec.Cmd {
	cmd := exec.Command(t.Path, args...)
	if t.Env != nil {
		cmd.Env = append(os.Environ(), t.Env...)
	}
	return cmd
}

// Run runs any program as Tool.Run does.
func Run(ctx context.Context, timeout time.Duration, stdin []byte, path string, args ...string) (Result, error) {
	return run(ctx, timeout, exec.Command(path, args...), stdin, runLimit{})
}

// RunIn runs a program in directory dir, with no input.
func RunIn(ctx context.Context, timeout time.Duration, dir, path string, args ...string) (Result, error) {
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	return run(ctx, timeout, cmd, nil, runLimit{})
}

// MaxOutput bounds what a run keeps of each of a tool's streams; the rest
// is read and dropped (Result.Dropped), so a tool that prints gigabytes
// costs its time, not the worker's memory.
const MaxOutput = 64 << 20

// runLimit bounds what a run keeps: bytes per stream (0: MaxOutput), and
// whether a stream over it kills the tool (a probe, whose answer is short)
// rather than being read to its end.
type runLimit struct {
	bytes    int
	killOver bool
}

func run(ctx context.Context, timeout time.Duration, cmd *exec.Cmd, stdin []byte, lim runLimit) (Result, error) {
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	path := cmd.Path
	over := make(chan struct{})
	var once sync.Once
	overflow := func() {
		if lim.killOver {
			once.Do(func() { close(over) })
		}
	}
	n := cmp.Or(lim.bytes, MaxOutput)
	stdout, stderr := &capped{limit: n, over: overflow}, &capped{limit: n, over: overflow}
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = ChildAttr()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{}, fmt.Errorf("%w: %s: %v", ErrStart, path, err)
	}
	started.Add(1)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var timedOut bool
	var err error
	select {
	case err = <-done:
	case <-over:
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
	case <-runCtx.Done():
		timedOut = ctx.Err() == nil // our deadline, not the caller's cancellation
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
	}
	r := Result{Stdout: stdout.buf.Bytes(), Stderr: stderr.buf.Bytes(), TimedOut: timedOut, Duration: time.Since(start),
		Dropped: stdout.dropped + stderr.dropped}
	r.ExitCode, r.Signal = exitStatus(cmd, err)
	if ctx.Err() != nil {
		return r, ctx.Err()
	}
	return r, nil
}

// capped keeps the first limit bytes written to it and counts the rest,
// calling over at the first byte it drops.
type capped struct {
	buf     bytes.Buffer
	limit   int
	dropped int64
	over    func()
}

func (c *capped) Write(p []byte) (int, error) {
	room := max(c.limit-c.buf.Len(), 0)
	if len(p) <= room {
		return c.buf.Write(p)
	}
	c.buf.Write(p[:room])
	c.dropped += int64(len(p) - room)
	c.over()
	return len(p), nil
}

func exitStatus(cmd *exec.Cmd, err error) (int, string) {
	if cmd.ProcessState == nil {
		return -1, ""
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, ws.Signal().String()
	}
	return cmd.ProcessState.ExitCode(), ""
}

// Stamp identifies the build of the tool's file beyond its path and the
// version it prints: the size and modification time of the file and, for a
// script (make oracles' private-root wrappers), of every file it names in
// single quotes that is executable (the loader and the program it runs).
// A tool rebuilt in place (a user's own LLVM after ninja, a newer snapshot
// behind an unchanged wrapper) gets a new stamp, so an answer cached under
// the old one is not read for it. Empty when the file cannot be read.
func (t Tool) Stamp() string {
	st, err := os.Stat(t.Path)
	if err != nil {
		return ""
	}
	stamp := fileStamp(t.Path, st)
	if st.Size() > maxWrapper {
		return stamp
	}
	data, err := os.ReadFile(t.Path)
	if err != nil || !bytes.HasPrefix(data, []byte("#!")) {
		return stamp
	}
	for _, m := range quotedPath.FindAllSubmatch(data, -1) {
		p := string(m[1])
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			stamp += " " + fileStamp(p, st)
		}
	}
	return stamp
}

// maxWrapper bounds the size of a script Stamp reads for the files it runs.
const maxWrapper = 16 << 10

// quotedPath is an absolute path in single quotes, as make oracles writes
// them into its wrappers.
var quotedPath = regexp.MustCompile(`'(/[^']+)'`)

func fileStamp(path string, st os.FileInfo) string {
	return fmt.Sprintf("%s:%d:%d", path, st.Size(), st.ModTime().UnixNano())
}
