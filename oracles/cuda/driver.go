package cuda

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// LibraryEnv names the environment variable that overrides the driver
// library's path (default "libcuda.so.1", found by the dynamic loader).
const LibraryEnv = "LEGALFUZZ_LIBCUDA"

// Result is a CUresult.
type Result int32

// The CUresult values legalfuzz tells apart (cuda.h). Any other value is
// named by cuGetErrorName at run time.
const (
	Success              Result = 0
	ErrInvalidValue      Result = 1
	ErrOutOfMemory       Result = 2
	ErrNotInitialized    Result = 3
	ErrNoDevice          Result = 100
	ErrInvalidPTX        Result = 218
	ErrUnsupportedPTX    Result = 222
	ErrNotFound          Result = 500
	ErrNotReady          Result = 600
	ErrIllegalAddress    Result = 700
	ErrLaunchResources   Result = 701
	ErrLaunchTimeout     Result = 702
	ErrAssert            Result = 710
	ErrHardwareStack     Result = 714
	ErrIllegalInstr      Result = 715
	ErrMisalignedAddress Result = 716
	ErrInvalidAddrSpace  Result = 717
	ErrInvalidPC         Result = 718
	ErrLaunchFailed      Result = 719
	ErrNotSupported      Result = 801
)

// knownNames spells the values above for when the driver cannot (it is
// not loaded, or cuGetErrorName itself fails).
var knownNames = map[Result]string{
	Success: "CUDA_SUCCESS", ErrInvalidValue: "CUDA_ERROR_INVALID_VALUE",
	ErrOutOfMemory: "CUDA_ERROR_OUT_OF_MEMORY", ErrNotInitialized: "CUDA_ERROR_NOT_INITIALIZED",
	ErrNoDevice: "CUDA_ERROR_NO_DEVICE", ErrInvalidPTX: "CUDA_ERROR_INVALID_PTX",
	ErrUnsupportedPTX: "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", ErrNotFound: "CUDA_ERROR_NOT_FOUND",
	ErrNotReady: "CUDA_ERROR_NOT_READY", ErrIllegalAddress: "CUDA_ERROR_ILLEGAL_ADDRESS",
	ErrLaunchResources: "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", ErrLaunchTimeout: "CUDA_ERROR_LAUNCH_TIMEOUT",
	ErrAssert: "CUDA_ERROR_ASSERT", ErrHardwareStack: "CUDA_ERROR_HARDWARE_STACK_ERROR",
	ErrIllegalInstr: "CUDA_ERROR_ILLEGAL_INSTRUCTION", ErrMisalignedAddress: "CUDA_ERROR_MISALIGNED_ADDRESS",
	ErrInvalidAddrSpace: "CUDA_ERROR_INVALID_ADDRESS_SPACE", ErrInvalidPC: "CUDA_ERROR_INVALID_PC",
	ErrLaunchFailed: "CUDA_ERROR_LAUNCH_FAILED", ErrNotSupported: "CUDA_ERROR_NOT_SUPPORTED",
}

// Sticky reports whether r is a kernel fault that poisons the context (and,
// on current drivers, the process): the 700-series errors a running kernel
// raises.
func (r Result) Sticky() bool {
	switch r {
	case ErrIllegalAddress, ErrLaunchTimeout, ErrAssert, ErrHardwareStack, ErrIllegalInstr,
		ErrMisalignedAddress, ErrInvalidAddrSpace, ErrInvalidPC, ErrLaunchFailed:
		return true
	}
	return false
}

// Error is a driver call that did not return CUDA_SUCCESS.
type Error struct {
	// Call is the driver entry point, e.g. "cuModuleLoadDataEx".
	Call string
	Code Result
	// Name and Text are cuGetErrorName and cuGetErrorString of Code.
	Name, Text string
}

func (e *Error) Error() string {
	if e.Text == "" {
		return fmt.Sprintf("%s: %s", e.Call, e.Name)
	}
	return fmt.Sprintf("%s: %s (%s)", e.Call, e.Name, e.Text)
}

// Sentinel errors of Open: why there is no usable device. Each is wrapped
// with the detail (the dlopen text, the device's compute capability).
var (
	// ErrNoDriver: libcuda.so.1 could not be loaded or lacks a required
	// entry point.
	ErrNoDriver = errors.New("no CUDA driver")
	// ErrNoCUDADevice: the driver loaded but reports no device.
	ErrNoCUDADevice = errors.New("no CUDA device")
	// ErrOldDevice: the device is older than compute capability 9.0, which
	// tensor maps, TMA and wgmma need.
	ErrOldDevice = errors.New("device too old")
)

