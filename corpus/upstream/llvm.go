package upstream

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/blockscale"
	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/fuzz/tmamode"
	"github.com/legalfuzz/legalfuzz/fuzz/wgmma"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/llvm"
)

// call is one intrinsic call: its name without "llvm.nvvm." and its
// operands ("i32 %x", "i1 0").
type call struct {
	name string
	ops  []string
}

// llvmFamily maps an intrinsic name prefix to the domain whose values the
// llc oracle spells with it and the reader of its calls (nil: LLVM has the
// family but the llc oracle does not render it). The longest prefix wins.
type llvmFamily struct {
	prefix string
	domain string
	read   func(call) (map[string]any, string)
}

var llvmFamilies = []llvmFamily{
	{"mma.block.scale.", blockscale.Name, readBlockScale},
	{"mma.sp.block.scale.", blockscale.Name, nil},
	{"mma.", mma.Name, readMMA},
	{"ldmatrix.", ldsm.Name, readLDSM},
	{"stmatrix.", ldsm.Name, readLDSM},
	{"cp.async.ca.shared.global.", cpasync.Name, readCPAsync},
	{"cp.async.cg.shared.global.", cpasync.Name, readCPAsync},
	{"cp.async.bulk.tensor.", tmamode.Name, readTMAMode},
	{"tcgen05.mma.", kindword.Name, readKindWord},
	{"wgmma.mma_async.", wgmma.Name, nil},
}

// readLLVM reads one NVVM intrinsic call as a domain value. A call the
// llc oracle's renderers spell another way (or not at all) is not read:
// the importer is the renderers' inverse, checked by rendering the value.
func readLLVM(f form) reading {
	name, rest, _ := strings.Cut(f.text, "(")
	name = strings.TrimPrefix(name, "llvm.nvvm.")
	ops, ok := args(rest)
	fam, known := familyOf(name)
	switch {
	case !known:
		return unread(NoDomain, "llvm.nvvm.%s", family(name))
	case !ok:
		return unread(fam.domain, "malformed: call operands never close")
	case fam.read == nil:
		return unread(fam.domain, "no llc rendering of llvm.nvvm.%s", strings.TrimSuffix(fam.prefix, "."))
	}
	fields, why := fam.read(call{name: name, ops: ops})
	if why != "" {
		return unread(fam.domain, "%s", why)
	}
	full := "llvm.nvvm." + name
	return reading{domain: fam.domain, fields: fields, check: func(c domain.Case) string { return spelledAs(c, full) }}
}

// spelledAs says why the llc renderers do not spell c with intrinsic
// name, "" when they do.
func spelledAs(c domain.Case, name string) string {
	calls, err := llvm.Calls(c)
	var ns *oracles.NoSpelling
	switch {
	case errors.As(err, &ns):
		return fmt.Sprintf("no llc spelling: %s=%s", ns.Field, ns.Class)
	case err != nil:
		return "no llc spelling: " + err.Error()
	case !slices.Contains(calls, name):
		return "renderer spells it otherwise"
	}
	return ""
}

func familyOf(name string) (llvmFamily, bool) {
	best, ok := llvmFamily{}, false
	for _, f := range llvmFamilies {
		if strings.HasPrefix(name, f.prefix) && len(f.prefix) > len(best.prefix) {
			best, ok = f, true
		}
	}
	return best, ok
}

// family names an intrinsic of no domain by its first two name parts
// (llvm.nvvm.barrier.cta.sync → barrier.cta), so the counts stay short.
func family(name string) string {
	parts := strings.SplitN(name, ".", 3)
	return strings.Join(parts[:min(2, len(parts))], ".")
}

// constant is an operand's integer constant ("i32 3", "i1 true"), or false
// when the operand is not one.
func constant(op string) (int64, bool) {
	f := strings.Fields(op)
	if len(f) == 0 {
		return 0, false
	}
	switch v := f[len(f)-1]; v {
	case "true":
		return 1, true
	case "false":
		return 0, true
	default:
		n, err := strconv.ParseInt(v, 10, 64)
		return n, err == nil
	}
}

var mmaShape = regexp.MustCompile(`^m(\d+)n(\d+)k(\d+)$`)

