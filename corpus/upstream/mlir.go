package upstream

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/blockscale"
	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/matdesc"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/fuzz/tmamode"
	"github.com/legalfuzz/legalfuzz/fuzz/wgmma"
)

// mlirReader reads one op's text into a domain's JSON fields, or says why
// it cannot.
type mlirReader func(text string) (map[string]any, string)

// mlirOps are the ops the mlir and mlir-nvvm oracles spell a domain's
// values with, and their readers (nil: the op spells the domain, the
// importer does not read it yet, and its forms are counted so).
var mlirOps = map[string]struct {
	domain string
	read   mlirReader
}{
	"nvgpu.mma.sync":              {mma.Name, readNVGPUMMA},
	"nvgpu.mma.sp.sync":           {mma.Name, readNVGPUMMA},
	"nvvm.mma.sync":               {mma.Name, readNVVMMMA},
	"nvvm.mma.sp.sync":            {mma.Name, readNVVMMMA},
	"nvgpu.ldmatrix":              {ldsm.Name, readNVGPULdmatrix},
	"nvvm.ldmatrix":               {ldsm.Name, readNVVMLdStMatrix},
	"nvvm.stmatrix":               {ldsm.Name, readNVVMLdStMatrix},
	"nvgpu.device_async_copy":     {cpasync.Name, readNVGPUAsyncCopy},
	"nvvm.cp.async.shared.global": {cpasync.Name, readNVVMCPAsync},
	"nvgpu.warpgroup.mma":         {wgmma.Name, readWarpgroupMMA},
	"nvvm.wgmma.mma_async":        {wgmma.Name, readNVVMWGMMA},
	"nvgpu.tma.async.load":        {tmamode.Name, readNVGPUTMA},
	"nvgpu.tma.async.store":       {tmamode.Name, readNVGPUTMA},
	"nvvm.cp.async.bulk.tensor.shared.cluster.global": {tmamode.Name, readNVVMTMA},
	"nvvm.cp.async.bulk.tensor.global.shared.cta":     {tmamode.Name, readNVVMTMA},
	"nvvm.cp.async.bulk.tensor.prefetch":              {tmamode.Name, readNVVMTMA},
	"nvvm.cp.async.bulk.tensor.reduce":                {tmamode.Name, nil},
	"nvgpu.warpgroup.generate.descriptor":             {matdesc.Name, nil},
	"nvvm.tcgen05.mma":                                {kindword.Name, nil},
	"nvvm.tcgen05.mma.sp":                             {kindword.Name, nil},
	"nvvm.tcgen05.mma.block_scale":                    {kindword.Name, nil},
	"nvvm.tcgen05.mma.sp.block_scale":                 {kindword.Name, nil},
	"nvvm.tcgen05.mma.ws":                             {kindword.Name, nil},
	"nvvm.tcgen05.mma.ws.sp":                          {kindword.Name, nil},
	"nvvm.mma.block_scale":                            {blockscale.Name, nil},
}

// readMLIR reads one nvgpu or nvvm op as a domain value. MLIR's renderers
// write these ops in the generic form; tests write them in the custom one,
// so the readers take the facts both forms state (attributes and types)
// and the check is the domain's strict JSON form.
func readMLIR(f form) reading {
	name, _ := opName(f.text, false)
	op, ok := mlirOps[name]
	switch {
	case !ok:
		return unread(NoDomain, "%s", name)
	case op.read == nil:
		return unread(op.domain, "%s not read by the importer", name)
	}
	fields, why := op.read(f.text)
	if why != "" {
		return unread(op.domain, "%s: %s", name, why)
	}
	return reading{domain: op.domain, fields: fields}
}

var (
	vectorType = regexp.MustCompile(`vector<((?:\d+x)*)(\w+)>`)
	memrefType = regexp.MustCompile(`memref<((?:[\d?]+x)*)(\w+)(?:,\s*([^>]*))?>`)
	intAttr    = regexp.MustCompile(`\b(\w+)\s*=\s*(-?\d+)\b`)
)

// vector is one vector type of an op's text: its dimensions and element.
type vector struct {
	dims []int
	elem string
}

func vectors(text string) []vector {
	var out []vector
	for _, m := range vectorType.FindAllStringSubmatch(text, -1) {
		out = append(out, vector{dims: dims(m[1]), elem: m[2]})
	}
	return out
}

