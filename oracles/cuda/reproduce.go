package cuda

import (
	"context"
	"encoding/json"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
)

// Reproducer replays the CUDA driver's verdicts (cuda-driver, cuda-jit):
// they run only on a GPU machine, so a bundle holds their input and
// legalfuzz check replays them there.
type Reproducer struct{}

// Reproduce writes the driver call's parameters, or the module the JIT
// compiles.
func (Reproducer) Reproduce(_ context.Context, r oracles.ReproRequest) oracles.Reproduction {
	if r.Name == DriverName {
		return driverCall(r.Case)
	}
	rep := ptx.Reproduction(r.Case)
	rep.Commands = append(rep.Commands, "# the driver's JIT (cuModuleLoadDataEx) compiles "+oracles.PTXFile+" on a GPU machine; legalfuzz check runs it there")
	return rep
}

// Filing files the driver's bugs with NVIDIA.
func (Reproducer) Filing() oracles.Filing {
	return oracles.Filing{Input: oracles.PTXFile, Component: oracles.Component{Tag: "NVIDIA (CUDA driver)", Name: "the CUDA driver", Tracker: "NVIDIA"},
		Tool: "the CUDA driver", Subject: ptx.Subject}
}

// GPUReproducer replays the gpu oracle's verdicts: a bundle holds the
// input of its kernels, and legalfuzz check runs them on a GPU machine.
type GPUReproducer struct{}

// Reproduce writes a tmadesc case's tensor map call, else the module the
// kernels are built from.
func (GPUReproducer) Reproduce(_ context.Context, r oracles.ReproRequest) oracles.Reproduction {
	if r.Case.Domain == tmadesc.Name {
		rep := driverCall(r.Case)
		rep.Commands = append(rep.Commands, "# the gpu oracle then runs a TMA load with this tensor map; legalfuzz check runs it on a GPU machine")
		return rep
	}
	rep := ptx.Reproduction(r.Case)
	rep.Commands = append(rep.Commands, "# the gpu oracle runs kernels built from "+oracles.PTXFile+" and compares what they compute; legalfuzz check runs them on a GPU machine")
	return rep
}

// Filing files what the GPU computes wrong with NVIDIA.
func (GPUReproducer) Filing() oracles.Filing {
	return oracles.Filing{Component: oracles.Component{Tag: "NVIDIA (CUDA driver)", Name: "the CUDA driver and the GPU", Tracker: "NVIDIA"},
		Tool: "the CUDA driver", Subject: ptx.Subject}
}

// driverCall writes a tmadesc case's cuTensorMapEncode* call parameters.
func driverCall(c domain.Case) oracles.Reproduction {
	v, ok := c.Value.(tmadesc.Value)
	if !ok {
		return oracles.Reproduction{Commands: []string{"# no driver call for domain " + c.Domain}}
	}
	call := NewTensorMapCall(v)
	data, err := json.MarshalIndent(map[string]any{"entry": call.Entry, "call": call, "c": call.String()}, "", "  ")
	if err != nil {
		return oracles.NotWritten(oracles.DriverFile, err.Error())
	}
	return oracles.Reproduction{Files: []oracles.ReproFile{{Name: oracles.DriverFile, Text: string(data) + "\n"}}, Input: oracles.DriverFile,
		Commands: []string{"# the driver call (parameters in " + oracles.DriverFile + "), made on a GPU machine by legalfuzz check:", "# " + call.String()}}
}
