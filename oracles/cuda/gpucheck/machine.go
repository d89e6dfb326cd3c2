package gpucheck

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/legalfuzz/legalfuzz/oracles/cuda"
)

// libcudaDirs are where GPU images keep the driver library when the
// dynamic loader is not told about it.
var libcudaDirs = []string{"/usr/local/nvidia/lib64", "/usr/local/nvidia/lib", "/usr/lib/x86_64-linux-gnu",
	"/usr/lib64", "/usr/local/cuda/compat"}

// machine records what the GPU machine is: the GPU and its driver, the
// CUDA toolkit and its ptxas, where libcuda is. Where the loader does not
// know libcuda, it points the steps after it at the library it found
// (LEGALFUZZ_LIBCUDA). Without nvidia-smi it is unavailable: no GPU here.
func (c *check) machine(ctx context.Context) Step {
	path := filepath.Join(c.Out, MachineFile)
	f, err := create(path)
	if err != nil {
		return Step{Status: Failed, Reason: err.Error()}
	}
	defer f.Close()
	probe := func(prog string, args ...string) bool {
		fmt.Fprintf(f, "$ %s %s\n", prog, strings.Join(args, " "))
		if _, err := exec.LookPath(prog); err != nil {
			fmt.Fprintf(f, "not found: %v\n\n", err)
			return false
		}
		st := c.exec(ctx, 20*time.Second, f, f, "", prog, args...)
		fmt.Fprintf(f, "[%s %s]\n\n", st.Status, st.Reason)
		return st.Status == OK
	}
	probe("uname", "-a")
	probe(c.Exe, "--version")
	gpu := probe("nvidia-smi")
	probe("nvidia-smi", "--query-gpu=name,driver_version,compute_cap,memory.total,clocks.max.sm,pci.bus_id", "--format=csv")
	for _, p := range c.PTXAS {
		probe(p, "--version")
	}
	probe("nvcc", "--version")
	probe("ldconfig", "-p")
	if lib := c.findLibcuda(); lib != "" {
		c.env = append(c.env, cuda.LibraryEnv+"="+lib)
		fmt.Fprintf(f, "the loader does not list libcuda.so.1; the steps get %s=%s\n", cuda.LibraryEnv, lib)
	}
	st := Step{Status: OK, Files: []string{MachineFile}}
	if !gpu {
		st.Status, st.Reason = Unavailable, "no nvidia-smi here: not a GPU machine"
	}
	return st
}

// findLibcuda returns a libcuda.so.1 for LEGALFUZZ_LIBCUDA, or "" when that
// is set already, the loader lists the library, or there is none.
func (c *check) findLibcuda() string {
	if os.Getenv(cuda.LibraryEnv) != "" {
		return ""
	}
	if out, err := exec.Command("ldconfig", "-p").Output(); err == nil && strings.Contains(string(out), "libcuda.so.1 ") {
		return ""
	}
	for _, d := range filepath.SplitList(os.Getenv("LD_LIBRARY_PATH")) {
		if isFile(filepath.Join(d, "libcuda.so.1")) {
			return ""
		}
	}
	for _, d := range libcudaDirs {
		if p := filepath.Join(d, "libcuda.so.1"); isFile(p) {
			return p
		}
	}
	return ""
}
