package cuda

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// Launch is one kernel launch as plain data: the module, the grid, the
// device buffers with their initial contents, tensor maps to encode into
// them once their addresses are known, and the kernel's parameters. Being
// data, a launch runs the same in this process or in a child process that
// a kernel fault may kill (see ChildExecutor).
type Launch struct {
	PTX    string
	Kernel string
	Grid   [3]uint32
	Block  [3]uint32
	// SharedBytes is the dynamic shared memory of each block.
	SharedBytes uint32
	Buffers     []Buffer
	Maps        []MapPatch
	Pointers    []PointerPatch
	Params      []Param
	// Timeout bounds the launch on the host, as a backstop to the kernels'
	// own bounded waits; zero means DefaultLaunchTimeout.
	Timeout time.Duration
}

// DefaultLaunchTimeout bounds a launch whose Timeout is zero.
const DefaultLaunchTimeout = 30 * time.Second

// Buffer is one device allocation: Size bytes, Init copied in (the rest
// zero), read back after the kernel when ReadBack is set.
type Buffer struct {
	Size     int    `json:"size"`
	Init     []byte `json:"init,omitempty"`
	ReadBack bool   `json:"read_back,omitempty"`
}

// MapPatch encodes Call in the launch's context, with its global address
// replaced by buffer Global's address plus GlobalOffset, and writes the
// 128-byte CUtensorMap into buffer Buffer at Offset.
type MapPatch struct {
	Buffer, Offset int
	Call           TensorMapCall
	Global         int
	GlobalOffset   uint64
}

// PointerPatch writes the device address of buffer Target plus Add, as a
// little-endian u64, into buffer Buffer at Offset.
type PointerPatch struct {
	Buffer, Offset, Target int
	Add                    uint64
}

// Param is one kernel parameter: the address of buffer Buffer plus Add
// (a .u64), or, when Buffer is -1, Value in Size bytes (4 or 8).
type Param struct {
	Buffer int
	Add    uint64
	Value  uint64
	Size   int
}

// Ptr is the parameter holding buffer b's address.
func Ptr(b int) Param { return Param{Buffer: b, Size: 8} }

// U32 is a .u32 parameter.
func U32(v uint32) Param { return Param{Buffer: -1, Value: uint64(v), Size: 4} }

// LaunchResult is what a launch did.
type LaunchResult struct {
	// MapErrors holds, per MapPatch, the encoder's error name ("" when it
	// encoded); when any is set the kernel did not run.
	MapErrors []string `json:"map_errors,omitempty"`
	// Fault is the error name of a failed launch or of the kernel (e.g.
	// CUDA_ERROR_MISALIGNED_ADDRESS); Sticky says the fault ruined the context.
	Fault     string `json:"fault,omitempty"`
	FaultText string `json:"fault_text,omitempty"`
	Sticky    bool   `json:"sticky,omitempty"`
	// TimedOut: the kernel was still running at the host-side deadline.
	TimedOut bool `json:"timed_out,omitempty"`
	// Buffers holds the contents of every ReadBack buffer (nil for others).
	Buffers [][]byte      `json:"buffers,omitempty"`
	Elapsed time.Duration `json:"elapsed"`
}

// Ran reports whether the kernel ran to completion.
func (r LaunchResult) Ran() bool {
	return r.Fault == "" && !r.TimedOut && !r.mapFailed()
}

func (r LaunchResult) mapFailed() bool {
	for _, e := range r.MapErrors {
		if e != "" {
			return true
		}
	}
	return false
}

// Executor runs launches. Its error is for harness failures (no device,
// a child that died without answering); what the kernel did is the result.
type Executor interface {
	Run(ctx context.Context, l Launch) (LaunchResult, error)
	Close() error
}

// DeviceExecutor runs launches in this process, on a context of its own.
// After a sticky fault it recreates the context; where the driver poisons
// the whole process instead, later runs fail and ChildExecutor is the
// remedy.
type DeviceExecutor struct {
	mu      sync.Mutex
	ctx     *Context
	modules map[[32]byte]uintptr
	broken  error // the context could not be made again after a fault
}