// dims reads "4x2x" as [4 2]; a dynamic size is 0.
func dims(s string) []int {
	var out []int
	for _, d := range strings.Split(strings.TrimSuffix(s, "x"), "x") {
		if d != "" {
			n, _ := strconv.Atoi(d)
			out = append(out, n)
		}
	}
	return out
}

// ints are the op's integer attributes and keywords (numTiles = 4).
func ints(text string) map[string]int {
	out := map[string]int{}
	for _, m := range intAttr.FindAllStringSubmatch(text, -1) {
		if _, ok := out[m[1]]; !ok {
			out[m[1]], _ = strconv.Atoi(m[2])
		}
	}
	return out
}

var mmaShapeAttr = regexp.MustCompile(`mmaShape\s*=\s*\[([^\]]*)\]`)

// intList reads the integers of the mmaShape array.
func intList(text string) []int {
	m := mmaShapeAttr.FindStringSubmatch(text)
	if m == nil {
		return nil
	}
	var out []int
	for _, s := range strings.Split(m[1], ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// word reports whether a bare keyword (a unit attribute) is in the text:
// after "{", "," or a space and not followed by more of a name.
func word(text, w string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], w)
		if j < 0 {
			return false
		}
		at, end := i+j, i+j+len(w)
		before := at > 0 && strings.ContainsRune("{, \t", rune(text[at-1]))
		after := end == len(text) || !isIdent(text[end])
		if before && after {
			return true
		}
		i = end
	}
}

func isIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// mmaElems are the mma domain's type names of MLIR element types: the
// inverse of the mlir oracle's mmaElems (signed types signless or signed,
// unsigned ones unsigned).
var mmaElems = map[string]string{
	"f16": "f16", "bf16": "bf16", "f32": "f32", "f64": "f64", "f8E4M3FN": "e4m3", "f8E5M2": "e5m2",
	"i8": "s8", "si8": "s8", "ui8": "u8", "i4": "s4", "si4": "s4", "ui4": "u4", "i1": "b1", "i32": "s32", "si32": "s32",
}

// readNVGPUMMA reads nvgpu.mma.sync and nvgpu.mma.sp.sync: the mmaShape,
// tf32Enabled and sparsity selector attributes, A, B, C's element types
// from the operand types and D's from the result. The op is .row.col and
// .satfinite exactly for integer A.
func readNVGPUMMA(text string) (map[string]any, string) {
	shape := intList(text)
	vs := vectors(text)
	if len(shape) == 0 {
		return nil, "no mmaShape"
	}
	if len(vs) < 4 {
		return nil, "operand types not written (A, B, C -> D)"
	}
	vs = []vector{vs[0], vs[1], vs[2], vs[len(vs)-1]} // a generic form lists the metadata's type too
	f := map[string]any{"shape": shape, "a_layout": "row", "b_layout": "col", "sparsity": "dense"}
	if strings.HasPrefix(text, "nvgpu.mma.sp.sync") {
		f["sparsity"] = "sp"
		f["selector"] = ints(text)["sparsitySelector"]
	}
	for i, k := range []string{"a_type", "b_type", "c_type", "d_type"} {
		t, ok := mmaElems[vs[i].elem]
		if !ok {
			return nil, "element type " + vs[i].elem
		}
		f[k] = t
	}
	if word(text, "tf32Enabled") {
		f["tf32_enabled"] = true
	}
	a := f["a_type"].(string)
	f["satfinite"] = a == "s8" || a == "u8" || a == "s4" || a == "u4"
	return f, ""
}

var (
	// Each fact of an nvvm mma op in the attribute-dictionary spelling
	// (layoutA = #nvvm.mma_layout<row>) and the keyword one of later
	// releases (layout_a = row).
	nvvmShape  = regexp.MustCompile(`(?:#nvvm\.shape)?<\s*m\s*=\s*(\d+),\s*n\s*=\s*(\d+),\s*k\s*=\s*(\d+)\s*>`)
	nvvmLayout = regexp.MustCompile(`layout_?([ABab])\s*=\s*(?:#nvvm\.mma_layout<)?(row|col)\b`)
	nvvmMMAT   = regexp.MustCompile(`multiplicand_?([ABab])_?(?:Ptx|ptx)_?(?:Type|type)\s*=\s*(?:#nvvm\.mma_type<)?(\w+)`)
	nvvmB1Op   = regexp.MustCompile(`(?:#nvvm\.mma_b1op<|b1_?[Oo]p\s*=\s*)(\w+)_popc`)
	nvvmSatfin = regexp.MustCompile(`(?:mma_int_overflow<|int_overflow\s*=\s*)satfinite`)
	nvvmKind   = regexp.MustCompile(`\bkind\s*=\s*(?:#nvvm\.mma_kind<)?(\w+)`)
	nvvmAccReg = regexp.MustCompile(`^\s*(vector<2xf16>|f32|f64|i32)`)
)

