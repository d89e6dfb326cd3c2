package ptx

import (
	"fmt"

	kw "github.com/legalfuzz/legalfuzz/fuzz/kindword"
)

func init() { register(kw.Name, renderKindWord) }

// renderKindWord spells one tcgen05.mma in the order LLVM 22 prints it:
// tcgen05.mma{.ws}{.sp}.cta_group::N.kind::K{.block_scale{.scale_vec::NX}}
// {.collector::a::OP}{.ashift}, then [d], a (descriptor or [tmem]), b, the
// sparse metadata, idesc, the scale-factor tmem addresses, enable-input-d and
// scale-input-d. The default collector (discard) is left unwritten, so a .ws
// form stays legal.
func renderKindWord(v kw.Value, k *kernel) error {
	name, err := kindWordName(v)
	if err != nil {
		return err
	}
	d := k.zero(b32)
	a := k.zero(b64)
	if v.ATMem {
		a = "[" + k.zero(b32) + "]"
	}
	ops := []string{"[" + d + "]", a, k.zero(b64)}
	if v.Sparse {
		ops = append(ops, "["+k.zero(b32)+"]")
	}
	ops = append(ops, k.zero(b32))
	if v.BlockScale {
		ops = append(ops, "["+k.zero(b32)+"]", "["+k.zero(b32)+"]")
	}
	ops = append(ops, k.zero(pred))
	if v.ScaleInputAcc {
		ops = append(ops, fmt.Sprint(v.ScaleInputD))
	}
	k.emit("%s %s;", name, join(ops))
	return nil
}

// kindWordName is the instruction with its qualifiers.
func kindWordName(v kw.Value) (string, error) {
	if v.Kind == kw.Reserved6 {
		return "", noSpelling("kind", "reserved-6", "for reserved mma kind 6")
	}
	var cta string
	switch v.CTAGroup {
	case 1, 2:
		cta = fmt.Sprintf("cta_group::%d", v.CTAGroup)
	case 3:
		cta = "cta_group::4" // the seed reads field value 3 as "4-CTA"
	default:
		return "", noSpelling("cta_group", "reserved", "for reserved cta_group field value %d", v.CTAGroup)
	}
	var scale string
	switch v.ScaleVec {
	case kw.Scale1X, kw.Scale2X, kw.Scale4X:
		scale = "scale_vec::" + v.ScaleVec.String()
	case kw.ScaleReserved3:
		return "", noSpelling("scale_vec", "reserved-3", "for reserved scale_vector_size field value 3")
	}
	var bs, coll, ashift, ws, sp string
	if v.BlockScale {
		bs = "block_scale" // a scale vector without it is still written
	}
	if v.CollectorA != kw.Discard {
		coll = "collector::a::" + v.CollectorA.String()
	}
	if v.AShift {
		ashift = "ashift"
	}
	if v.WS {
		ws = "ws"
	}
	if v.Sparse {
		sp = "sp"
	}
	return mods("tcgen05", "mma", ws, sp, cta, "kind::"+v.Kind.String(), bs, scale, coll, ashift), nil
}