// NewDeviceExecutor makes an executor with its own context on dev.
func NewDeviceExecutor(dev *Device) (*DeviceExecutor, error) {
	c, err := dev.NewContext()
	if err != nil {
		return nil, err
	}
	return &DeviceExecutor{ctx: c, modules: map[[32]byte]uintptr{}}, nil
}

// Close destroys the context (and with it every cached module).
func (e *DeviceExecutor) Close() error { return e.ctx.Close() }

// Run runs one launch.
func (e *DeviceExecutor) Run(ctx context.Context, l Launch) (LaunchResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.broken != nil {
		return LaunchResult{}, e.broken
	}
	var res LaunchResult
	start := time.Now()
	err := e.ctx.Do(func() error {
		var err error
		res, err = e.run(ctx, l)
		return err
	})
	res.Elapsed = time.Since(start)
	if res.Sticky {
		// The fault is this launch's result; a context that cannot be made
		// again (drivers that poison the process) fails the next launches.
		e.modules = map[[32]byte]uintptr{}
		if rerr := e.ctx.Recreate(); rerr != nil {
			e.broken = fmt.Errorf("cuda: context unusable after %s: %w", res.Fault, rerr)
		}
	}
	return res, err
}

// run does the launch with the context current.
func (e *DeviceExecutor) run(ctx context.Context, l Launch) (LaunchResult, error) {
	drv := e.ctx.dev.Driver
	addrs, err := e.alloc(l.Buffers)
	var res LaunchResult
	defer func() {
		if res.TimedOut {
			return // the kernel may still use them; the context goes with them
		}
		for _, a := range addrs {
			_ = drv.memFree(a)
		}
	}()
	if err != nil {
		return LaunchResult{}, err
	}
	images, res := e.images(l, addrs)
	if res.mapFailed() {
		return res, nil
	}
	for i, img := range images {
		if err := drv.check("cuMemcpyHtoD", drv.memHtoD(addrs[i], unsafe.Pointer(&img[0]), uintptr(len(img)))); err != nil {
			return res, err
		}
	}
	fn, err := e.function(l)
	if err != nil {
		return res, err
	}
	if f := e.launch(ctx, fn, l, addrs); f != nil {
		res.Fault, res.FaultText, res.Sticky, res.TimedOut = f.name, f.text, f.sticky, f.timedOut
		return res, nil
	}
	res.Buffers = make([][]byte, len(l.Buffers))
	for i, b := range l.Buffers {
		if !b.ReadBack {
			continue
		}
		out := cbytes(b.Size)
		if err := drv.check("cuMemcpyDtoH", drv.memDtoH(unsafe.Pointer(&out[0]), addrs[i], uintptr(b.Size))); err != nil {
			return res, err
		}
		res.Buffers[i] = out
	}
	return res, nil
}

// alloc allocates every buffer; on error the addresses so far are returned
// for freeing.
func (e *DeviceExecutor) alloc(bufs []Buffer) ([]uint64, error) {
	drv := e.ctx.dev.Driver
	addrs := make([]uint64, 0, len(bufs))
	for _, b := range bufs {
		if b.Size <= 0 || len(b.Init) > b.Size {
			return addrs, fmt.Errorf("cuda: bad buffer: size %d, init %d bytes", b.Size, len(b.Init))
		}
		var a uint64
		if err := drv.check("cuMemAlloc", drv.memAlloc(&a, uintptr(b.Size))); err != nil {
			return addrs, err
		}
		addrs = append(addrs, a)
	}
	return addrs, nil
}

// images builds each buffer's initial contents with the pointer and tensor
// map patches applied; tensor-map encoder failures are the result.
func (e *DeviceExecutor) images(l Launch, addrs []uint64) ([][]byte, LaunchResult) {
	drv := e.ctx.dev.Driver
	images := make([][]byte, len(l.Buffers))
	for i, b := range l.Buffers {
		images[i] = cbytes(b.Size)
		copy(images[i], b.Init)
	}
	for _, p := range l.Pointers {
		binary.LittleEndian.PutUint64(images[p.Buffer][p.Offset:], addrs[p.Target]+p.Add)
	}
	res := LaunchResult{MapErrors: make([]string, len(l.Maps))}
	for i, m := range l.Maps {
		call := m.Call
		call.Value.GlobalAddress = addrs[m.Global] + m.GlobalOffset
		tmap, err := drv.EncodeTensorMap(call)
		if err != nil {
			res.MapErrors[i] = errorName(err)
			continue
		}
		copy(images[m.Buffer][m.Offset:], tmap)
	}
	return images, res
}

