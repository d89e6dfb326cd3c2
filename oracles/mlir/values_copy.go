package mlir

import (
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/oracles/emitted"
)

func init() {
	valueFuncs[cpasync.Name] = typedValues(checkCPAsyncValues)
	valueFuncs[ldsm.Name] = typedValues(checkLDSMValues)
}

// checkCPAsyncValues checks the cp.async the copy lowered to: the cache
// operator, the shared and global addresses of the memrefs' first
// elements (the renderer places them at the value's addresses, indices
// 0), and the source size when the op names srcElements.
func checkCPAsyncValues(v cpasync.Value, ins []emitted.Inst) *mismatch {
	for _, in := range ins {
		if !in.Is("cp.async.ca") && !in.Is("cp.async.cg") {
			continue
		}
		if cache := strings.Split(in.Opcode, ".")[2]; cache != v.Cache.String() {
			return &mismatch{inst: in, what: fmt.Sprintf("cp.async .%s, want .%s", cache, v.Cache)}
		}
		if len(in.Values) < 3 {
			return nil
		}
		if m := wantConst(in, "cp.async", 0, "shared address", int64(v.DstAddr)); m != nil {
			return m
		}
		if m := wantConst(in, "cp.async", 1, "global address", int64(v.SrcAddr)); m != nil {
			return m
		}
		if v.HasSrcElements {
			if len(in.Values) < 4 {
				return &mismatch{inst: in, what: fmt.Sprintf("cp.async has no src-size, want %d bytes (%d %s elements)", v.SrcSize(), v.SrcElements, v.Elem)}
			}
			if m := wantConst(in, "cp.async", 3, "src-size", int64(v.SrcSize())); m != nil {
				m.what += fmt.Sprintf(" (%d %s elements)", v.SrcElements, v.Elem)
				return m
			}
		}
	}
	return nil
}

// checkLDSMValues checks that ldmatrix or stmatrix reads or writes the
// shared memref the op names: the renderer places it at the value's
// alignment, indices 0.
func checkLDSMValues(v ldsm.Value, ins []emitted.Inst) *mismatch {
	for _, in := range ins {
		switch {
		case in.Is("ldmatrix") && len(in.Values) >= 2:
			return wantConst(in, "ldmatrix", 1, "shared address", int64(v.Align))
		case in.Is("stmatrix") && len(in.Values) >= 1:
			return wantConst(in, "stmatrix", 0, "shared address", int64(v.Align))
		}
	}
	return nil
}

// wantConst is a mismatch when operand i of instruction op holds a known
// constant other than want.
func wantConst(in emitted.Inst, op string, i int, what string, want int64) *mismatch {
	got := in.Values[i]
	if !got.Known || got.Param >= 0 || got.Off == want {
		return nil
	}
	return &mismatch{inst: in, what: fmt.Sprintf("%s %s %d, want %d", op, what, got.Off, want)}
}
