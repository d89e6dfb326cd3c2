package opsurface

import (
	"cmp"
	"slices"
)

// Coverage is what a surface lets legalfuzz generate: the dialect's ops,
// those it can write, and why not the others.
type Coverage struct {
	Dialect string `json:"dialect"`
	Ops     int    `json:"ops"`
	// Instantiable are the ops legalfuzz can write.
	Instantiable int `json:"instantiable"`
	// Lowering are the ops that translate to LLVM IR themselves (an
	// intrinsic named in the record, or one C++ picks), and
	// LoweringInstantiable those of them legalfuzz can write: what llc
	// judges.
	Lowering             int `json:"lowering"`
	LoweringInstantiable int `json:"lowering_instantiable"`
	// Reasons count the ops left out by reason, most first (an op with
	// several is counted under the first its record shows).
	Reasons []ReasonCount `json:"reasons,omitempty"`
}

// ReasonCount is one reason and the ops it leaves out.
type ReasonCount struct {
	Reason Reason   `json:"reason"`
	Ops    []string `json:"ops"`
}

// Coverage counts the surface.
func (s Surface) Coverage() Coverage {
	c := Coverage{Dialect: s.Dialect, Ops: len(s.Ops)}
	byReason := map[Reason]int{}
	for _, op := range s.Ops {
		lowers := op.Lowering.Kind != NoLowering
		if lowers {
			c.Lowering++
		}
		if op.Unusable == nil {
			c.Instantiable++
			if lowers {
				c.LoweringInstantiable++
			}
			continue
		}
		i, ok := byReason[*op.Unusable]
		if !ok {
			i = len(c.Reasons)
			byReason[*op.Unusable] = i
			c.Reasons = append(c.Reasons, ReasonCount{Reason: *op.Unusable})
		}
		c.Reasons[i].Ops = append(c.Reasons[i].Ops, op.Name)
	}
	slices.SortStableFunc(c.Reasons, func(a, b ReasonCount) int {
		return cmp.Or(cmp.Compare(len(b.Ops), len(a.Ops)), cmp.Compare(a.Reason.String(), b.Reason.String()))
	})
	return c
}
