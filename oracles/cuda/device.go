package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Device attributes read with cuDeviceGetAttribute.
const (
	attrCCMajor         = 75 // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
	attrCCMinor         = 76 // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
	attrMaxSharedOptin  = 97 // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
	funcMaxDynamicShare = 8  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
)

// MinSM is the oldest device the oracles use: tensor maps, TMA and wgmma
// need compute capability 9.0.
const MinSM = 90

// Device is one GPU as the driver describes it.
type Device struct {
	Driver  *Driver
	Ordinal int
	Name    string
	// SM is the compute capability times ten: 90 for 9.0, 100 for 10.0.
	SM int
	// MaxSharedBytes is the dynamic shared memory a block may opt in to.
	MaxSharedBytes int
}

// Arch is the device's architecture-specific target (sm_90a, sm_100a):
// the target whose PTX it runs without restriction.
func (d *Device) Arch() target.Arch { return target.Arch{SM: d.SM, Suffix: "a"} }

// Open loads the driver and describes device ordinal. The error wraps
// ErrNoDriver, ErrNoCUDADevice or ErrOldDevice with the detail, so a
// status can say why there is no GPU oracle.
func Open(ordinal int) (*Device, error) {
	drv, err := Load()
	if err != nil {
		return nil, err
	}
	var n int32
	if err := drv.check("cuDeviceGetCount", drv.deviceGetCount(&n)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoCUDADevice, err)
	}
	if int(n) <= ordinal {
		return nil, fmt.Errorf("%w: the driver reports %d devices", ErrNoCUDADevice, n)
	}
	var dev, major, minor, smem int32
	if err := drv.check("cuDeviceGet", drv.deviceGet(&dev, int32(ordinal))); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoCUDADevice, err)
	}
	for _, a := range []struct {
		attr int32
		v    *int32
	}{{attrCCMajor, &major}, {attrCCMinor, &minor}, {attrMaxSharedOptin, &smem}} {
		if err := drv.check("cuDeviceGetAttribute", drv.deviceGetAttribute(a.v, a.attr, dev)); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNoCUDADevice, err)
		}
	}
	name := cbytes(256)
	_ = drv.deviceGetName(&name[0], int32(len(name)), dev)
	d := &Device{Driver: drv, Ordinal: int(dev), Name: goString(&name[0]), SM: int(major*10 + minor),
		MaxSharedBytes: int(smem)}
	if d.SM < MinSM {
		return d, fmt.Errorf("%w: %s has compute capability %d.%d < %d.%d needed", ErrOldDevice, d.Name,
			major, minor, MinSM/10, MinSM%10)
	}
	return d, nil
}

// Context is a CUDA context of its own on a device. Its methods may be
// called from any goroutine: each locks its goroutine to an OS thread and
// makes the context current there for the duration of the call, and a
// mutex keeps calls one at a time.
type Context struct {
	dev *Device
	mu  sync.Mutex
	ctx uintptr
}

// NewContext creates a context on d (cuCtxCreate_v2, or _v4 with default
// parameters on a driver without _v2).
func (d *Device) NewContext() (*Context, error) {
	c := &Context{dev: d}
	if err := c.create(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Context) create() error {
	drv := c.dev.Driver
	var ctx uintptr
	var r Result
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if drv.ctxCreateV2 != nil {
		r = drv.ctxCreateV2(&ctx, 0, int32(c.dev.Ordinal))
	} else {
		params := cbytes(64) // a zeroed CUctxCreateParams: no affinity, no CIG
		r = drv.ctxCreateV4(&ctx, unsafe.Pointer(&params[0]), 0, int32(c.dev.Ordinal))
	}
	if err := drv.check("cuCtxCreate", r); err != nil {
		return err
	}
	c.ctx = ctx
	return nil
}

// Device is the context's device.
func (c *Context) Device() *Device { return c.dev }

// Do runs f with the context current on a locked OS thread.
func (c *Context) Do(f func() error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.do(f)
}

func (c *Context) do(f func() error) error {
	if c.ctx == 0 {
		return errors.New("cuda: context is closed")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := c.dev.Driver.check("cuCtxSetCurrent", c.dev.Driver.ctxSetCurrent(c.ctx)); err != nil {
		return err
	}
	return f()
}

// Recreate destroys the context and makes a new one, after a kernel fault
// left it unusable. Resources of the old context are gone.
func (c *Context) Recreate() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx != 0 {
		_ = c.dev.Driver.ctxDestroy(c.ctx) // a faulted context may refuse; it is abandoned either way
		c.ctx = 0
	}
	return c.create()
}

// Close destroys the context.
func (c *Context) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx == 0 {
		return nil
	}
	err := c.dev.Driver.check("cuCtxDestroy", c.dev.Driver.ctxDestroy(c.ctx))
	c.ctx = 0
	return err
}
