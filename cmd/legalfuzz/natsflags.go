package main

import (
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/spf13/pflag"
)

// natsFlags are the NATS connection options shared by campaign, coordinator
// and worker; auth and TLS pass straight through to nats.go.
type natsFlags struct {
	url, user, password, token, creds string
	tlsCert, tlsKey, tlsCA            string
}

func (f *natsFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.url, "nats", "", "NATS server URL(s), comma separated; empty starts an embedded server")
	fs.StringVar(&f.user, "nats-user", "", "NATS user name")
	fs.StringVar(&f.password, "nats-password", "", "NATS password (or set LEGALFUZZ_NATS_PASSWORD)")
	fs.StringVar(&f.token, "nats-token", "", "NATS auth token")
	fs.StringVar(&f.creds, "nats-creds", "", "NATS credentials file (JWT + NKey)")
	fs.StringVar(&f.tlsCert, "nats-tls-cert", "", "client TLS certificate")
	fs.StringVar(&f.tlsKey, "nats-tls-key", "", "client TLS key")
	fs.StringVar(&f.tlsCA, "nats-tls-ca", "", "CA certificate to verify the server")
}

// connect dials the NATS servers named by --nats.
func (f *natsFlags) connect(name string) (*nats.Conn, error) {
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1)}
	if f.user != "" {
		opts = append(opts, nats.UserInfo(f.user, envOr(f.password, "LEGALFUZZ_NATS_PASSWORD")))
	}
	if f.token != "" {
		opts = append(opts, nats.Token(f.token))
	}
	if f.creds != "" {
		opts = append(opts, nats.UserCredentials(f.creds))
	}
	if f.tlsCert != "" || f.tlsKey != "" {
		opts = append(opts, nats.ClientCert(f.tlsCert, f.tlsKey))
	}
	if f.tlsCA != "" {
		opts = append(opts, nats.RootCAs(f.tlsCA))
	}
	nc, err := nats.Connect(f.url, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to NATS %s: %w", f.url, err)
	}
	return nc, nil
}
