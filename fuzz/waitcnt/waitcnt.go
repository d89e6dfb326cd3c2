// Package waitcnt is the AMD s_waitcnt domain (seed 000's AMD point): a
// token-based asynchronous program for one wave — a sequence of operations
// (VMEM loads and stores, LDS, SMEM, GDS, messages, exports), each producing
// a token, and waits naming tokens — for one gfx9 GPU. A lowering under test
// (package lower) turns each wait into an s_waitcnt with counter thresholds,
// and a model of the counters (package model) judges whether the thresholds
// are sound and how far they over-synchronize. This package also holds the
// s_waitcnt value itself: its SIMM16 encoder, llvm-mc's text form and the
// spellings llvm-mc accepts.
package waitcnt

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Name is the domain's name.
const Name = "waitcnt"

// Kind is what an operation does, and so which counters it counts on.
type Kind uint8

const (
	VMEMLoad  Kind = iota // global/buffer load: vmcnt
	VMEMStore             // global/buffer store: vmcnt on gfx9 (no vscnt before gfx10)
	LDS                   // ds_read/ds_write on LDS: lgkmcnt
	SMEM                  // s_load (constant/scalar memory): lgkmcnt, returns out of order
	GDS                   // GDS/GWS operation (ds_gws_*): lgkmcnt and expcnt
	Message               // s_sendmsg: lgkmcnt
	Export                // exp: expcnt; gfx900 and gfx908 only
	numKinds
)

// Kinds spells the kinds; the index is the canonical byte.
var Kinds = domain.Enum{"vmem_load", "vmem_store", "lds", "smem", "gds", "msg", "export"}

func (k Kind) String() string { return Kinds.Name(int(k)) }

// Enum names the values of Kind: package desc and mutation read its size.
func (Kind) Enum() domain.Enum { return Kinds }

// GPU is the AMD processor the program runs on. All are gfx9: one s_waitcnt
// with vmcnt (6 bits), expcnt (3) and lgkmcnt (4), and no separate vscnt.
type GPU uint8

const (
	GFX942 GPU = iota // MI300 (CDNA3)
	GFX90A            // MI200 (CDNA2)
	GFX908            // MI100 (CDNA1)
	GFX900            // Vega 10 (GCN5)
	numGPUs
)

// GPUs spells the processors as llvm-mc's -mcpu does.
var GPUs = domain.Enum{"gfx942", "gfx90a", "gfx908", "gfx900"}

func (g GPU) String() string { return GPUs.Name(int(g)) }

// Enum names the values of GPU: package desc and mutation read its size.
func (GPU) Enum() domain.Enum { return GPUs }

// HasExport reports whether the processor has export instructions: CDNA2 and
// CDNA3 (gfx90a, gfx942) do not; llvm-mc refuses exp there.
func (g GPU) HasExport() bool { return g == GFX908 || g == GFX900 }

// MaxItems bounds a program: operations and waits together.
const MaxItems = 24

// Item is one step of a program: an operation, whose token is its ordinal
// among the program's operations (the first operation is token 0), or a
// wait on a non-empty set of tokens issued before it.
type Item struct {
	Wait bool
	// Kind is the operation's kind; zero for a wait.
	Kind Kind
	// Tokens has bit k set when the wait names token k; zero for an operation.
	Tokens uint32
}

// Value is one program. Items beyond N are zero, so equal programs are equal
// values and encode to equal bytes.
type Value struct {
	GPU   GPU
	N     uint8
	Items [MaxItems]Item
}

// placeholder is the NVIDIA target every waitcnt value reports: the harness
// records a target per case, but these are AMD programs, judged for their GPU
// field. sm_90 with its first PTX ISA version is valid and never consulted.
var placeholder = target.Target{Arch: target.Arch{SM: 90}, PTX: 78}

// Target implements domain.Value with a fixed placeholder: the AMD processor
// is the GPU field, not a PTX target.
func (v Value) Target() target.Target { return placeholder }

// Program returns the items in order; all of them when N was set past the
// array (a mutated value, before decoding makes it valid), so that encoding
// such a value does not panic.
func (v Value) Program() []Item { return v.Items[:min(int(v.N), len(v.Items))] }

// Ops returns the operations' kinds in token order.
func (v Value) Ops() []Kind {
	var ks []Kind
	for _, it := range v.Program() {
		if !it.Wait {
			ks = append(ks, it.Kind)
		}
	}
	return ks
}

// TokenList returns a wait's tokens in increasing order.
func (it Item) TokenList() []int {
	var ts []int
	for m := it.Tokens; m != 0; m &= m - 1 {
		ts = append(ts, bits.TrailingZeros32(m))
	}
	return ts
}

