package schedule

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// ChainKind is what a circular-buffer chain carries.
type ChainKind uint8

const (
	// ChainOperand: MMA operands loaded by TMA, one item per k-step of every tile.
	ChainOperand ChainKind = iota
	// ChainResult: tcgen05 accumulators in tensor memory, one item per tile.
	ChainResult
	// ChainInput: an epilogue input (a bias) loaded by TMA, one item per tile.
	ChainInput
)

// ChainKinds spells the chain kinds.
var ChainKinds = domain.Enum{"operand", "result", "input"}

// Chain is one edge group of the role DAG: a circular buffer of Stages
// slots written by Producer and read by every role in Consumers (a mask).
type Chain struct {
	Kind      ChainKind
	Producer  uint8
	Consumers uint8
	Stages    uint8
}

// MaxChains bounds a DAG's chains; MaxDAGSlots bounds the slots of all
// chains together, so that two mbarriers per slot fit in MaxBarriers.
const (
	MaxChains   = 3
	MaxDAGSlots = 6
	// TMABytes is what one TMA load of a slot delivers.
	TMABytes = 4096
)

// DAG is a warp-specialized kernel as seed 003 draws it: roles (nodes) and
// circular-buffer chains (edges, with shared consumers), run over Tiles
// output tiles of KIters k-steps each. Blackwell kernels have load warps, one
// MMA warp (tcgen05) and epilogue warpgroups; Hopper kernels have load warps
// and compute warpgroups (wgmma). Store makes the first consumer of the last
// stage write its output through shared memory and a TMA store.
type DAG struct {
	Blackwell bool
	NRoles    uint8
	Roles     [MaxRoles]RoleKind
	NChains   uint8
	Chains    [MaxChains]Chain
	Tiles     uint8
	KIters    uint8
	Store     bool
}

// ChainList returns the chains in use.
func (d *DAG) ChainList() []Chain { return d.Chains[:d.NChains] }

// rolesOf returns the indices of roles of kind k.
func (d *DAG) rolesOf(k RoleKind) []int {
	var out []int
	for i, rk := range d.Roles[:d.NRoles] {
		if rk == k {
			out = append(out, i)
		}
	}
	return out
}

// dagCodec reads or writes the choices that build a DAG, in one order, so
// DecodeDAG and EncodeDAG stay inverse.
type dagCodec struct {
	r *domain.Reader
	w *domain.Writer
}

// pick reads (or writes) a choice among n.
func (c *dagCodec) pick(n int, v *int) {
	if c.r != nil {
		*v = c.r.Index(n)
		return
	}
	c.w.U8(uint8(*v))
}

// mask picks a non-empty subset of the roles in pool, as a role mask.
func (c *dagCodec) mask(pool []int, m *uint8) {
	idx := 0
	if c.w != nil {
		for i, r := range pool {
			if *m&(1<<r) != 0 {
				idx |= 1 << i
			}
		}
		idx--
	}
	c.pick(1<<len(pool)-1, &idx)
	idx++
	*m = 0
	for i, r := range pool {
		if idx&(1<<i) != 0 {
			*m |= 1 << r
		}
	}
}

