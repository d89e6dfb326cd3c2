package cuda

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// ChildEnv is the environment variable that turns a legalfuzz process (or
// a test binary) into a launch server for its parent: its value is the
// device ordinal. See ServeChildIfAsked. The child also loads modules for
// the cuda-jit oracle, so a driver JIT that crashes costs a child too.
const ChildEnv = "LEGALFUZZ_CUDA_CHILD"

// childProtocol names the protocol in the child's first line.
const childProtocol = "legalfuzz-cuda-child/2"

// childHello is the child's first line: the protocol and its device, or
// why it has none.
type childHello struct {
	Protocol string `json:"protocol"`
	Device   string `json:"device,omitempty"`
	SM       int    `json:"sm,omitempty"`
	Error    string `json:"error,omitempty"`
}

// childRequest asks for one launch, or one module load by the JIT.
type childRequest struct {
	Launch *Launch `json:"launch,omitempty"`
	PTX    string  `json:"ptx,omitempty"`
}

// childReply answers one request.
type childReply struct {
	Result LaunchResult `json:"result"`
	JIT    *JITResult   `json:"jit,omitempty"`
	Error  string       `json:"error,omitempty"`
}

// ErrNoChild: the child process did not speak the launch protocol (the
// binary does not call ServeChildIfAsked) or died before answering.
var ErrNoChild = errors.New("no launch child")

// ServeChildIfAsked makes this process a launch server when ChildEnv is
// set, and then exits; otherwise it returns at once. Call it first thing
// in main (and in TestMain of tests that launch kernels), so a kernel fault
// kills a child, not the worker: current drivers leave the whole process
// unusable after a sticky fault.
func ServeChildIfAsked() {
	v := os.Getenv(ChildEnv)
	if v == "" {
		return
	}
	ordinal, _ := strconv.Atoi(v)
	os.Exit(serveChild(os.Stdin, os.Stdout, ordinal))
}

// serveChild runs launches read as JSON lines from in, answering each on
// out, until in ends or a sticky fault ruins the process.
func serveChild(in io.Reader, out io.Writer, ordinal int) int {
	enc := json.NewEncoder(out)
	dev, err := Open(ordinal)
	var ex *DeviceExecutor
	if err == nil {
		ex, err = NewDeviceExecutor(dev)
	}
	if err != nil {
		_ = enc.Encode(childHello{Protocol: childProtocol, Error: err.Error()})
		return 1
	}
	defer ex.Close()
	if err := enc.Encode(childHello{Protocol: childProtocol, Device: dev.Name, SM: dev.SM}); err != nil {
		return 1
	}
	dec := json.NewDecoder(bufio.NewReader(in))
	for {
		var req childRequest
		if err := dec.Decode(&req); err != nil {
			return 0 // the parent closed the pipe
		}
		var reply childReply
		var err error
		if req.Launch != nil {
			reply.Result, err = ex.Run(context.Background(), *req.Launch)
		} else {
			var jr JITResult
			jr, err = contextLoader{ex.ctx}.LoadModule(context.Background(), req.PTX)
			reply.JIT = &jr
		}
		if err != nil {
			reply.Error = err.Error()
		}
		if enc.Encode(reply) != nil || reply.Result.Sticky {
			return 0 // the parent starts a fresh child for the next launch
		}
	}
}

// ChildExecutor runs each launch in a child process (this binary re-run
// with ChildEnv set), so a kernel fault or a hung kernel costs a child, not
// the worker. A child serves launches until one faults; the next launch
// starts a fresh one.
type ChildExecutor struct {
	// Command is the child's argv; empty means this executable.
	Command []string
	// Ordinal is the device the child opens.
	Ordinal int
	// StartTimeout bounds the child's start-up; zero means 60s.
	StartTimeout time.Duration

	mu    sync.Mutex
	cmd   *exec.Cmd
	stdin io.WriteCloser
	dec   *json.Decoder
	hello childHello
}

// Start starts the child if none runs and returns its greeting; the error
// wraps ErrNoChild when the binary does not serve launches.
func (c *ChildExecutor) Start(ctx context.Context) (string, int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.start(ctx); err != nil {
		return "", 0, err
	}
	return c.hello.Device, c.hello.SM, nil
}

func (c *ChildExecutor) start(ctx context.Context) error {
	if c.cmd != nil {
		return nil
	}
	argv := c.Command
	if len(argv) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("%w: %v", ErrNoChild, err)
		}
		argv = []string{exe}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", ChildEnv, c.Ordinal))
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = tool.ChildAttr()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%w: %v", ErrNoChild, err)
	}
	c.cmd, c.stdin, c.dec = cmd, stdin, json.NewDecoder(bufio.NewReader(stdout))
	timeout := c.StartTimeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	var h childHello
	if err := c.receive(ctx, timeout, &h); err != nil || h.Protocol != childProtocol {
		c.kill()
		return fmt.Errorf("%w: %s did not greet with %s (%v)", ErrNoChild, argv[0], childProtocol, err)
	}
	if h.Error != "" {
		c.kill()
		return fmt.Errorf("%w: %s", ErrNoChild, h.Error)
	}
	c.hello = h
	return nil
}

