// Package queuetest starts real NATS servers for tests, as nats-server's own
// test helpers do: JetStream on, a free loopback port, the store in the
// test's temp dir, and shutdown at cleanup. Only tests import it.
package queuetest

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/legalfuzz/legalfuzz/coordinator/queue"
)

// servers numbers the servers of this process: servers routed into one
// cluster must have distinct names.
var servers atomic.Int64

// Server starts a NATS server with JetStream on a free loopback TCP port,
// storing its streams in a temp dir of t. edit, when not nil, adjusts the
// options (auth, cluster routes, a name) before the start. The server is
// shut down at cleanup.
func Server(t testing.TB, edit func(*server.Options)) *server.Server {
	t.Helper()
	opts := &server.Options{ServerName: fmt.Sprintf("queuetest-%d", servers.Add(1)), Host: "127.0.0.1", Port: -1,
		JetStream: true, StoreDir: t.TempDir(), NoSigs: true, NoLog: true}
	if edit != nil {
		edit(opts)
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		t.Fatal("NATS server not ready within 10s")
	}
	t.Cleanup(ns.Shutdown)
	return ns
}

// Connect connects to ns in-process, without a socket, named after the
// test; the connection is closed at cleanup.
func Connect(t testing.TB, ns *server.Server) *nats.Conn {
	t.Helper()
	nc, err := queue.ConnectInProcess(ns, t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// Embedded starts a server with Server and connects to it with Connect.
func Embedded(t testing.TB) (*server.Server, *nats.Conn) {
	t.Helper()
	ns := Server(t, nil)
	return ns, Connect(t, ns)
}
