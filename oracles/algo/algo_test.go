package algo

import (
	"context"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	sc "github.com/legalfuzz/legalfuzz/fuzz/schedule"
)

func judge(t *testing.T, js string) (string, string) {
	t.Helper()
	v, err := sc.ParseJSON([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := FenceProxy{}.Judge(context.Background(), []domain.Case{domain.NewCase(sc.Name, v)})
	if err != nil {
		t.Fatal(err)
	}
	return string(vs[0].Kind), vs[0].Rule + " " + vs[0].Diagnostic
}

// TestFenceProxyKnownAnswers: the seed 002 example (a generic store, then a
// wgmma reading the buffer) gets its fence and passes; a generic store
// handed to another role's TMA store through an mbarrier is the pass's blind
// spot: the hazard remains.
func TestFenceProxyKnownAnswers(t *testing.T) {
	kind, _ := judge(t, `{"target":"sm_90a","buffers":["smem"],"roles":[{"kind":"compute","ops":[
		{"op":"st.shared","a":0},{"op":"wgmma.fence"},{"op":"wgmma.mma_async","a":0,"b":0},
		{"op":"wgmma.commit_group"},{"op":"wgmma.wait_group","n":0}]}]}`)
	if kind != "accept" {
		t.Fatalf("seed 002 example: %s, want accept (the pass inserts the fence)", kind)
	}
	kind, why := judge(t, `{"buffers":["smem"],"barriers":[{"count":1}],"tensormaps":1,"roles":[
		{"kind":"compute","ops":[{"op":"st.shared","a":0},{"op":"mbarrier.arrive","bar":0}]},
		{"kind":"epilogue","ops":[{"op":"mbarrier.try_wait.parity","bar":0,"parity":0},{"op":"cp.async.bulk.tensor.store","a":0,"tmap":0}]}]}`)
	if kind != "reject" || !strings.Contains(why, "proxy") {
		t.Fatalf("cross-role TMA store: %s %q, want a reject for the remaining proxy hazard", kind, why)
	}
}

// TestFenceProxyBoundIsNoVerdict: an output the model cannot explore within
// the schedule's state bound gets no verdict, not a reject.
func TestFenceProxyBoundIsNoVerdict(t *testing.T) {
	for _, ex := range sc.Examples() {
		if ex.Want != "bound-exceeded" {
			continue
		}
		vs, err := FenceProxy{}.Judge(context.Background(), []domain.Case{domain.NewCase(sc.Name, ex.V)})
		if err != nil {
			t.Fatal(err)
		}
		if vs[0].Kind != "unsupported" || !strings.Contains(vs[0].Diagnostic, "bound") {
			t.Errorf("%s: %s %q, want unsupported for the bound", ex.Name, vs[0].Kind, vs[0].Diagnostic)
		}
		return
	}
	t.Fatal("no bound-exceeded schedule example")
}
