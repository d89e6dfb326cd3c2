package exec

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// maxLine bounds one protocol line, so a verifier printing without newlines
// cannot make legalfuzz buffer without limit.
const maxLine = 64 << 20

// exitGrace is how long a verifier that closed its stdout, or whose stdin
// legalfuzz closed, gets to exit before its process group is killed.
const exitGrace = time.Second

var (
	// errTimedOut: the verifier did not answer before the deadline.
	errTimedOut = errors.New("no answer before the deadline")
	// errLineTooLong: a line longer than maxLine.
	errLineTooLong = fmt.Errorf("line longer than %d bytes", maxLine)
	// errUnread: the verifier answered without reading the whole request.
	errUnread = errors.New("answer came before the whole request was read")
)

// crashError is a verifier whose stdout ended before it answered.
type crashError struct {
	partial []byte // the unterminated last line, if any
}

func (e *crashError) Error() string { return "output ended before an answer" }

// markEnv is set in each verifier's environment to a token of its own
// (proc.mark). Its descendants inherit it, so those that left its process
// group (setsid) are found and ended with it (endMarked): one such child
// outlived a campaign.
const markEnv = "LEGALFUZZ_VERIFIER"

// marks numbers the verifiers this process starts, for their tokens.
var marks atomic.Int64

// proc is one running verifier process, in its own process group.
type proc struct {
	mark    string // markEnv=token in its environment
	cmd     *osexec.Cmd
	stdin   io.WriteCloser
	stdout  *os.File       // our read end; closed by kill so the reader returns
	lines   chan lineMsg   // stdout lines, from readLines
	stop    chan struct{}  // closed by kill: readLines stops sending
	exited  chan struct{}  // closed once the process is reaped
	waitErr error          // cmd.Wait's result, set before exited closes
	stderr  *tail          // the last bytes of stderr
	once    sync.Once      // kill runs once
	readers sync.WaitGroup // readLines
}

type lineMsg struct {
	line []byte
	err  error // io.EOF (with the partial line), errLineTooLong or a read error
}

// startProc starts argv in a new process group. Its stdout is an os.Pipe we
// own, not cmd.StdoutPipe, so the last line written before the process exits
// is never lost to Wait closing the pipe.
func startProc(argv []string, tailBytes int) (*proc, error) {
	cmd := osexec.Command(argv[0], argv[1:]...)
	mark := fmt.Sprintf("%s=%d-%d", markEnv, os.Getpid(), marks.Add(1))
	cmd.Env = append(os.Environ(), mark)
	cmd.SysProcAttr = tool.ChildAttr()
	cmd.WaitDelay = exitGrace // a child holding stderr open cannot block Wait
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	p := &proc{mark: mark, cmd: cmd, stdin: stdin, stdout: r, lines: make(chan lineMsg), stop: make(chan struct{}),
		exited: make(chan struct{}), stderr: newTail(tailBytes)}
	cmd.Stdout, cmd.Stderr = w, p.stderr
	err = cmd.Start()
	_ = w.Close() // the child holds its own copy
	if err != nil {
		_ = r.Close()
		return nil, err
	}
	p.readers.Add(1)
	go p.readLines()
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// readLines sends each stdout line to p.lines until an error or kill.
func (p *proc) readLines() {
	defer p.readers.Done()
	defer close(p.lines)
	br := bufio.NewReaderSize(p.stdout, 64<<10)
	for {
		line, err := readLine(br)
		select {
		case p.lines <- lineMsg{line: line, err: err}:
		case <-p.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// readLine reads one line without its newline, up to maxLine bytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		line = append(line, frag...)
		if len(line) > maxLine {
			return nil, errLineTooLong
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return line, err
		}
		return line[:len(line)-1], nil
	}
}

// next returns the next non-blank stdout line, or errTimedOut at the
// deadline, a *crashError at end of output, or ctx's error.
func (p *proc) next(ctx context.Context, deadline <-chan time.Time) ([]byte, error) {
	for {
		select {
		case m, ok := <-p.lines:
			switch {
			case !ok || errors.Is(m.err, io.EOF) || errors.Is(m.err, os.ErrClosed):
				return nil, &crashError{partial: m.line}
			case m.err != nil:
				return nil, m.err
			case strings.TrimSpace(string(m.line)) == "":
				continue
			}
			return m.line, nil
		case <-deadline:
			return nil, errTimedOut
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// roundTrip writes one request line and reads one answer line within
// timeout. The write runs beside the read, since a verifier that hangs
// before reading would otherwise block us on a full pipe.
func (p *proc) roundTrip(ctx context.Context, req []byte, timeout time.Duration) ([]byte, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	wrote := make(chan error, 1)
	go func() {
		_, err := p.stdin.Write(req)
		wrote <- err
	}()
	line, err := p.next(ctx, timer.C)
	if err != nil {
		return nil, err
	}
	select {
	case werr := <-wrote:
		if werr != nil {
			return nil, fmt.Errorf("%w (%v)", errUnread, werr)
		}
		return line, nil
	case <-timer.C:
		return nil, errUnread
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// idleFault says why an idle verifier cannot take the next batch: it wrote
// a line nobody asked for, or its output ended. Empty when it is fine.
func (p *proc) idleFault() string {
	select {
	case m, ok := <-p.lines:
		if !ok || m.err != nil {
			return "output ended while idle"
		}
		return fmt.Sprintf("wrote while idle: %q", clip(m.line))
	case <-p.exited:
		return "exited while idle (" + p.exitStatus() + ")"
	default:
		return ""
	}
}

// reap waits a short grace for a process whose output ended to exit, then
// kills what is left of its group.
func (p *proc) reap() {
	select {
	case <-p.exited:
	case <-time.After(exitGrace):
	}
	p.kill()
}

// close asks the verifier to exit by closing its stdin (end of session), and
// kills its group after the grace.
func (p *proc) close() {
	_ = p.stdin.Close()
	p.reap()
}

// kill kills the whole process group and waits until the process is reaped
// and the reader has stopped; then it ends the verifier's descendants that
// left the group (endMarked), again while one forked as it was killed.
func (p *proc) kill() {
	p.once.Do(func() {
		close(p.stop)
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		_ = p.stdout.Close() // unblocks readLines
		_ = p.stdin.Close()  // unblocks a pending request write
	})
	<-p.exited
	p.readers.Wait()
	for range 3 {
		if endMarked(p.mark) == 0 {
			break
		}
	}
}

// exitStatus describes how the process ended; call after it exited.
func (p *proc) exitStatus() string {
	if p.waitErr == nil {
		return "exit status 0"
	}
	return p.waitErr.Error()
}

// tail keeps the last bytes written to it, and counts them all so a caller
// can ask for what was written since a mark.
type tail struct {
	mu    sync.Mutex
	buf   []byte
	total int64
	limit int
}

func newTail(limit int) *tail { return &tail{limit: limit} }

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.limit {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.limit:]...)
	}
	t.total += int64(len(b))
	return len(b), nil
}

// mark returns the count of bytes written so far.
func (t *tail) mark() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total
}

// since returns the kept bytes written after mark.
func (t *tail) since(mark int64) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := min(t.total-mark, int64(len(t.buf)))
	return string(t.buf[int64(len(t.buf))-n:])
}
