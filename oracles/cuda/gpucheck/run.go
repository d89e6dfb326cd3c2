package gpucheck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// runTo runs one program as exec does, its standard output into the file
// at path (into the log when path is empty) and its standard error into
// the log, or into the file too when both is set.
func (c *check) runTo(ctx context.Context, timeout time.Duration, path string, both bool, dir, prog string, args ...string) Step {
	if path == "" {
		return c.exec(ctx, timeout, c.log, c.log, dir, prog, args...)
	}
	f, err := create(path)
	if err != nil {
		return Step{Status: Failed, Reason: err.Error()}
	}
	defer f.Close()
	var stderr io.Writer = c.log
	if both {
		stderr = f
	}
	st := c.exec(ctx, timeout, f, stderr, dir, prog, args...)
	st.Files = []string{filepath.Base(path)}
	return st
}

// exec runs one program under a deadline with the check's environment, in
// dir (the working folder when empty), its output going to stdout and
// stderr. At the
// deadline the program's group gets SIGINT, so a campaign closes its store,
// and SIGKILL ten seconds later. Exit status 1 is a result (legalfuzz's
// "findings"), not a failure.
func (c *check) exec(ctx context.Context, timeout time.Duration, stdout, stderr io.Writer, dir, prog string, args ...string) Step {
	c.logf("$ %s %s", prog, strings.Join(args, " "))
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, prog, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), c.env...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = tool.ChildAttr()
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what the program left running
	}
	var exit *exec.ExitError
	switch {
	case runCtx.Err() != nil:
		return Step{Status: Failed, Reason: fmt.Sprintf("stopped after %s: %v", timeout, err)}
	case err == nil:
		return Step{Status: OK}
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return Step{Status: OK, Exit: 1}
	default:
		return Step{Status: Failed, Reason: err.Error()}
	}
}

// capped is a file that keeps its first MaxFileBytes and counts the rest.
type capped struct {
	f       *os.File
	n       int64
	dropped int64
}

func create(path string) (*capped, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("gpu check: %w", err)
	}
	return &capped{f: f}, nil
}

func (c *capped) Write(p []byte) (int, error) {
	room := MaxFileBytes - c.n
	keep := int64(len(p))
	if keep > room {
		keep = max(room, 0)
	}
	if keep > 0 {
		if _, err := c.f.Write(p[:keep]); err != nil {
			return 0, err
		}
		c.n += keep
	}
	c.dropped += int64(len(p)) - keep
	return len(p), nil
}

func (c *capped) Close() error {
	if c.dropped > 0 {
		fmt.Fprintf(c.f, "\n[gpu check: %d more bytes left out]\n", c.dropped)
	}
	return c.f.Close()
}

func copyCapped(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("gpu check: %w", err)
	}
	defer in.Close()
	out, err := create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("gpu check: %s: %w", dst, err)
	}
	return out.Close()
}