// nvvmAcc are the accumulator types of nvvm.mma.sync's registers.
var nvvmAcc = map[string]string{"vector<2xf16>": "f16", "f32": "f32", "f64": "f64", "i32": "s32"}

// readNVVMMMA reads nvvm.mma.sync and nvvm.mma.sp.sync: shape, layouts,
// multiplicand types, overflow and b1 operation from the attributes or
// keywords; the sparsity selector is an operand (a register: 0); C's
// type from its registers and D's from the result struct's first member.
// A multiplicand type not written is the one its f16 or f64 registers
// state; an i32 register states none.
func readNVVMMMA(text string) (map[string]any, string) {
	m := nvvmShape.FindStringSubmatch(text)
	if m == nil {
		return nil, "no #nvvm.shape"
	}
	f := map[string]any{"shape": []int{atoi(m[1]), atoi(m[2]), atoi(m[3])}, "a_layout": "row", "b_layout": "col", "sparsity": "dense"}
	if strings.HasPrefix(text, "nvvm.mma.sp.sync") {
		f["sparsity"] = "sp"
		if word(text, "orderedMetadata") || word(text, "ordered_metadata") {
			f["sparsity"] = "sp::ordered_metadata"
		}
	}
	for _, l := range nvvmLayout.FindAllStringSubmatch(text, -1) {
		f[strings.ToLower(l[1])+"_layout"] = l[2]
	}
	for _, t := range nvvmMMAT.FindAllStringSubmatch(text, -1) {
		f[strings.ToLower(t[1])+"_type"] = t[2]
	}
	_, types, ok := strings.Cut(text, " : (")
	if !ok {
		return nil, "operand types not written"
	}
	in, out, _ := strings.Cut(types, "->")
	regs, _ := args(in)
	if len(regs) < 3 {
		return nil, "fewer than three operand types"
	}
	for i, k := range []string{"a_type", "b_type"} {
		if _, ok := f[k]; ok {
			continue
		}
		t := nvvmAcc[regs[i]]
		if t == "" || t == "s32" {
			return nil, "multiplicand type not written and " + regs[i] + " registers name none"
		}
		f[k] = t
	}
	c := nvvmAcc[regs[2]]
	_, d, _ := strings.Cut(out, "(")
	dm := nvvmAccReg.FindStringSubmatch(d)
	if c == "" || dm == nil {
		return nil, "accumulator registers " + regs[2]
	}
	f["c_type"], f["d_type"] = c, nvvmAcc[dm[1]]
	if k := nvvmKind.FindStringSubmatch(text); k != nil {
		return nil, "kind::" + k[1] + " (no domain field)"
	}
	if nvvmSatfin.MatchString(text) {
		f["satfinite"] = true
	}
	if b := nvvmB1Op.FindStringSubmatch(text); b != nil {
		f["bit_op"] = b[1]
	}
	return f, ""
}

// readNVGPULdmatrix reads nvgpu.ldmatrix: numTiles and transpose, the
// memref's element width (16 bits: .b16, 8: .b8) and memory space, the
// result fragment as the mlir oracle spells it (vector<tiles x per> a
// rank-1 fragment of tiles x per elements).
func readNVGPULdmatrix(text string) (map[string]any, string) {
	mr := memrefType.FindStringSubmatch(text)
	vs := vectors(text)
	if mr == nil || len(vs) == 0 {
		return nil, "source memref or result vector not written"
	}
	n := ints(text)
	f := map[string]any{"op": "ldmatrix", "shape": "m8n8", "num_matrices": n["numTiles"],
		"transpose": strings.Contains(text, "transpose = true"), "dst_space": "register"}
	switch mr[2] {
	case "f16", "bf16", "i16":
		f["size"] = "b16"
	case "i8":
		f["size"] = "b8"
	default:
		return nil, "element type " + mr[2]
	}
	space, ok := memSpaces[memSpace(mr[3])]
	if !ok {
		return nil, "memref memory space " + memSpace(mr[3])
	}
	f["src_space"] = space
	v := vs[len(vs)-1]
	total := 1
	for _, d := range v.dims {
		total *= d
	}
	f["result_rank"], f["result_dim0"] = min(len(v.dims), 1), total
	if len(v.dims) == 0 {
		f["result_dim0"] = 0
	}
	return f, ""
}