// readMMA reads llvm.nvvm.mma[.sp|.sp.ordered.metadata][.xor.popc|
// .and.popc].mMnNkK.<alayout>.<blayout>[.satfinite].<signature>; the
// signature's omitted types are the ones LLVM fixes (llvm.mmaSignature).
func readMMA(c call) (map[string]any, string) {
	p := strings.Split(strings.TrimPrefix(c.name, "mma."), ".")
	f := map[string]any{"sparsity": "dense"}
	switch {
	case len(p) > 3 && p[0] == "sp" && p[1] == "ordered" && p[2] == "metadata":
		f["sparsity"], p = "sp::ordered_metadata", p[3:]
	case len(p) > 1 && p[0] == "sp":
		f["sparsity"], p = "sp", p[1:]
	}
	if len(p) > 2 && (p[0] == "xor" || p[0] == "and") && p[1] == "popc" {
		f["bit_op"], p = p[0], p[2:]
	}
	if len(p) < 4 {
		return nil, "name: too few parts"
	}
	m := mmaShape.FindStringSubmatch(p[0])
	if m == nil {
		return nil, "name: no mMnNkK shape"
	}
	f["shape"] = []int{atoi(m[1]), atoi(m[2]), atoi(m[3])}
	f["a_layout"], f["b_layout"] = p[1], p[2]
	p = p[3:]
	if p[0] == "satfinite" {
		f["satfinite"], p = true, p[1:]
	}
	a, b, cc, d, ok := mmaTypes(p)
	if !ok {
		return nil, "name: signature " + strings.Join(p, ".")
	}
	f["a_type"], f["b_type"], f["c_type"], f["d_type"] = a, b, cc, d
	if f["sparsity"] != "dense" {
		sel, ok := constant(lastOp(c.ops))
		if !ok {
			return nil, "operand: sparsity selector not a constant"
		}
		f["selector"] = sel
	}
	return f, ""
}

// mmaTypes reads a signature: four types for FP8 (D, A, B, C), two for
// f16 A (D, C) or differing A and B, one for A = B; C and D otherwise
// those the signature leaves out (s32 for integers, f32 for bf16 and
// tf32, f64 for f64). A tf32 type is the mma domain's "tf32" (f32 with
// tf32_enabled).
func mmaTypes(p []string) (a, b, c, d string, ok bool) {
	fixed := map[string]string{"s8": "s32", "u8": "s32", "s4": "s32", "u4": "s32", "b1": "s32", "bf16": "f32", "tf32": "f32", "f64": "f64"}
	half := func(t string) bool { return t == "f16" || t == "f32" }
	switch {
	case len(p) == 4:
		return p[1], p[2], p[3], p[0], true
	case len(p) == 2 && half(p[0]) && half(p[1]):
		return "f16", "f16", p[1], p[0], true
	case len(p) == 2 && fixed[p[0]] != "":
		return p[0], p[1], fixed[p[0]], fixed[p[0]], true
	case len(p) == 1 && fixed[p[0]] != "":
		return p[0], p[0], fixed[p[0]], fixed[p[0]], true
	}
	return "", "", "", "", false
}

// readLDSM reads llvm.nvvm.{ldmatrix,stmatrix}.sync.aligned.<shape>.x<N>
// [.trans].<type>: shared memory and registers, as the intrinsics move.
func readLDSM(c call) (map[string]any, string) {
	op, rest, _ := strings.Cut(c.name, ".")
	rest, ok := strings.CutPrefix(rest, "sync.aligned.")
	if !ok {
		return nil, "name: not .sync.aligned"
	}
	p := strings.SplitN(rest, ".", 3)
	if len(p) < 3 || !strings.HasPrefix(p[1], "x") {
		return nil, "name: no shape and .xN"
	}
	f := map[string]any{"op": op, "shape": p[0], "num_matrices": atoi(p[1][1:])}
	typ := p[2]
	if t, ok := strings.CutPrefix(typ, "trans."); ok {
		f["transpose"], typ = true, t
	} else {
		f["transpose"] = false
	}
	f["size"] = typ
	return f, ""
}

// readCPAsync reads llvm.nvvm.cp.async.{ca,cg}.shared.global.{4,8,16}[.s].
// The .s form's src-size operand is the value's src_size when constant; a
// register stands for the whole copy. PTX's cp.async copies bytes: the
// elements are f32 when the sizes are whole words, else bytes.
func readCPAsync(c call) (map[string]any, string) {
	p := strings.Split(strings.TrimPrefix(c.name, "cp.async."), ".")
	if len(p) < 4 {
		return nil, "name: too few parts"
	}
	size := int64(atoi(p[3]))
	f := map[string]any{"cache": p[0], "cp_size": size}
	src := size
	switch {
	case len(p) == 5 && p[4] == "s":
		if n, ok := constant(lastOp(c.ops)); ok {
			src = n
		}
		f["src_size"] = src
	case len(p) != 4:
		return nil, "name: unknown suffix ." + strings.Join(p[4:], ".")
	}
	if size%4 != 0 || src%4 != 0 {
		f["elem"] = "i8"
	}
	return f, ""
}