// Run sends the launch to the child and waits for its answer, killing the
// child at the launch's deadline (plus start-up slack).
func (c *ChildExecutor) Run(ctx context.Context, l Launch) (LaunchResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.start(ctx); err != nil {
		return LaunchResult{}, err
	}
	start := time.Now()
	timeout := l.Timeout
	if timeout <= 0 {
		timeout = DefaultLaunchTimeout
	}
	var reply childReply
	if err := c.ask(ctx, childRequest{Launch: &l}, timeout+30*time.Second, &reply); err != nil {
		if ctx.Err() != nil {
			return LaunchResult{}, ctx.Err()
		}
		if errors.Is(err, errDeadline) {
			return LaunchResult{Fault: "host deadline", FaultText: "the child was killed: " + err.Error(),
				Sticky: true, TimedOut: true, Elapsed: time.Since(start)}, nil
		}
		return LaunchResult{Fault: "child died", FaultText: err.Error(), Sticky: true, Elapsed: time.Since(start)}, nil
	}
	if reply.Result.Sticky {
		c.kill() // it exits by itself; make sure
	}
	if reply.Error != "" {
		return reply.Result, fmt.Errorf("cuda child: %s", reply.Error)
	}
	return reply.Result, nil
}

// JITTimeout bounds one module load in the child.
const JITTimeout = 2 * time.Minute

// LoadModule has the child JIT-compile a module (ModuleLoader). A child
// that dies loading it, or outlives JITTimeout, is the JIT crashing or
// hanging on this module: a result, with how the child ended.
func (c *ChildExecutor) LoadModule(ctx context.Context, ptx string) (JITResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.start(ctx); err != nil {
		return JITResult{}, err
	}
	var reply childReply
	if err := c.ask(ctx, childRequest{PTX: ptx}, JITTimeout, &reply); err != nil {
		if ctx.Err() != nil {
			return JITResult{}, ctx.Err()
		}
		return JITResult{Code: "JIT crashed", Crashed: true, Log: "cuModuleLoadDataEx ended the process: " + err.Error()}, nil
	}
	if reply.Error != "" || reply.JIT == nil {
		return JITResult{}, fmt.Errorf("cuda child: %s", reply.Error)
	}
	return *reply.JIT, nil
}

// ask sends one request and decodes the answer; on any failure the child
// is killed, and the error says how it ended.
func (c *ChildExecutor) ask(ctx context.Context, req childRequest, timeout time.Duration, reply *childReply) error {
	if err := json.NewEncoder(c.stdin).Encode(req); err != nil {
		return fmt.Errorf("%w: %v (%s)", ErrNoChild, err, c.kill())
	}
	if err := c.receive(ctx, timeout, reply); err != nil {
		return fmt.Errorf("%w (%s)", err, c.kill())
	}
	return nil
}

var errDeadline = errors.New("no answer before the deadline")

// receive decodes one line into v, or gives up at the timeout. The line is
// read by a goroutine into its own buffer, so a late answer touches nothing
// of the caller's.
func (c *ChildExecutor) receive(ctx context.Context, timeout time.Duration, v any) error {
	type line struct {
		raw json.RawMessage
		err error
	}
	done := make(chan line, 1)
	dec := c.dec
	go func() {
		var l line
		l.err = dec.Decode(&l.raw)
		done <- l
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case l := <-done:
		if l.err != nil {
			return l.err
		}
		return json.Unmarshal(l.raw, v)
	case <-t.C:
		return fmt.Errorf("%w (%s)", errDeadline, timeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// kill ends the child and its process group, forgets it, and says how it
// ended ("signal: segmentation fault" for one that crashed by itself).
func (c *ChildExecutor) kill() string {
	if c.cmd == nil {
		return "no child"
	}
	_ = c.stdin.Close()
	ended := ""
	if c.cmd.Process != nil {
		// One that died by itself has ended, or ends within moments of
		// closing its input; only then is it killed.
		done := make(chan error, 1)
		go func() { done <- c.cmd.Wait() }()
		select {
		case err := <-done:
			ended = exitText(err)
		case <-time.After(2 * time.Second):
			_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
			<-done
			ended = "killed"
		}
	}
	c.cmd, c.stdin, c.dec = nil, nil, nil
	return ended
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// Close stops the child.
func (c *ChildExecutor) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.kill()
	return nil
}