// walk builds d from the codec's choices (decoding) or writes d's choices
// (encoding).
func (c *dagCodec) walk(d *DAG) {
	bw, nLoad, nCons := b2i(d.Blackwell), int(len(d.rolesOf(RoleLoad)))-1, 0
	c.pick(2, &bw)
	c.pick(2, &nLoad)
	nLoad++
	consKind, maxCons := RoleCompute, MaxRoles-nLoad
	if bw == 1 {
		consKind, maxCons = RoleEpilogue, MaxRoles-nLoad-1
	}
	if c.w != nil {
		nCons = len(d.rolesOf(consKind)) - 1
	}
	c.pick(maxCons, &nCons)
	nCons++
	d.Blackwell, d.NRoles = bw == 1, 0
	add := func(k RoleKind, n int) {
		for range n {
			d.Roles[d.NRoles] = k
			d.NRoles++
		}
	}
	add(RoleLoad, nLoad)
	if d.Blackwell {
		add(RoleMMA, 1)
	}
	add(consKind, nCons)
	loads, cons := d.rolesOf(RoleLoad), d.rolesOf(consKind)
	nOperand := 0
	if c.w != nil {
		for _, ch := range d.ChainList() {
			if ch.Kind == ChainOperand {
				nOperand++
			}
		}
		nOperand--
	}
	c.pick(2, &nOperand)
	nOperand++
	var chains []Chain
	for range nOperand {
		chains = append(chains, Chain{Kind: ChainOperand})
	}
	if d.Blackwell {
		chains = append(chains, Chain{Kind: ChainResult})
	}
	hasInput := 0
	if len(chains) < MaxChains {
		if c.w != nil && int(d.NChains) > len(chains) {
			hasInput = 1
		}
		c.pick(2, &hasInput)
		if hasInput == 1 {
			chains = append(chains, Chain{Kind: ChainInput})
		}
	}
	used := 0
	for i := range chains {
		c.chain(d, i, chains, loads, cons, &used)
	}
	d.NChains = uint8(len(chains))
	copy(d.Chains[:], chains)
	for i := len(chains); i < MaxChains; i++ {
		d.Chains[i] = Chain{}
	}
	tiles, k, store := int(d.Tiles)-1, int(d.KIters)-1, b2i(d.Store)
	c.pick(3, &tiles)
	c.pick(3, &k)
	c.pick(2, &store)
	d.Tiles, d.KIters, d.Store = uint8(tiles+1), uint8(k+1), store == 1
	for i := int(d.NRoles); i < MaxRoles; i++ {
		d.Roles[i] = 0
	}
}

// chain reads or writes chain i's producer, consumers and stages.
func (c *dagCodec) chain(d *DAG, i int, chains []Chain, loads, cons []int, used *int) {
	ch := &chains[i]
	if c.w != nil {
		*ch = d.Chains[i]
	}
	mma := len(loads) // the MMA warp follows the load warps
	switch ch.Kind {
	case ChainOperand, ChainInput:
		p := 0
		if c.w != nil {
			p = int(ch.Producer)
		}
		c.pick(len(loads), &p)
		ch.Producer = uint8(loads[p])
		if ch.Kind == ChainOperand && d.Blackwell {
			ch.Consumers = 1 << mma
		} else {
			c.mask(cons, &ch.Consumers)
		}
	case ChainResult:
		ch.Producer = uint8(mma)
		ch.Consumers = 0
		for _, r := range cons {
			ch.Consumers |= 1 << r
		}
	}
	maxStages := min(3, MaxDAGSlots-*used-(len(chains)-1-i))
	s := int(ch.Stages) - 1
	c.pick(maxStages, &s)
	ch.Stages = uint8(s + 1)
	*used += int(ch.Stages)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// DecodeDAG builds a DAG from fuzz bytes; every input gives a valid DAG.
func DecodeDAG(data []byte) DAG {
	var d DAG
	(&dagCodec{r: domain.NewReader(data)}).walk(&d)
	return d
}

// Encode returns bytes that DecodeDAG maps back to d.
func (d DAG) Encode() []byte {
	var w domain.Writer
	e := d
	(&dagCodec{w: &w}).walk(&e)
	return w.Bytes
}

// RandomDAG draws a DAG from rng.
func RandomDAG(rng *rand.Rand) DAG {
	buf := make([]byte, 32)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	return DecodeDAG(buf)
}

func (d DAG) String() string {
	var b strings.Builder
	arch := "hopper"
	if d.Blackwell {
		arch = "blackwell"
	}
	fmt.Fprintf(&b, "%s roles=[", arch)
	for i, r := range d.Roles[:d.NRoles] {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(r.String())
	}
	b.WriteString("] chains=[")
	for i, c := range d.ChainList() {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s:%d->%04b/%d", ChainKinds.Name(int(c.Kind)), c.Producer, c.Consumers, c.Stages)
	}
	fmt.Fprintf(&b, "] tiles=%d k=%d store=%v", d.Tiles, d.KIters, d.Store)
	return b.String()
}