// memSpaces are the ldsm domain's spaces of memref memory spaces.
var memSpaces = map[string]string{"3": "shared", "1": "global", "5": "local", "#gpu.address_space<workgroup>": "shared",
	"#gpu.address_space<global>": "global", "#gpu.address_space<private>": "local"}

// memSpace is a memref's memory space: the last of its layout and space
// parts, "" when it has none.
func memSpace(rest string) string {
	parts, _ := args(rest + ")")
	if len(parts) == 0 {
		return ""
	}
	last := parts[len(parts)-1]
	if strings.HasPrefix(last, "strided") || strings.HasPrefix(last, "affine_map") {
		return ""
	}
	return last
}

var (
	nvvmMatShape = regexp.MustCompile(`#nvvm\.ld_st_matrix_shape<\s*m\s*=\s*(\d+),\s*n\s*=\s*(\d+)\s*>`)
	nvvmMatElt   = regexp.MustCompile(`#nvvm\.ld_st_matrix_elt_type<([\w.]+)>`)
	nvvmLdLayout = regexp.MustCompile(`layout\s*=\s*#nvvm\.mma_layout<(\w+)>`)
	llvmPtr      = regexp.MustCompile(`!llvm\.ptr<(\d+)>`)
)

// readNVVMLdStMatrix reads nvvm.ldmatrix (num, layout, and from MLIR 22
// shape and eltType) and nvvm.stmatrix (one i32 register per matrix): the
// pointer's address space, the lane's i32 registers as a rank-1 fragment.
// Without shape and eltType the op is MLIR 19's .m8n8 .b16.
func readNVVMLdStMatrix(text string) (map[string]any, string) {
	op := "ldmatrix"
	if strings.HasPrefix(text, "nvvm.stmatrix") {
		op = "stmatrix"
	}
	f := map[string]any{"op": op, "shape": "m8n8", "size": "b16"}
	if m := nvvmMatShape.FindStringSubmatch(text); m != nil {
		f["shape"] = "m" + m[1] + "n" + m[2]
	}
	if m := nvvmMatElt.FindStringSubmatch(text); m != nil {
		f["size"] = m[1]
	}
	l := nvvmLdLayout.FindStringSubmatch(text)
	f["transpose"] = l != nil && l[1] == "col"
	p := llvmPtr.FindStringSubmatch(text)
	if p == nil {
		return nil, "pointer address space not written"
	}
	space, ok := memSpaces[p[1]]
	if !ok {
		return nil, "address space " + p[1]
	}
	num := ints(text)["num"]
	if op == "stmatrix" {
		_, types, _ := strings.Cut(text, " : ")
		num = strings.Count(types, "i32")
		f["src_space"], f["dst_space"] = "register", space
	} else {
		f["src_space"], f["dst_space"] = space, "register"
	}
	f["num_matrices"] = num
	return f, ""
}

// cpElems are the cpasync domain's element types of MLIR element types
// (the inverse of the mlir oracle's cpasyncElems).
var cpElems = map[string]string{"i8": "i8", "si8": "i8", "ui8": "i8", "f8E4M3FN": "i8", "f16": "f16", "bf16": "bf16",
	"f32": "f32", "i32": "i32", "si32": "i32", "ui32": "i32", "f64": "f64"}

var asyncCopyCount = regexp.MustCompile(`\],\s*(\d+)\s*(,\s*%[\w#]+)?\s*(\{[^}]*\})?\s*:`)

// readNVGPUAsyncCopy reads nvgpu.device_async_copy: dstElements, a
// src-elements operand (its value stands for the whole copy: tests pass a
// register), bypassL1 (.cg), the memrefs' element types.
func readNVGPUAsyncCopy(text string) (map[string]any, string) {
	m := asyncCopyCount.FindStringSubmatch(text)
	mrs := memrefType.FindAllStringSubmatch(text, -1)
	if m == nil || len(mrs) < 2 {
		return nil, "element count or memref types not written"
	}
	src, dst := cpElems[mrs[0][2]], cpElems[mrs[1][2]]
	if src == "" || dst == "" {
		return nil, "element type " + mrs[0][2] + " to " + mrs[1][2]
	}
	n := atoi(m[1])
	f := map[string]any{"elem": dst, "src_elem": src, "dst_elements": n, "cache": "ca"}
	if m[2] != "" {
		f["src_elements"] = n
	}
	if word(text, "bypassL1") {
		f["cache"] = "cg"
	}
	return f, ""
}

