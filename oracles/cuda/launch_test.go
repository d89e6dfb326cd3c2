package cuda

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
)

// A launch crosses to the launch child as JSON and must arrive whole.
func TestLaunchJSONRoundTrip(t *testing.T) {
	l := Launch{PTX: TMATilePTX, Kernel: "tma_tile", Grid: [3]uint32{3, 1, 1}, Block: [3]uint32{128, 1, 1},
		SharedBytes: 70000, Buffers: []Buffer{{Size: 768, Init: []byte{1, 2, 3}, ReadBack: true}, {Size: 16}},
		Maps:     []MapPatch{{Buffer: 0, Offset: 256, Call: NewTensorMapCall(tmadesc.BaseIm2col), Global: 1, GlobalOffset: 1<<64 - 32}},
		Pointers: []PointerPatch{{Buffer: 0, Offset: 168, Target: 1, Add: 64}},
		Params:   []Param{Ptr(0), U32(9)}, Timeout: time.Second}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	var back Launch
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, l) {
		t.Fatalf("launch changed on its way:\n%+v\n%+v", back, l)
	}
	r := LaunchResult{MapErrors: []string{"", "CUDA_ERROR_INVALID_VALUE"}, Buffers: [][]byte{nil, {7}}, Elapsed: time.Millisecond}
	b, _ = json.Marshal(childReply{Result: r})
	var rb childReply
	if err := json.Unmarshal(b, &rb); err != nil || !reflect.DeepEqual(rb.Result, r) {
		t.Fatalf("result changed on its way: %+v, %v", rb.Result, err)
	}
	if r.Ran() || !(LaunchResult{}).Ran() || (LaunchResult{Fault: "x"}).Ran() {
		t.Fatal("Ran")
	}
}