// Build makes a program from items, checking what ParseJSON checks.
func Build(gpu GPU, items ...Item) (Value, error) {
	v := Value{GPU: gpu}
	if gpu >= numGPUs {
		return Value{}, fmt.Errorf("unknown gpu %d", gpu)
	}
	if len(items) > MaxItems {
		return Value{}, fmt.Errorf("%d items, at most %d", len(items), MaxItems)
	}
	ops := 0
	for i, it := range items {
		switch {
		case it.Wait && (it.Kind != 0 || it.Tokens == 0 || it.Tokens>>ops != 0):
			return Value{}, fmt.Errorf("item %d: a wait names a non-empty set of the %d tokens issued before it", i, ops)
		case !it.Wait && (it.Kind >= numKinds || it.Tokens != 0):
			return Value{}, fmt.Errorf("item %d: bad operation %+v", i, it)
		case !it.Wait:
			ops++
		}
		v.Items[i] = it
	}
	v.N = uint8(len(items))
	return v, nil
}

// MustBuild is Build for programs written in Go source; it panics on a typo.
func MustBuild(gpu GPU, items ...Item) Value {
	v, err := Build(gpu, items...)
	if err != nil {
		panic(err)
	}
	return v
}

// Op is an operation item.
func Op(k Kind) Item { return Item{Kind: k} }

// Ops is n operation items of one kind: a program that fills a counter.
func Ops(k Kind, n int) []Item {
	items := make([]Item, n)
	for i := range items {
		items[i] = Op(k)
	}
	return items
}

// WaitOn is a wait item naming tokens.
func WaitOn(tokens ...int) Item {
	it := Item{Wait: true}
	for _, t := range tokens {
		it.Tokens |= 1 << t
	}
	return it
}

// waitTag is the canonical byte of a wait item; operations use their kind.
const waitTag = 7

// Encode implements domain.Value: gpu, item count, then per item its kind
// byte, or waitTag and the 24-bit token mask little-endian.
func (v Value) Encode() []byte {
	var w domain.Writer
	w.U8(uint8(v.GPU))
	w.U8(v.N)
	for _, it := range v.Program() {
		if !it.Wait {
			w.U8(uint8(it.Kind))
			continue
		}
		w.U8(waitTag)
		w.U8(uint8(it.Tokens))
		w.U8(uint8(it.Tokens >> 8))
		w.U8(uint8(it.Tokens >> 16))
	}
	return w.Bytes
}

// Decode maps fuzz bytes to a program; every input decodes. A wait keeps only
// the tokens issued before it and is dropped when none is left.
func Decode(data []byte) (domain.Value, error) {
	r := domain.NewReader(data)
	v := Value{GPU: GPU(r.Index(int(numGPUs)))}
	n, ops := r.Index(MaxItems+1), 0
	for range n {
		tag := r.U8() % 8
		if tag != waitTag {
			v.Items[v.N] = Item{Kind: Kind(tag)}
			v.N++
			ops++
			continue
		}
		mask := uint32(r.U8()) | uint32(r.U8())<<8 | uint32(r.U8())<<16
		if mask &= 1<<ops - 1; mask != 0 {
			v.Items[v.N] = Item{Wait: true, Tokens: mask}
			v.N++
		}
	}
	return v, nil
}

// String is a short human form, e.g. "gfx942: t0=lds t1=smem wait(t0)".
func (v Value) String() string {
	var b strings.Builder
	b.WriteString(v.GPU.String() + ":")
	tok := 0
	for _, it := range v.Program() {
		if !it.Wait {
			fmt.Fprintf(&b, " t%d=%s", tok, it.Kind)
			tok++
			continue
		}
		var names []string
		for _, t := range it.TokenList() {
			names = append(names, fmt.Sprintf("t%d", t))
		}
		fmt.Fprintf(&b, " wait(%s)", strings.Join(names, ","))
	}
	return b.String()
}

// Domain describes waitcnt for the registry.
var Domain = domain.Domain{
	Name:       Name,
	Doc:        "token-based async programs for one AMD gfx9 wave, lowered to s_waitcnt counter thresholds (seed 000)",
	FuzzTarget: "FuzzWaitcnt",
	Decode:     Decode,
	ParseJSON:  ParseJSON,
	Seeds:      Seeds,
}

// Without returns v with item i removed: an operation's token disappears
// from every wait and later tokens are renumbered; a wait left naming nothing
// is removed too. It is the minimizers' step.
func (v Value) Without(i int) Value {
	out := Value{GPU: v.GPU}
	tok, drop := 0, -1
	for j, it := range v.Program() {
		if !it.Wait {
			if j == i {
				drop = tok
			}
			tok++
		}
		if j == i {
			continue
		}
		if it.Wait && drop >= 0 {
			low := it.Tokens & (1<<drop - 1)
			it.Tokens = low | it.Tokens>>(drop+1)<<drop
			if it.Tokens == 0 {
				continue
			}
		}
		out.Items[out.N] = it
		out.N++
	}
	return out
}

// Processor names the AMD processor the program runs on (domain.AMDValue).
func (v Value) Processor() string { return v.GPU.String() }