var nvvmCPAsync = regexp.MustCompile(`,\s*(\d+)\s*,\s*cache\s*=\s*(\w+)`)

// readNVVMCPAsync reads nvvm.cp.async.shared.global: size and cache
// modifier (custom form "16, cache = ca"), an optional cpSize operand (a
// register: the whole copy).
func readNVVMCPAsync(text string) (map[string]any, string) {
	m := nvvmCPAsync.FindStringSubmatch(text)
	if m == nil {
		return nil, "size and cache modifier not written as `N, cache = X`"
	}
	size := atoi(m[1])
	f := map[string]any{"cp_size": size, "cache": m[2]}
	head, _, _ := strings.Cut(text, ":")
	if ops, _ := args(strings.TrimPrefix(head, "nvvm.cp.async.shared.global") + ")"); len(ops) > 4 {
		f["src_size"] = size
	}
	if size%4 != 0 {
		f["elem"] = "i8"
	}
	return f, ""
}

// wgElems are the wgmma domain's types of MLIR element types (the inverse
// of the mlir oracle's wgmmaElems) and wgAcc its accumulator types.
var (
	wgElems = map[string]string{"f16": "f16", "bf16": "bf16", "tf32": "tf32", "f8E4M3FN": "e4m3", "f8E5M2": "e5m2",
		"i8": "s8", "si8": "s8", "ui8": "u8", "i1": "b1", "f64": "f64", "i4": "s4", "si4": "s4"}
	wgAcc = map[string]string{"f16": "f16", "f32": "f32", "i32": "s32", "f64": "f64"}
)

// readWarpgroupMMA reads nvgpu.warpgroup.mma: the tile M×K and BK×N from
// the descriptors' memrefs, their element types, the accumulator's and the
// result's, transposeA/B; descriptors, unit scales and accumulation are
// what the op always does.
func readWarpgroupMMA(text string) (map[string]any, string) {
	mrs := memrefType.FindAllStringSubmatch(text, -1)
	vs := vectors(text)
	if len(mrs) < 2 || len(vs) < 2 {
		return nil, "descriptor or accumulator types not written"
	}
	a, b := dims(mrs[0][1]), dims(mrs[1][1])
	if len(a) < 2 || len(b) < 2 {
		return nil, "descriptor memref below rank 2"
	}
	f := map[string]any{"rank": len(a), "m": a[len(a)-2], "k": a[len(a)-1], "b_k": b[len(b)-2], "n": b[len(b)-1],
		"trans_a": word(text, "transposeA"), "trans_b": word(text, "transposeB")}
	for _, t := range []struct {
		key, elem string
		table     map[string]string
	}{{"a_type", mrs[0][2], wgElems}, {"b_type", mrs[1][2], wgElems},
		{"d_type", vs[0].elem, wgAcc}, {"result_type", vs[len(vs)-1].elem, wgAcc}} {
		v, ok := t.table[t.elem]
		if !ok {
			return nil, "element type " + t.elem
		}
		f[t.key] = v
	}
	return f, ""
}

var (
	wgPart   = regexp.MustCompile(`\b([DAB])\s*\[\s*<(\w+)>\s*,\s*#nvvm\.wgmma_scale_(?:in|out)<(\w+)>\s*(?:,\s*<(\w+)>)?\s*\]`)
	wgScales = map[string]int{"one": 1, "neg": -1}
)

// readNVVMWGMMA reads nvvm.wgmma.mma_async: the shape, then D's type,
// scale-out and satfinite, A's and B's types, scale-in and layout.
func readNVVMWGMMA(text string) (map[string]any, string) {
	m := nvvmShape.FindStringSubmatch(text)
	if m == nil {
		return nil, "no #nvvm.shape"
	}
	f := map[string]any{"m": atoi(m[1]), "n": atoi(m[2]), "k": atoi(m[3])}
	parts := wgPart.FindAllStringSubmatch(text, -1)
	if len(parts) != 3 {
		return nil, "D, A and B parts not written as [<type>, scale, <modifier>]"
	}
	for _, p := range parts {
		switch p[1] {
		case "D":
			f["d_type"], f["result_type"] = p[2], p[2]
			f["scale_d"] = p[3] == "one"
			f["satfinite"] = p[4] == "satfinite"
		case "A", "B":
			k := strings.ToLower(p[1])
			f[k+"_type"], f["scale_"+k] = p[2], wgScales[p[3]]
			f["trans_"+k] = (k == "a") == (p[4] == "col")
		}
	}
	return f, ""
}