// tmaDirs are the cp.async.bulk.tensor families: direction and the
// destination the family writes.
var tmaDirs = map[string][2]string{"g2s": {"load", "shared::cluster"}, "g2s.cta": {"load", "shared::cta"},
	"s2g": {"store", "global"}, "prefetch": {"prefetch", "L2"}}

// tmaModes are LLVM's mode spellings per direction as the domain names them.
var tmaModes = map[string]map[string]string{
	"load":     {"tile": "tile", "tile.gather4": "tile::gather4", "im2col": "im2col", "im2col.w": "im2col::w", "im2col.w.128": "im2col::w::128"},
	"prefetch": {"tile": "tile", "tile.gather4": "tile::gather4", "im2col": "im2col", "im2col.w": "im2col::w", "im2col.w.128": "im2col::w::128"},
	"store":    {"tile": "tile", "tile.scatter4": "tile::scatter4", "im2col": "im2col_no_offs"},
}

var tmaName = regexp.MustCompile(`^cp\.async\.bulk\.tensor\.(g2s\.cta|g2s|s2g|prefetch)\.(.+)\.(\d)d$`)

// readTMAMode reads llvm.nvvm.cp.async.bulk.tensor.<family>.<mode>.<N>d;
// the trailing immargs are the multicast and cache-hint flags (and for
// g2s the cta_group), the im2col::w offsets its i16 constants.
func readTMAMode(c call) (map[string]any, string) {
	m := tmaName.FindStringSubmatch(c.name)
	if m == nil {
		if strings.Contains(c.name, ".reduce.") {
			return nil, "name: tensor reduction (no domain field)"
		}
		return nil, "name: not <family>.<mode>.<N>d"
	}
	dir := tmaDirs[m[1]]
	mode, ok := tmaModes[dir[0]][m[2]]
	if !ok {
		return nil, "name: mode " + m[2]
	}
	f := map[string]any{"direction": dir[0], "dst": dir[1], "mode": mode, "rank": atoi(m[3])}
	imms, ok := trailingImms(c.ops)
	want := 1
	if m[1] == "g2s" {
		// LLVM 20 and 21's g2s has no cta_group operand (LLVM 22
		// auto-upgrades it): two flags, cta_group none.
		want = 2
		if strings.HasPrefix(lastOp(c.ops), "i32") {
			want = 3
		}
	}
	if !ok || len(imms) < want {
		return nil, "operand: flags not constants"
	}
	imms = imms[len(imms)-want:]
	if m[1] == "g2s" {
		f["multicast"], f["cache_hint"] = imms[0] != 0, imms[1] != 0
		if want == 3 {
			f["cta_group"] = imms[2]
		}
	} else {
		f["cache_hint"] = imms[0] != 0
	}
	if strings.HasPrefix(m[2], "im2col.w") && dir[0] != "store" {
		if w, ok := wOffsets(c.ops); ok {
			f["w_halo"], f["w_offset"] = w[0], w[1]
		}
	}
	return f, ""
}

// trailingImms are the constant i1 and i32 operands at the end of a call.
func trailingImms(ops []string) ([]int64, bool) {
	var out []int64
	for i := len(ops) - 1; i >= 0; i-- {
		t := strings.Fields(ops[i])
		if len(t) == 0 || (t[0] != "i1" && t[0] != "i32") {
			break
		}
		n, ok := constant(ops[i])
		if !ok {
			break
		}
		out = append([]int64{n}, out...)
	}
	return out, len(out) > 0
}

// wOffsets are an im2col::w call's wHalo and wOffset: its first two i16
// operands (the cta_mask follows), when both are constants.
func wOffsets(ops []string) ([2]int64, bool) {
	var w []int64
	for _, op := range ops {
		if t := strings.Fields(op); len(t) == 2 && t[0] == "i16" && len(w) < 2 {
			n, ok := constant(op)
			if !ok {
				return [2]int64{}, false
			}
			w = append(w, n&0xffff)
		}
	}
	return [2]int64(append(w, 0, 0)[:2]), len(w) == 2
}

