// Package stress runs legalfuzz under load and measures what holds: the
// soak (a real campaign, with its workers as child processes, under
// SIGKILLs and a storm of forged messages, then its store audited) and the
// store bench (what the store costs per judged case, its commit throughput,
// and the report's time and memory on it). cmd/legalfuzz's "bench soak"
// and "bench store" are their command lines; oracles/bench measures the
// oracles.
package stress

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/reliability"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/bench"
)

// SoakOptions are a soak's settings; cmd/legalfuzz's bench soak documents
// each as a flag.
type SoakOptions struct {
	Duration, KillEvery, Drain time.Duration
	CampaignKills, Workers     int
	Forged, Oversized          int
	Oracles, Domains           []string
	Generator, FuzzBinary      string
	// Dir is the work folder, replaced: NATS data, the store, logs.
	Dir           string
	Liar, Hanging bool
	// Exe is the legalfuzz binary the campaign and the workers run.
	Exe string
	// UserOracles are --oracle specs (NAME=COMMAND) the campaign and every
	// worker are given; their names are among Oracles too.
	UserOracles []string
	// Command is the command line the report records.
	Command string
	// Log receives the soak's progress lines.
	Log io.Writer
}

// Campaign is the campaign ID of every soak: the storm forges for it.
const Campaign = "soak"

// Marker is in every forged diagnostic and reason of the storm.
const Marker = "LEGALFUZZ-SOAK-FORGED"

// SoakReport is the JSON of a soak.
type SoakReport struct {
	Generated      time.Time         `json:"generated"`
	Command        string            `json:"command"`
	Machine        bench.Machine     `json:"machine"`
	DurationS      float64           `json:"duration_s"`
	WallS          float64           `json:"wall_s"`
	Campaign       string            `json:"campaign"`
	Oracles        []string          `json:"oracles"`
	Domains        []string          `json:"domains"`
	Generator      string            `json:"generator"`
	Workers        int               `json:"workers"`
	WorkerKills    int               `json:"worker_kills"`
	WorkerRestarts int               `json:"worker_restarts"`
	CampaignStarts int               `json:"campaign_starts"`
	CampaignKills  int               `json:"campaign_kills"`
	CampaignExits  []string          `json:"campaign_exits"`
	Storm          StormCounts       `json:"storm"`
	Store          reliability.Audit `json:"store"`
	// Quarantine is the campaign's quarantined workers; LiarCaught says the
	// lying worker is among them, and no honest one is.
	Quarantine []store.Quarantine `json:"quarantine"`
	LiarCaught bool               `json:"liar_caught,omitempty"`
	// HangingWorker is how the worker given the hanging toolchain ended.
	HangingWorker string `json:"hanging_worker,omitempty"`
	OK            bool   `json:"ok"`
}

// Validate refuses settings a soak cannot run with, before anything starts.
func (o *SoakOptions) Validate() error {
	if o.Duration <= 0 || o.KillEvery <= 0 || o.Drain <= 0 {
		return fmt.Errorf("--duration %s, --worker-kill-every %s and --drain-timeout %s must be positive", o.Duration, o.KillEvery, o.Drain)
	}
	if o.CampaignKills < 0 || o.Workers < 1 || o.Forged < 0 || o.Oversized < 0 {
		return errors.New("--campaign-kills, --forged and --oversized must not be negative, --workers at least 1")
	}
	for _, name := range o.Oracles {
		if _, ok := oracles.Lookup(name); !ok {
			return fmt.Errorf("unknown oracle %q (see legalfuzz oracles)", name)
		}
	}
	return coordinator.Validate(store.CampaignConfig{Domains: o.Domains})
}

// Soak runs a soak with o's settings and audits its store. A soak whose
// invariants fail is no error: the report says so (OK).
func Soak(ctx context.Context, o SoakOptions) (SoakReport, error) {
	if err := os.RemoveAll(o.Dir); err != nil {
		return SoakReport{}, err
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return SoakReport{}, err
	}
	rep := SoakReport{Generated: time.Now().UTC(), Command: o.Command, DurationS: o.Duration.Seconds(),
		Campaign: Campaign, Oracles: o.Oracles, Domains: o.Domains, Generator: o.Generator, Workers: o.Workers,
		Machine: bench.ThisMachine()}
	ns, users, err := startSoakNATS(filepath.Join(o.Dir, "nats"))
	if err != nil {
		return rep, err
	}
	defer ns.Shutdown()
	start := time.Now()
	if err := o.soak(ctx, ns, users, &rep); err != nil {
		return rep, err
	}
	rep.WallS = time.Since(start).Seconds()
	db, err := store.OpenStoreReadOnly(filepath.Join(o.Dir, "campaign", "legalfuzz.db"), 10*time.Second)
	if err != nil {
		return rep, err
	}
	rep.Store, err = reliability.AuditCampaign(db, Campaign, Marker)
	if err == nil {
		rep.Quarantine, err = quarantine(db)
	}
	db.Close()
	if err != nil {
		return rep, err
	}
	rep.LiarCaught = len(rep.Quarantine) == 1 && rep.Quarantine[0].Worker == Liar
	rep.OK = rep.Store.OK() && (rep.LiarCaught || !o.Liar && len(rep.Quarantine) == 0)
	return rep, nil
}

// soakUsers are the generated passwords of the soak server's two users.
type soakUsers struct{ coordinator, worker string }

// startSoakNATS starts a NATS server with JetStream on a free loopback port
// with two users: the coordinator (every permission) and a worker holding
// exactly the documented worker permissions.
func startSoakNATS(dir string) (*server.Server, soakUsers, error) {
	u := soakUsers{coordinator: secret(), worker: secret()}
	ns, err := server.NewServer(&server.Options{ServerName: "legalfuzz-soak", Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: dir, NoSigs: true, NoLog: true, Users: []*server.User{
			{Username: "coordinator", Password: u.coordinator},
			{Username: "worker", Password: u.worker, Permissions: &server.Permissions{
				Publish:   &server.SubjectPermission{Allow: queue.WorkerPublish},
				Subscribe: &server.SubjectPermission{Allow: queue.WorkerSubscribe}}},
		}})
	if err != nil {
		return nil, u, fmt.Errorf("soak NATS: %w", err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, u, errors.New("soak NATS did not start within 10s")
	}
	return ns, u, nil
}

func secret() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Liar names the soak's lying worker.
const Liar = "soak-liar"

// quarantine is the soak campaign's quarantined workers.
func quarantine(db *store.Store) ([]store.Quarantine, error) {
	camp, _, err := db.GetCampaign(Campaign)
	return camp.Quarantine, err
}