// Driver is libcuda.so.1, loaded and initialized. Its function fields are
// the driver entry points; optional ones are nil when the driver lacks them.
// Calls that use a context must run on the OS thread that made the context
// current (see Context).
type Driver struct {
	// Path is the library that was loaded.
	Path string
	// Version is cuDriverGetVersion: 1000*major + 10*minor, e.g. 12040.
	Version int

	cuInit         func(flags uint32) Result
	getErrorName   func(r Result, str **byte) Result
	getErrorString func(r Result, str **byte) Result

	driverGetVersion   func(v *int32) Result
	deviceGetCount     func(n *int32) Result
	deviceGet          func(d *int32, ordinal int32) Result
	deviceGetAttribute func(v *int32, attr int32, d int32) Result
	deviceGetName      func(name *byte, n int32, d int32) Result

	ctxCreateV2   func(ctx *uintptr, flags uint32, d int32) Result                        // cuCtxCreate_v2
	ctxCreateV4   func(ctx *uintptr, params unsafe.Pointer, flags uint32, d int32) Result // optional
	ctxDestroy    func(ctx uintptr) Result
	ctxSetCurrent func(ctx uintptr) Result
	ctxSync       func() Result

	moduleLoadDataEx  func(m *uintptr, image unsafe.Pointer, n uint32, opts unsafe.Pointer, vals unsafe.Pointer) Result
	moduleUnload      func(m uintptr) Result
	moduleGetFunction func(f *uintptr, m uintptr, name *byte) Result
	funcSetAttribute  func(f uintptr, attr int32, v int32) Result
	launchKernel      func(f uintptr, gx, gy, gz, bx, by, bz, shared uint32, stream uintptr, params unsafe.Pointer, extra unsafe.Pointer) Result
	streamQuery       func(stream uintptr) Result

	memAlloc func(p *uint64, n uintptr) Result
	memFree  func(p uint64) Result
	memHtoD  func(dst uint64, src unsafe.Pointer, n uintptr) Result
	memDtoH  func(dst unsafe.Pointer, src uint64, n uintptr) Result
	memsetD8 func(dst uint64, v uint8, n uintptr) Result

	encodeTiled      func(tmap unsafe.Pointer, dtype uint32, rank uint32, gaddr uintptr, gdim, gstrides, box, estrides unsafe.Pointer, interleave, swizzle, l2, oob uint32) Result
	encodeIm2col     func(tmap unsafe.Pointer, dtype uint32, rank uint32, gaddr uintptr, gdim, gstrides, lower, upper unsafe.Pointer, channels, pixels uint32, estrides unsafe.Pointer, interleave, swizzle, l2, oob uint32) Result
	encodeIm2colWide func(tmap unsafe.Pointer, dtype uint32, rank uint32, gaddr uintptr, gdim, gstrides unsafe.Pointer, lowerW, upperW int32, channels, pixels uint32, estrides unsafe.Pointer, interleave, mode, swizzle, l2, oob uint32) Result
}

var (
	loadOnce sync.Once
	loaded   *Driver
	loadErr  error
)

// Load loads and initializes the driver once per process; later calls
// return the same driver or the same error.
func Load() (*Driver, error) {
	loadOnce.Do(func() { loaded, loadErr = load(libraryPath()) })
	return loaded, loadErr
}

func libraryPath() string {
	if p := os.Getenv(LibraryEnv); p != "" {
		return p
	}
	return "libcuda.so.1"
}

// dlopen opens a shared library on one OS thread: dlerror's message is
// per thread, and a goroutine moved between the two calls reads an empty one.
func dlopen(path string) (uintptr, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
}

// load opens path, binds every entry point and calls cuInit(0).
func load(path string) (*Driver, error) {
	lib, err := dlopen(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDriver, err)
	}
	d := &Driver{Path: path}
	if err := d.bind(lib); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNoDriver, path, err)
	}
	if r := d.cuInit(0); r == ErrNoDevice {
		return nil, fmt.Errorf("%w: cuInit: %s", ErrNoCUDADevice, d.Name(r))
	} else if r != Success {
		return nil, fmt.Errorf("%w: %v", ErrNoDriver, d.err("cuInit", r))
	}
	var v int32
	if err := d.check("cuDriverGetVersion", d.driverGetVersion(&v)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDriver, err)
	}
	d.Version = int(v)
	return d, nil
}

// symbol is one entry point to bind; optional ones may be missing.
type symbol struct {
	name     string
	fptr     any
	optional bool
}

