package queue

import (
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Embedded starts a NATS server with JetStream inside this process, storing
// its streams under storeDir. It opens no network port: only in-process
// connections (ConnectInProcess) reach it, so nobody else on the machine can
// publish results or read cases. Remote workers need a real NATS server
// (legalfuzz campaign --nats URL).
func Embedded(storeDir string) (*server.Server, error) {
	ns, err := server.NewServer(&server.Options{
		ServerName: "legalfuzz-embedded",
		DontListen: true,
		JetStream:  true,
		StoreDir:   storeDir,
		NoSigs:     true,
	})
	if err != nil {
		return nil, fmt.Errorf("embedded NATS: %w", err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, fmt.Errorf("embedded NATS did not start within 10s")
	}
	return ns, nil
}

// ConnectInProcess connects to an embedded server without a socket.
func ConnectInProcess(ns *server.Server, name string) (*nats.Conn, error) {
	nc, err := nats.Connect(ns.ClientURL(), nats.InProcessServer(ns), nats.Name(name), nats.MaxReconnects(-1))
	if err != nil {
		return nil, fmt.Errorf("connect to embedded NATS: %w", err)
	}
	return nc, nil
}
