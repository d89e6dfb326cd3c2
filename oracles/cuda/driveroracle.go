package cuda

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Oracle names.
const (
	DriverName = oracles.CUDADriver
	JITName    = oracles.CUDAJIT
	GPUName    = oracles.GPU
)

// Install says how to get a device for the oracles of this package.
const Install = "run on a GPU machine (compute capability 9.0+) with the NVIDIA driver installed; " +
	"set " + LibraryEnv + " to libcuda.so.1's path if the dynamic loader cannot find it"

// DriverOracle asks the driver's tensor-map encoders about tmadesc cases:
// cuTensorMapEncodeTiled / Im2col / Im2colWide accept a case when they
// return CUDA_SUCCESS and reject it with the error name otherwise.
type DriverOracle struct {
	ctx *Context
	// AnyTarget makes the oracle judge every case on this device. By
	// default a case whose target is another compute capability is
	// unsupported: the encoders judge for the device they run on.
	AnyTarget bool
}

// DiscoverDriver opens device 0 and makes the cuda-driver oracle; where
// there is no driver or no suitable device the oracle is nil and the
// status says why.
func DiscoverDriver(ctx context.Context) (*DriverOracle, oracles.Status) {
	st := oracles.Status{Name: DriverName, Domains: []string{tmadesc.Name}}
	dev, c, err := openDevice((*Device).NewContext)
	if err != nil {
		st.Reason, st.Install = err.Error(), Install
		return nil, st
	}
	st.Available, st.Version, st.Path, st.Targets = true, Version(dev), dev.Driver.Path, deviceTargets(dev)
	return &DriverOracle{ctx: c}, st
}

// openDevice opens device 0 and then sets up on it what an oracle needs (a
// context, a launch executor). Each oracle of this package is discovered
// this way; an error from either step is the reason its status gives.
func openDevice[T any](setup func(*Device) (T, error)) (*Device, T, error) {
	var zero T
	dev, err := Open(0)
	if err != nil {
		return nil, zero, err
	}
	x, err := setup(dev)
	if err != nil {
		return nil, zero, err
	}
	return dev, x, nil
}

// Version describes the driver and device, e.g. "13.0 NVIDIA H100 sm_90".
func Version(dev *Device) string {
	v := dev.Driver.Version
	return fmt.Sprintf("%d.%d %s sm_%d", v/1000, v%1000/10, dev.Name, dev.SM)
}

// deviceTargets lists the targets whose cases run as written on dev.
func deviceTargets(dev *Device) []string {
	var out []string
	for _, name := range target.ArchNames() {
		if a, err := target.ParseArch(name); err == nil && a.SM == dev.SM {
			out = append(out, name)
		}
	}
	return out
}

// Name is "cuda-driver".
func (o *DriverOracle) Name() string { return DriverName }

// Version is the driver and device.
func (o *DriverOracle) Version() string { return Version(o.ctx.dev) }

// Judges reports whether the domain is tmadesc.
func (o *DriverOracle) Judges(domainName string) bool { return domainName == tmadesc.Name }

// Close destroys the oracle's context.
func (o *DriverOracle) Close() error { return o.ctx.Close() }

// Judge encodes each case. A case for another compute capability, or one
// that needs an encoder this driver lacks, is unsupported. The error is for
// a value of the wrong type or a cancelled ctx.
func (o *DriverOracle) Judge(ctx context.Context, cases []domain.Case) ([]oracles.Verdict, error) {
	out := make([]oracles.Verdict, len(cases))
	for i, c := range cases {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v, ok := c.Value.(tmadesc.Value)
		if !ok {
			return nil, fmt.Errorf("cuda-driver: case %s: value of type %T is not a tmadesc value", c.ID, c.Value)
		}
		out[i] = o.judge(c, v)
	}
	return out, nil
}

func (o *DriverOracle) judge(c domain.Case, v tmadesc.Value) oracles.Verdict {
	verdict := func(kind oracles.Kind, diag, value string) oracles.Verdict {
		return oracles.Verdict{Oracle: DriverName, Version: o.Version(), Case: c.ID, Domain: c.Domain,
			Kind: kind, Diagnostic: diag, Value: value}
	}
	unsupported := func(ns *oracles.NoSpelling) oracles.Verdict {
		v := verdict(oracles.Unsupported, "", "")
		v.Unsupported(ns)
		return v
	}
	dev := o.ctx.dev
	if !o.AnyTarget && v.Tgt.Arch.SM != dev.SM {
		return unsupported(Reasons.New("target", "other-device", "the encoders judge for this device (sm_%d), not %s",
			dev.SM, v.Tgt.Arch))
	}
	call := NewTensorMapCall(v)
	if !dev.Driver.HasEncoder(call.Entry) {
		return unsupported(Reasons.New("entry", "driver-lacks", "driver %d has no %s", dev.Driver.Version, call.Entry))
	}
	var tmap []byte
	err := o.ctx.Do(func() error {
		var err error
		tmap, err = dev.Driver.EncodeTensorMap(call)
		return err
	})
	var de *Error
	switch {
	case err == nil:
		return verdict(oracles.Accept, "", hex.EncodeToString(tmap))
	case errors.As(err, &de) && de.Call == call.Entry:
		return verdict(oracles.Reject, de.Call+": "+de.Name, "")
	}
	return verdict(oracles.Error, err.Error(), "") // the context itself failed
}
