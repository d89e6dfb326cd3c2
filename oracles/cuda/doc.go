// Package cuda holds the judges only a GPU machine has: the CUDA driver's
// tensor-map encoder (cuda-driver), the driver's own PTX compiler (cuda-jit),
// CUDA 13's ptxas (ptxas13) and the hardware itself (gpu).
//
// The driver API is loaded at run time from libcuda.so.1 with purego, so the
// package builds with CGO_ENABLED=0 and one binary runs on CPU and GPU
// machines: where there is no driver, no device or too old a device, every
// oracle here reports itself unavailable with the reason, and nothing else
// changes.
//
// What is pure Go, and tested on any machine: the marshalling of a tmadesc
// value into the arguments of cuTensorMapEncode* (TensorMapCall), the tile a
// TMA load must leave in shared memory (ExpectTile, with the swizzle modes and
// the out-of-bounds fill), the per-lane fragments of ldmatrix/stmatrix
// (ExpectLDSM, ExpectSTSM), the product a wgmma computes through a matrix
// descriptor (WGMMAFragments), the kernels' PTX (which CI assembles with
// ptxas 12.4), the layout of every launch (checked against kernels played in
// Go), and the attribution of JIT logs to batched entries. What needs the
// hardware: the driver calls, the JIT and the launches.
//
// Kernels run as data (Launch) through an Executor: in this process
// (DeviceExecutor) or in a child process (ChildExecutor, the binary re-run
// as a launch server by ServeChildIfAsked), so a kernel fault, which current
// drivers make fatal to the whole process, costs a child and is the verdict.
package cuda