// errorName is the CUresult name of a driver error, or its text.
func errorName(err error) string {
	var de *Error
	if errors.As(err, &de) {
		return de.Name
	}
	return err.Error()
}

// function loads the launch's module (cached by its text) and finds the
// kernel, raising its dynamic shared memory limit when it asks for more
// than the default 48 KiB.
func (e *DeviceExecutor) function(l Launch) (uintptr, error) {
	drv := e.ctx.dev.Driver
	key := sha256.Sum256([]byte(l.PTX))
	mod, ok := e.modules[key]
	if !ok {
		m, jitLog, err := loadModule(drv, l.PTX)
		if err != nil {
			return 0, fmt.Errorf("cuda: kernel %s does not load: %w: %s", l.Kernel, err, jitLog)
		}
		e.modules[key], mod = m, m
	}
	name := cbytes(len(l.Kernel) + 1)
	copy(name, l.Kernel)
	var fn uintptr
	if err := drv.check("cuModuleGetFunction", drv.moduleGetFunction(&fn, mod, &name[0])); err != nil {
		return 0, err
	}
	if l.SharedBytes > 48<<10 {
		if err := drv.check("cuFuncSetAttribute", drv.funcSetAttribute(fn, funcMaxDynamicShare, int32(l.SharedBytes))); err != nil {
			return 0, err
		}
	}
	return fn, nil
}

// fault is what went wrong with a launch.
type fault struct {
	name, text       string
	sticky, timedOut bool
}

// launch starts the kernel and waits for it, polling the stream so a
// kernel that does not finish is reported at the deadline instead of
// hanging the worker.
func (e *DeviceExecutor) launch(ctx context.Context, fn uintptr, l Launch, addrs []uint64) *fault {
	drv := e.ctx.dev.Driver
	arena, ptrs := kernelParams(l.Params, addrs)
	r := drv.launchKernel(fn, l.Grid[0], l.Grid[1], l.Grid[2], l.Block[0], l.Block[1], l.Block[2],
		l.SharedBytes, 0, unsafe.Pointer(&ptrs[0]), nil)
	runtime.KeepAlive(arena)
	if r != Success {
		return &fault{name: drv.Name(r), text: drv.Text(r), sticky: r.Sticky()}
	}
	timeout := l.Timeout
	if timeout <= 0 {
		timeout = DefaultLaunchTimeout
	}
	deadline := time.Now().Add(timeout)
	for pause := 10 * time.Microsecond; ; pause = min(2*pause, 10*time.Millisecond) {
		switch r := drv.streamQuery(0); {
		case r == Success:
			return nil
		case r != ErrNotReady:
			return &fault{name: drv.Name(r), text: drv.Text(r), sticky: r.Sticky()}
		case time.Now().After(deadline) || ctx.Err() != nil:
			return &fault{name: "host deadline", text: fmt.Sprintf("kernel still running after %s", timeout),
				sticky: true, timedOut: true}
		}
		time.Sleep(pause)
	}
}

// kernelParams lays the parameters out for cuLaunchKernel: each value in
// an 8-byte slot of arena, and ptrs the array of their addresses (one more
// slot, so an empty list still has an element to point at).
func kernelParams(params []Param, addrs []uint64) (arena, ptrs []byte) {
	arena, ptrs = cbytes(8*len(params)+8), cbytes(8*len(params)+8)
	for i, p := range params {
		v := p.Value
		if p.Buffer >= 0 {
			v = addrs[p.Buffer] + p.Add
		}
		if p.Size == 4 {
			binary.LittleEndian.PutUint32(arena[8*i:], uint32(v))
		} else {
			binary.LittleEndian.PutUint64(arena[8*i:], v)
		}
		*(*uintptr)(unsafe.Pointer(&ptrs[8*i])) = uintptr(unsafe.Pointer(&arena[8*i]))
	}
	return arena, ptrs
}