// readBlockScale reads llvm.nvvm.mma.block.scale.m16n8kK.row.col.<kind>
// [.scale.<N>x].f32.<atype>.<btype>.f32.<stype>: the scale vector is K/N
// elements of N 8-bit factors.
func readBlockScale(c call) (map[string]any, string) {
	p := strings.Split(strings.TrimPrefix(c.name, "mma.block.scale."), ".")
	if len(p) < 8 {
		return nil, "name: too few parts"
	}
	m := mmaShape.FindStringSubmatch(p[0])
	if m == nil || m[1] != "16" || m[2] != "8" {
		return nil, "name: shape " + p[0]
	}
	k := atoi(m[3])
	f := map[string]any{"k": k, "kind": p[3]}
	p = p[4:]
	if len(p) > 0 && p[0] == "scale" && len(p) > 1 {
		n := atoi(strings.TrimSuffix(p[1], "x"))
		if n == 0 {
			return nil, "name: scale " + p[1]
		}
		f["scale_vector_size"], f["scale_fragment_bits"], p = k/n, 8*n, p[2:]
	}
	if len(p) != 5 || p[0] != "f32" || p[3] != "f32" {
		return nil, "name: signature " + strings.Join(p, ".")
	}
	f["a_type"], f["b_type"], f["sf_type"] = p[1], p[2], p[4]
	return f, ""
}

// tcgen05Kinds are the dense kinds by their immarg.
var tcgen05Kinds = []string{"f16", "tf32", "f8f6f4", "i8"}

// tcgen05Collectors are collector::a's by their immarg.
var tcgen05Collectors = []string{"discard", "lastuse", "fill", "use"}

// blockSuffix is the scale vector of LLVM's .block32 / .block16 per kind.
var blockSuffix = map[string]map[string]string{
	"mxf8f6f4": {"block32": "1X"}, "mxf4": {"block32": "2X"}, "mxf4nvf4": {"block32": "2X", "block16": "4X"},
}

// readKindWord reads llvm.nvvm.tcgen05.mma[.ws][.sp].{tensor,shared}
// [.<kind>.block_scale[.blockN]][.scale_d][.ashift] with its immargs:
// kind, cta_group and collector (a block-scaled form has no kind immarg;
// .ws has no cta_group and collects B, read only at its defaults).
func readKindWord(c call) (map[string]any, string) {
	p := strings.Split(strings.TrimPrefix(c.name, "tcgen05.mma."), ".")
	f := map[string]any{}
	take := func(s string) bool {
		if len(p) > 0 && p[0] == s {
			p = p[1:]
			return true
		}
		return false
	}
	f["ws"], f["sparse"] = take("ws"), take("sp")
	switch {
	case take("tensor"):
		f["a_tmem"] = true
	case take("shared"):
		f["a_tmem"] = false
	default:
		return nil, "name: A neither .tensor nor .shared"
	}
	block := false
	if len(p) > 1 && p[1] == "block_scale" {
		f["kind"], f["block_scale"], block = p[0], true, true
		p = p[2:]
		if len(p) > 0 && strings.HasPrefix(p[0], "block") {
			sv, ok := blockSuffix[f["kind"].(string)][p[0]]
			if !ok {
				return nil, "name: ." + p[0] + " for kind " + f["kind"].(string)
			}
			f["scale_vec"], p = sv, p[1:]
		}
	}
	scaleD := take("scale_d")
	f["ashift"] = take("ashift")
	if len(p) > 0 {
		return nil, "name: unknown part ." + strings.Join(p, ".")
	}
	imms, _ := trailingImms(c.ops)
	want := 3
	if block {
		want = 2
	}
	if len(imms) < want {
		return nil, "operand: kind, cta_group or collector not a constant"
	}
	imms = imms[len(imms)-want:]
	if !block {
		if imms[0] < 0 || int(imms[0]) >= len(tcgen05Kinds) {
			return nil, fmt.Sprintf("operand: kind %d", imms[0])
		}
		f["kind"], imms = tcgen05Kinds[imms[0]], imms[1:]
	}
	if f["ws"] == true {
		// .ws: cta_group::1 implied, then collector B's buffer and op.
		f["cta_group"] = 1
		if imms[0] != 0 || imms[1] != 0 {
			return nil, "operand: .ws collector::b other than b0 discard (no domain field)"
		}
	} else {
		if imms[1] < 0 || int(imms[1]) >= len(tcgen05Collectors) {
			return nil, fmt.Sprintf("operand: collector %d", imms[1])
		}
		f["cta_group"], f["collector_a"] = imms[0], tcgen05Collectors[imms[1]]
	}
	if scaleD {
		n, ok := scaleInputD(c.ops)
		if !ok {
			return nil, "operand: scale-input-d not a constant"
		}
		f["scale_input_d"] = n
	}
	return f, ""
}

// scaleInputD is the .scale_d form's i64 constant operand.
func scaleInputD(ops []string) (int64, bool) {
	for _, op := range ops {
		if t := strings.Fields(op); len(t) == 2 && t[0] == "i64" {
			if n, ok := constant(op); ok {
				return n, true
			}
		}
	}
	return 0, false
}

func lastOp(ops []string) string {
	if len(ops) == 0 {
		return ""
	}
	return ops[len(ops)-1]
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
