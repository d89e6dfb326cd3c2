package nvvmop

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/opsurface"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// SnapshotFile is the embedded surface, beside this file.
const SnapshotFile = "surface.json"

// snapshotJSON is trunk's NVVM surface as `go test ./oracles/nvvmop -run
// TestSnapshotUpToDate -update` last wrote it. The domain's decoder and
// seeds read it because package fuzz is a leaf: it imports no oracle, so
// it cannot read an installation's surface (oracles/surface runs its
// llvm-tblgen), and a domain must decode and seed on a machine without
// any LLVM. A case names its op by name, so a case written from the
// snapshot means the same op on every installation that has it; the
// judges say which do not (unsupported).
//
//go:embed surface.json
var snapshotJSON []byte

// Snapshot is the embedded surface.
var Snapshot = sync.OnceValue(func() opsurface.Surface {
	var s opsurface.Surface
	if err := json.Unmarshal(snapshotJSON, &s); err != nil || len(s.Ops) == 0 {
		panic(fmt.Sprintf("nvvmop: the embedded %s is not a surface: %v", SnapshotFile, err)) // our own file, checked by its tests
	}
	return s
})

// Ops are the snapshot's ops a case can be written of and judged by the
// chain: instantiable, with a translation of their own.
var Ops = sync.OnceValue(func() []opsurface.Op {
	var out []opsurface.Op
	for _, op := range Snapshot().Ops {
		if op.Unusable == nil && op.Lowering.Kind != opsurface.NoLowering {
			out = append(out, op)
		}
	}
	return out
})

// Seeds are each op's first case (First), and one below the target rule:
// the first op's first case at a PTX ISA version older than its target's
// first one.
func Seeds() []domain.Value {
	var out []domain.Value
	for _, op := range Ops() {
		if v, err := First(op); err == nil {
			out = append(out, v)
		}
	}
	if len(out) > 0 {
		v := out[0].(Value)
		v.Arch = target.Target{Arch: v.Arch.Arch, PTX: 60}
		out = append(out, v)
	}
	return out
}

// Domain is the nvvmop domain.
var Domain = domain.Domain{
	Name:       Name,
	Doc:        "one NVVM op as an LLVM installation's TableGen sources define it: its operand, result and attribute spellings, and the target it is judged for",
	FuzzTarget: "FuzzNVVMOp",
	Decode:     Decode,
	ParseJSON:  func(data []byte) (domain.Value, error) { return ParseJSON(data) },
	Seeds:      Seeds,
}