// bind looks every entry point up by its exported name (the _v2 names are
// the ABI the unversioned cuda.h names map to). A missing required symbol
// is an error; a missing optional one leaves its field nil.
func (d *Driver) bind(lib uintptr) error {
	syms := []symbol{
		{"cuInit", &d.cuInit, false},
		{"cuGetErrorName", &d.getErrorName, false}, {"cuGetErrorString", &d.getErrorString, false},
		{"cuDriverGetVersion", &d.driverGetVersion, false}, {"cuDeviceGetCount", &d.deviceGetCount, false},
		{"cuDeviceGet", &d.deviceGet, false}, {"cuDeviceGetAttribute", &d.deviceGetAttribute, false},
		{"cuDeviceGetName", &d.deviceGetName, false},
		{"cuCtxCreate_v2", &d.ctxCreateV2, true}, {"cuCtxCreate_v4", &d.ctxCreateV4, true},
		{"cuCtxDestroy_v2", &d.ctxDestroy, false}, {"cuCtxSetCurrent", &d.ctxSetCurrent, false},
		{"cuCtxSynchronize", &d.ctxSync, false},
		{"cuModuleLoadDataEx", &d.moduleLoadDataEx, false}, {"cuModuleUnload", &d.moduleUnload, false},
		{"cuModuleGetFunction", &d.moduleGetFunction, false}, {"cuFuncSetAttribute", &d.funcSetAttribute, false},
		{"cuLaunchKernel", &d.launchKernel, false}, {"cuStreamQuery", &d.streamQuery, false},
		{"cuMemAlloc_v2", &d.memAlloc, false}, {"cuMemFree_v2", &d.memFree, false},
		{"cuMemcpyHtoD_v2", &d.memHtoD, false}, {"cuMemcpyDtoH_v2", &d.memDtoH, false},
		{"cuMemsetD8_v2", &d.memsetD8, false},
		{"cuTensorMapEncodeTiled", &d.encodeTiled, true}, {"cuTensorMapEncodeIm2col", &d.encodeIm2col, true},
		{"cuTensorMapEncodeIm2colWide", &d.encodeIm2colWide, true},
	}
	var missing []string
	for _, s := range syms {
		addr, err := purego.Dlsym(lib, s.name)
		if err != nil || addr == 0 {
			if !s.optional {
				missing = append(missing, s.name)
			}
			continue
		}
		purego.RegisterFunc(s.fptr, addr)
	}
	if d.ctxCreateV2 == nil && d.ctxCreateV4 == nil {
		missing = append(missing, "cuCtxCreate_v2 or cuCtxCreate_v4")
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing entry points %v", missing)
	}
	return nil
}

// HasEncoder reports whether the driver exports the entry point of the
// tensor-map encoding (cuTensorMapEncodeIm2colWide is CUDA 12.8+).
func (d *Driver) HasEncoder(entry string) bool {
	switch entry {
	case EntryTiled:
		return d.encodeTiled != nil
	case EntryIm2col:
		return d.encodeIm2col != nil
	case EntryIm2colWide:
		return d.encodeIm2colWide != nil
	}
	return false
}

// Name is cuGetErrorName of r, or the name from cuda.h when the driver
// cannot say.
func (d *Driver) Name(r Result) string {
	if d != nil && d.getErrorName != nil {
		var s *byte
		if d.getErrorName(r, &s) == Success && s != nil {
			return goString(s)
		}
	}
	if n, ok := knownNames[r]; ok {
		return n
	}
	return fmt.Sprintf("CUresult(%d)", int32(r))
}

// Text is cuGetErrorString of r, or "".
func (d *Driver) Text(r Result) string {
	if d != nil && d.getErrorString != nil {
		var s *byte
		if d.getErrorString(r, &s) == Success && s != nil {
			return goString(s)
		}
	}
	return ""
}

// err builds the Error of a failed call.
func (d *Driver) err(call string, r Result) *Error {
	return &Error{Call: call, Code: r, Name: d.Name(r), Text: d.Text(r)}
}

// check returns nil for CUDA_SUCCESS, else the call's *Error.
func (d *Driver) check(call string, r Result) error {
	if r == Success {
		return nil
	}
	return d.err(call, r)
}

// goString copies the NUL-terminated C string at p.
func goString(p *byte) string {
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

// cbytes allocates n bytes that outlive the call (a slice returned from a
// function is heap-allocated, and Go's heap does not move), for buffers the
// driver writes through pointers that are not arguments of their own.
//
//go:noinline
func cbytes(n int) []byte { return make([]byte, n) }
