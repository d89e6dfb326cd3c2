package cuda

import (
	"context"
	"encoding/binary"
	"reflect"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// These tests run the gpu oracle's planning, launch layout, batching and
// fault splitting against executors that play the kernels in Go. They
// check the plumbing (jobs, offsets, regions, read-back), not the hardware.

// fakeDevice is an sm_90 device as Open would describe an H100.
func fakeDevice() *Device {
	return &Device{Driver: &Driver{Version: 12040}, Name: "fake H100", SM: 90, MaxSharedBytes: 227 << 10}
}

// fakeLDSM plays the ldsm kernels: a row offset that is not 16-byte
// aligned faults the launch, as a misaligned ldmatrix would.
type fakeLDSM struct{ launches int }

func (f *fakeLDSM) Close() error { return nil }

func (f *fakeLDSM) Run(_ context.Context, l Launch) (LaunchResult, error) {
	f.launches++
	var form LDSMForm
	for _, g := range LDSMForms() {
		if g.Kernel() == l.Kernel {
			form = g
		}
	}
	offs := l.Buffers[2].Init
	out := make([]byte, l.Buffers[1].Size)
	for b := 0; b < len(offs)/4; b++ {
		off := int(binary.LittleEndian.Uint32(offs[4*b:]))
		if off%16 != 0 {
			return LaunchResult{Fault: "CUDA_ERROR_MISALIGNED_ADDRESS", Sticky: true}, nil
		}
		if form.Op == ldsm.Store {
			copy(out[b*ldsmTileBytes:], ExpectSTSM(form, off))
			continue
		}
		regs := ExpectLDSM(form, off, l.Buffers[0].Init)
		for t := range ldsmThreads {
			for m, r := range regs[t] {
				binary.LittleEndian.PutUint32(out[4*((b*ldsmThreads+t)*form.Num+m):], r)
			}
		}
	}
	return LaunchResult{Buffers: [][]byte{nil, out, nil}}, nil
}

func ldsmValue(op ldsm.Op, num uint8, trans bool, align uint16) ldsm.Value {
	v := ldsm.Value{Op: op, Mode: ldsm.ModeOf(ldsm.M8N8, trans), Shape: ldsm.M8N8, NumMatrices: num, Transpose: trans,
		Size: ldsm.B16, ResultRank: 1, ResultDim0: uint8(ldsm.ElementsPerLane(ldsm.M8N8, int(num))), Src: ldsm.Shared,
		Dst: ldsm.Register, Align: align, RegisterCount: num, Cosize: num, Tgt: target.MustParse("sm_90", "")}
	if op == ldsm.Store {
		v.Src, v.Dst = ldsm.Register, ldsm.Shared
	}
	return v
}

func TestGPULDSMWithFakeKernels(t *testing.T) {
	var cases []domain.Case
	for _, op := range []ldsm.Op{ldsm.Load, ldsm.Store} {
		for _, num := range []uint8{1, 2, 4} {
			for _, trans := range []bool{false, true} {
				for _, align := range []uint16{1, 4, 8, 16, 32, 256, 1024} {
					cases = append(cases, domain.NewCase(ldsm.Name, ldsmValue(op, num, trans, align)))
				}
			}
		}
	}
	u16 := ldsmValue(ldsm.Load, 4, false, 16)
	u16.Size = ldsm.U16
	cases = append(cases, domain.NewCase(ldsm.Name, u16), cases[3]) // a seed spelling, and a repeat
	fake := &fakeLDSM{}
	o := NewGPUOracle(fakeDevice(), fake)
	vs, err := o.Judge(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vs {
		c := cases[i].Value.(ldsm.Value)
		want := oracles.Accept
		switch {
		case c.Size == ldsm.U16:
			want = oracles.Unsupported
		case c.Align < 16:
			want = oracles.Reject
		}
		if v.Kind != want || v.Case != cases[i].ID || v.Oracle != GPUName {
			t.Errorf("%v align %d: %+v, want %s", c, c.Align, v, want)
		}
		if want == oracles.Reject && v.Diagnostic != "CUDA_ERROR_MISALIGNED_ADDRESS" {
			t.Errorf("fault diagnostic %q", v.Diagnostic)
		}
		if want == oracles.Accept && !strings.HasPrefix(v.Value, "sha256:") {
			t.Errorf("accept without a data hash: %+v", v)
		}
	}
	if !reflect.DeepEqual(vs[len(vs)-1], vs[3]) {
		t.Errorf("a repeated case got another verdict")
	}
	t.Logf("%d cases in %d launches", len(cases), fake.launches)
}

// A kernel that returns other data than predicted is a result verdict
// that says where it differs.
func TestGPULDSMMismatchIsResult(t *testing.T) {
	o := NewGPUOracle(fakeDevice(), corrupting{&fakeLDSM{}})
	c := domain.NewCase(ldsm.Name, ldsmValue(ldsm.Load, 2, true, 64))
	vs, err := o.Judge(context.Background(), []domain.Case{c})
	if err != nil {
		t.Fatal(err)
	}
	if vs[0].Kind != oracles.Result || !strings.Contains(vs[0].Diagnostic, "lane 0 matrix 0") {
		t.Fatalf("%+v", vs[0])
	}
}

// corrupting flips the first byte the kernel wrote.
type corrupting struct{ Executor }

func (c corrupting) Run(ctx context.Context, l Launch) (LaunchResult, error) {
	r, err := c.Executor.Run(ctx, l)
	if len(r.Buffers) > 1 && len(r.Buffers[1]) > 0 {
		r.Buffers[1][0] ^= 0xff
	}
	return r, err
}

// fakeTMA plays the tma_tile kernel from the launch alone: it decodes
// each job, reads the tensor through the address the map patch gives
// (region placement included) and writes the predicted window. A call
// with a reserved swizzle is refused, as the driver would.
type fakeTMA struct{ launches int }

func (f *fakeTMA) Close() error { return nil }

// fake buffer addresses: 256-aligned, as cuMemAlloc's.
const fakeGlobalBase, fakeOutBase = 0x7f0000000000, 0x7f1000000000

func (f *fakeTMA) Run(_ context.Context, l Launch) (LaunchResult, error) {
	f.launches++
	res := LaunchResult{MapErrors: make([]string, len(l.Maps))}
	for i, m := range l.Maps {
		if m.Call.Value.Swizzle > 6 {
			res.MapErrors[i] = "CUDA_ERROR_INVALID_VALUE"
		}
	}
	if res.mapFailed() {
		return res, nil
	}
	le := binary.LittleEndian
	jobs := append([]byte(nil), l.Buffers[0].Init...)
	global := append(append([]byte(nil), l.Buffers[1].Init...), make([]byte, l.Buffers[1].Size-len(l.Buffers[1].Init))...)
	out := make([]byte, l.Buffers[2].Size)
	for i, m := range l.Maps {
		j := m.Offset
		origin := fakeGlobalBase + m.GlobalOffset
		if origin%AddressPeriod != m.Call.Value.GlobalAddress%AddressPeriod {
			return res, nil // the map would not keep the case's alignment: leave status 0
		}
		v := m.Call.Value
		size := uint64(v.DType.SMemBits() / 8)
		elem := func(off uint64) []byte { a := origin + off - fakeGlobalBase; return global[a : a+size] }
		var coords [5]int32
		for d := range coords {
			coords[d] = int32(le.Uint32(jobs[j+tmaJobCoords+4*d:]))
		}
		want, err := ExpectTile(v, coords, le.Uint32(jobs[j+tmaJobDstOff:]), elem)
		if err != nil || int(le.Uint32(jobs[j+tmaJobWindow:])) != len(want.Bytes) ||
			int(le.Uint32(jobs[j+tmaJobBox:])) != want.BoxBytes {
			return res, nil
		}
		w := l.Pointers[i].Add
		if l.Pointers[i].Offset != j+tmaJobOut || l.Pointers[i].Target != 2 {
			return res, nil
		}
		copy(out[w:], want.Bytes)
		for _, s := range want.NaN {
			for b := range s.Len {
				out[int(w)+s.Off+b] = 0xff
			}
		}
		le.PutUint32(jobs[j+tmaJobStatus:], 1)
	}
	res.Buffers = [][]byte{jobs, nil, out}
	return res, nil
}

// Every tmadesc seed the check can run matches its prediction through the
// fake kernel: jobs, regions, windows and residues are laid out as the
// kernel reads them. Refused maps make their cases unsupported only.
func TestGPUTMAWithFakeKernel(t *testing.T) {
	var cases []domain.Case
	for _, v := range tmadesc.Seeds() {
		cases = append(cases, domain.NewCase(tmadesc.Name, v))
	}
	refused := domain.NewCase(tmadesc.Name, tmadesc.With(tmadesc.BaseTiled, func(v *tmadesc.Value) { v.Swizzle = tmadesc.SwizzleReserved }))
	oob := domain.NewCase(tmadesc.Name, tmadesc.With(tmadesc.BaseTiled, func(v *tmadesc.Value) {
		v.DType, v.OOBFill, v.BoxDim[0], v.Swizzle = tmadesc.Float32, tmadesc.OOBNaN, 32, tmadesc.Swizzle128B
		v.GlobalAddress = 0x100050 // residue 0x50: kept by the region placement
	}))
	cases = append(cases, refused, oob)
	fake := &fakeTMA{}
	o := NewGPUOracle(fakeDevice(), fake)
	vs, err := o.Judge(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[oracles.Kind]int{}
	for i, v := range vs {
		kinds[v.Kind]++
		switch {
		case cases[i].ID == refused.ID:
			if v.Kind != oracles.Unsupported || !strings.Contains(v.Diagnostic, "CUDA_ERROR_INVALID_VALUE") {
				t.Errorf("refused map: %+v", v)
			}
		case v.Kind != oracles.Accept && v.Kind != oracles.Unsupported:
			t.Errorf("%v: %+v", cases[i].Value, v)
		case cases[i].ID == oob.ID && v.Kind != oracles.Accept:
			t.Errorf("NaN-filled float box: %+v", v)
		}
	}
	if kinds[oracles.Accept] < 10 {
		t.Errorf("only %d seeds ran: %v", kinds[oracles.Accept], kinds)
	}
	t.Logf("%d cases: %v in %d launches", len(cases), kinds, fake.launches)
}
