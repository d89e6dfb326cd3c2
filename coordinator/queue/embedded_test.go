package queue

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestEmbeddedOpensNoPort: a plain campaign's server is reachable only from
// its own process; anyone else on the machine could otherwise publish
// forged results.
func TestEmbeddedOpensNoPort(t *testing.T) {
	ns, err := Embedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Shutdown()
	if addr := ns.Addr(); addr != nil {
		t.Fatalf("embedded server listens on %s", addr)
	}
	nc, err := ConnectInProcess(ns, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if err := nc.FlushTimeout(5 * time.Second); err != nil {
		t.Fatalf("in-process connection: %v", err)
	}
}

// TestWorkerPermissionsDocumented keeps docs/gpu-worker.md's nats-server
// configuration in step with WorkerPublish and WorkerSubscribe.
func TestWorkerPermissionsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/gpu-worker.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, subject := range append(WorkerPublish, WorkerSubscribe...) {
		if !strings.Contains(string(doc), `"`+subject+`"`) {
			t.Errorf("docs/gpu-worker.md does not list %q", subject)
		}
	}
}
