package valuecheck

import (
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/oracles/emitted"
)

func init() {
	checks[cpasync.Name] = typedKernel(checkCPAsyncValues)
	checks[ldsm.Name] = typedKernel(checkLDSMValues)
}

// checkCPAsyncValues checks the cp.async the copy compiled to: the cache
// operator, the shared and global addresses (the kernel's "dst" and "src"
// parameters where it has them, as llc's intrinsic calls do; else the
// value's addresses, where the mlir renderer places the memrefs' first
// elements), and the source size when the op names srcElements.
func checkCPAsyncValues(v cpasync.Value, k Kernel) *Mismatch {
	for _, in := range k.Insts {
		if !in.Is("cp.async.ca") && !in.Is("cp.async.cg") {
			continue
		}
		if cache := strings.Split(in.Opcode, ".")[2]; cache != v.Cache.String() {
			return &Mismatch{Inst: in, What: fmt.Sprintf("cp.async .%s, want .%s", cache, v.Cache)}
		}
		if len(in.Values) < 3 {
			return nil
		}
		if m := wantAt(in, k.Params, "cp.async", 0, "shared address", address(k.Params, "dst", uint64(v.DstAddr))); m != nil {
			return m
		}
		if m := wantAt(in, k.Params, "cp.async", 1, "global address", address(k.Params, "src", v.SrcAddr)); m != nil {
			return m
		}
		if v.HasSrcElements {
			if len(in.Values) < 4 {
				return &Mismatch{Inst: in, What: fmt.Sprintf("cp.async has no src-size, want %d bytes (%d %s elements)", v.SrcSize(), v.SrcElements, v.Elem)}
			}
			if m := wantConst(in, "cp.async", 3, "src-size", int64(v.SrcSize())); m != nil {
				m.What += fmt.Sprintf(" (%d %s elements)", v.SrcElements, v.Elem)
				return m
			}
		}
	}
	return nil
}

// checkLDSMValues checks that ldmatrix or stmatrix reads or writes the
// shared memory the op names: the kernel's "smem" parameter where it has
// one (llc's), else the memref the mlir renderer places at the value's
// alignment, indices 0.
func checkLDSMValues(v ldsm.Value, k Kernel) *Mismatch {
	want := address(k.Params, "smem", uint64(v.Align))
	for _, in := range k.Insts {
		switch {
		case in.Is("ldmatrix") && len(in.Values) >= 2:
			return wantAt(in, k.Params, "ldmatrix", 1, "shared address", want)
		case in.Is("stmatrix") && len(in.Values) >= 1:
			return wantAt(in, k.Params, "stmatrix", 0, "shared address", want)
		}
	}
	return nil
}

// address is where a kernel's memory operand is: its parameter of that
// role, else the constant address the renderer placed it at.
func address(p map[string]int, role string, at uint64) emitted.Value {
	if _, ok := p[role]; ok {
		return value(p, role)
	}
	return emitted.Const(int64(at))
}

// wantAt is a mismatch when operand i of instruction op holds a known
// value other than want.
func wantAt(in emitted.Inst, p map[string]int, op string, i int, what string, want emitted.Value) *Mismatch {
	if got := in.Values[i]; differs(got, want) {
		return &Mismatch{Inst: in, What: fmt.Sprintf("%s %s %s, want %s", op, what, spell(p, got), spell(p, want))}
	}
	return nil
}

// wantConst is a mismatch when operand i of instruction op holds a known
// constant other than want.
func wantConst(in emitted.Inst, op string, i int, what string, want int64) *Mismatch {
	got := in.Values[i]
	if !got.Known || got.Param >= 0 || got.Off == want {
		return nil
	}
	return &Mismatch{Inst: in, What: fmt.Sprintf("%s %s %d, want %d", op, what, got.Off, want)}
}