var tmaCoords = regexp.MustCompile(`\[([^\]]*)\]`)

// coordCount is the number of coordinates in a comma-separated list: none
// in box[] (the 0-D copy MLIR's verifier tests refuse), not one.
func coordCount(list string) int {
	if strings.TrimSpace(list) == "" {
		return 0
	}
	return len(strings.Split(list, ","))
}

// readNVGPUTMA reads nvgpu.tma.async.load / store: the rank is the
// tensor map's coordinate count; a load is tile mode into .shared::cluster
// (multicast with a multicast_mask), a store tile mode into .global.
func readNVGPUTMA(text string) (map[string]any, string) {
	c := tmaCoords.FindStringSubmatch(text)
	if c == nil {
		return nil, "no coordinates"
	}
	f := map[string]any{"mode": "tile", "rank": coordCount(c[1])}
	if strings.HasPrefix(text, "nvgpu.tma.async.store") {
		f["direction"], f["dst"] = "store", "global"
		return f, ""
	}
	f["direction"], f["dst"] = "load", "shared::cluster"
	f["multicast"] = strings.Contains(text, "multicast_mask")
	return f, ""
}

var (
	tmaBox = regexp.MustCompile(`box\s*\[([^\]]*)\]`)
	// MLIR 22 writes the mode and cta group as attributes
	// (#nvvm.tma_load_mode<tile_gather4>, #nvvm.cta_group<cta_1>), later
	// MLIR's custom form as keywords (mode = tile_gather4 group = cta_1).
	tmaCTAGroup = regexp.MustCompile(`\bgroup\s*=\s*(?:#nvvm\.cta_group<)?cta_(\d)`)
	// isCTAOnly (MLIR 22's unit attribute or isCTAOnly = true) is the
	// later custom form's cta_only = true.
	tmaCTAOnly = regexp.MustCompile(`\b(?:isCTAOnly|cta_only)\b(?:\s*=\s*(true|false))?`)
	tmaModeAtt = regexp.MustCompile(`\bmode\s*=\s*(?:#nvvm\.tma_(?:load|store)_mode<)?(\w+)`)
	tmaModes22 = map[string]string{"tile": "tile", "im2col": "im2col", "im2col_w": "im2col::w", "im2col_w_128": "im2col::w::128",
		"tile_gather4": "tile::gather4", "tile_scatter4": "tile::scatter4"}
)

// readNVVMTMA reads the nvvm cp.async.bulk.tensor ops: the rank is the
// box's coordinate count (gather4 and scatter4 are 2D with five); the mode
// is the mode attribute or keyword, else im2col when im2col offsets are
// written; multicast_mask, l2_cache_hint, isCTAOnly (cta_only) and the
// cta group as written.
func readNVVMTMA(text string) (map[string]any, string) {
	b := tmaBox.FindStringSubmatch(text)
	if b == nil {
		return nil, "no box coordinates"
	}
	f := map[string]any{"rank": coordCount(b[1]), "mode": "tile",
		"cache_hint": strings.Contains(text, "l2_cache_hint")}
	switch {
	case strings.HasPrefix(text, "nvvm.cp.async.bulk.tensor.shared.cluster.global"):
		f["direction"], f["dst"] = "load", "shared::cluster"
		if m := tmaCTAOnly.FindStringSubmatch(text); m != nil && m[1] != "false" {
			f["dst"] = "shared::cta"
		}
		f["multicast"] = strings.Contains(text, "multicast_mask")
	case strings.HasPrefix(text, "nvvm.cp.async.bulk.tensor.prefetch"):
		f["direction"], f["dst"] = "prefetch", "L2"
	default:
		f["direction"], f["dst"] = "store", "global"
	}
	if strings.Contains(text, "im2col[") {
		f["mode"] = "im2col"
	}
	if m := tmaModeAtt.FindStringSubmatch(text); m != nil {
		mode, ok := tmaModes22[m[1]]
		if !ok {
			return nil, "mode " + m[1]
		}
		if mode == "im2col" && f["direction"] == "store" {
			mode = "im2col_no_offs"
		}
		f["mode"] = mode
		if mode == "tile::gather4" || mode == "tile::scatter4" {
			// One row and four columns: a 2D copy (the renderers'
			// spelling, and LLVM's .tile.gather4.2d).
			f["rank"] = 2
		}
	}
	if m := tmaCTAGroup.FindStringSubmatch(text); m != nil {
		f["cta_group"] = atoi(m[1])
	}
	return f, ""
}
