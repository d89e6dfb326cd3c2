package waitcntasm

import "github.com/legalfuzz/legalfuzz/fuzz/domain"

// inst builds a value; counts lists field index and count pairs. For the
// helper syntaxes the counts given are the ones written; for the integer
// syntaxes the others are at their maximum.
func inst(target string, op Op, syn Syntax, counts ...int) Value {
	v := Value{CPU: mustTarget(target), Op: op, Syntax: syn}
	l, _ := v.Layout()
	if !syn.Helpers() {
		for i, f := range l.Fields {
			v.Counts[i] = uint16(f.Max())
		}
	}
	for i := 0; i+1 < len(counts); i += 2 {
		v.Counts[counts[i]] = uint16(counts[i+1])
		v.Named |= 1 << counts[i]
	}
	return v.normalize()
}

// Seeds are one instruction per generation in every syntax, each field's
// boundary (its maximum and one above, named and as an integer that spills
// into the next field or past bit 15), operands with bits no field uses,
// and instructions on targets that lack them.
func Seeds() []domain.Value {
	const vm, exp, lgkm = 0, 1, 2
	var vs []Value
	for syn := range numSyntaxes {
		vs = append(vs, inst("gfx942", Waitcnt, syn, vm, 1, exp, 2, lgkm, 3))
	}
	vs = append(vs,
		inst("gfx900", Waitcnt, Named, vm, 63), inst("gfx900", Waitcnt, Named, vm, 64), // vmcnt: 6 bits, split
		inst("gfx900", Waitcnt, Dec, vm, 64),                                             // spills past bit 15
		inst("gfx90a", Waitcnt, Named, lgkm, 16), inst("gfx90a", Waitcnt, Hex, lgkm, 16), // lgkmcnt 4 bits on gfx9
		inst("gfx908", Waitcnt, Named, exp, 8), inst("gfx908", Waitcnt, Sat, vm, 100, lgkm, 100),
		inst("gfx940", Waitcnt, Hex, vm, 0, exp, 0, lgkm, 0), inst("gfx950", Waitcnt, Named, vm, 0),
		Value{CPU: mustTarget("gfx900"), Op: Waitcnt, Syntax: Hex, Counts: [3]uint16{63, 15, 255}}.normalize(), // 0xffff: unused bits 7, 12, 13 set
		inst("gfx1010", Waitcnt, Named, lgkm, 16), inst("gfx1030", Waitcnt, Named, lgkm, 64),
		inst("gfx1030", Waitcnt, Comma, vm, 5, lgkm, 40), inst("gfx10-3-generic", Waitcnt, Expr, vm, 33),
		inst("gfx1030", WaitcntVScnt, Dec, 0, 3), inst("gfx1010", WaitcntVScnt, Hex, 0, 64),
		inst("gfx1100", Waitcnt, Named, vm, 1, exp, 2, lgkm, 3), inst("gfx1100", Waitcnt, Named, vm, 64),
		inst("gfx1103", Waitcnt, Expr, vm, 1, exp, 2, lgkm, 3), inst("gfx1150", Waitcnt, Amp, exp, 8),
		inst("gfx1100", WaitcntVScnt, Dec, 0, 63), inst("gfx11-generic", Waitcnt, Dec, lgkm, 64),
		inst("gfx1200", Waitcnt, Named, vm, 3), inst("gfx1200", WaitLoadcnt, Dec, 0, 3), inst("gfx1201", WaitLoadcnt, Hex, 0, 64),
		inst("gfx1200", WaitKmcnt, Dec, 0, 31), inst("gfx1200", WaitKmcnt, Dec, 0, 32),
		inst("gfx1200", WaitBvhcnt, Dec, 0, 8), inst("gfx12-generic", WaitExpcnt, Dec, 0, 7),
		inst("gfx1200", WaitLoadcntDscnt, Expr, 0, 1, 1, 2), inst("gfx1200", WaitStorecntDscnt, Hex, 0, 63, 1, 64),
		inst("gfx1200", WaitSamplecnt, Dec, 0, 0), inst("gfx1200", WaitDscnt, Dec, 0, 0xffff),
		inst("gfx1250", WaitLoadcnt, Dec, 0, 5), inst("gfx1250", WaitExpcnt, Dec, 0, 1), inst("gfx1250", Waitcnt, Named, vm, 1),
		inst("gfx942", WaitLoadcnt, Dec, 0, 1), inst("gfx1200", WaitcntVScnt, Dec, 0, 1),
	)
	out := make([]domain.Value, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}
