package ptx

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
)

func init() { register(cpasync.Name, renderCPAsync) }

// renderCPAsync spells one cp.async and waits for it:
// cp.async.cop.shared.global{.L2::cache_hint}{.L2::NB} [dst], [src],
// cp-size{, src-size}{, ignore-src}{, cache-policy}; then commit_group and
// wait_group 0. cp-size is the seed's lowering (dstElements × element
// bytes) and src-size likewise, both immediates; the addresses are the
// value's, in registers. Element types and memref strides belong to the
// nvgpu op and have no PTX spelling: cp.async is untyped.
func renderCPAsync(v cpasync.Value, k *kernel) error {
	var hint, prefetch string
	if v.CacheHint {
		hint = "L2::cache_hint"
	}
	if v.Prefetch != cpasync.PrefetchNone {
		prefetch = "L2::" + v.Prefetch.String()
	}
	name := mods("cp.async", v.Cache.String(), "shared", "global", hint, prefetch)
	ops := []string{
		"[" + k.value(b32, uint64(v.DstAddr)) + "]",
		"[" + k.value(b64, v.SrcAddr) + "]",
		fmt.Sprint(v.CPSize()),
	}
	if v.HasSrcElements {
		ops = append(ops, fmt.Sprint(v.SrcSize()))
	}
	if v.IgnoreSrc {
		ops = append(ops, k.zero(pred))
	}
	if v.CacheHint {
		ops = append(ops, k.zero(b64))
	}
	k.emit("%s %s;", name, join(ops))
	k.emit("cp.async.commit_group;")
	k.emit("cp.async.wait_group 0;")
	return nil
}
