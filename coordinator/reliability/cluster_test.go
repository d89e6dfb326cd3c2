package reliability_test

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/queue/queuetest"
	"github.com/legalfuzz/legalfuzz/coordinator/reliability"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles/testoracle"
	"github.com/legalfuzz/legalfuzz/worker"
)

// cluster starts n NATS servers with JetStream on loopback, each with its own
// store, routed to each other, and waits until JetStream has a meta leader.
func cluster(t *testing.T, n int) []*server.Server {
	t.Helper()
	ports := make([]int, n)
	var routes []string
	for i := range ports {
		ports[i] = freePort(t)
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", ports[i]))
	}
	servers := make([]*server.Server, n)
	for i := range servers {
		servers[i] = queuetest.Server(t, func(o *server.Options) {
			o.ServerName = fmt.Sprintf("n%d", i)
			o.Cluster = server.ClusterOpts{Name: "lf-reliability", Host: "127.0.0.1", Port: ports[i]}
			o.Routes = server.RoutesFromStr(strings.Join(routes, ","))
		})
	}
	checkFor(t, 30*time.Second, 50*time.Millisecond, func() error {
		for _, s := range servers {
			if s.NumRoutes() < n-1 {
				return fmt.Errorf("%s has %d routes", s.Name(), s.NumRoutes())
			}
		}
		i := slices.IndexFunc(servers, (*server.Server).JetStreamIsLeader)
		if i < 0 {
			return fmt.Errorf("%w: no JetStream meta leader", errNotYet)
		}
		// An R3 stream needs every peer known to the leader, with stats:
		// before that, placement fails ("no suitable peers for placement").
		if peers := servers[i].JetStreamClusterPeers(); len(peers) < n {
			return fmt.Errorf("%w: the meta leader knows %d JetStream peers of %d", errNotYet, len(peers), n)
		}
		return nil
	})
	return servers
}

// freePort finds a loopback TCP port that is free now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestClusterNodeLoss runs a campaign on a 3-node NATS cluster with every
// stream and consumer replicated 3 times, and shuts down one node
// mid-campaign: a node the clients are not connected to, preferably a
// stream leader, so JetStream elects another. The campaign completes with
// nothing lost and nothing judged twice.
func TestClusterNodeLoss(t *testing.T) {
	servers := cluster(t, 3)
	var urls []string
	for _, s := range servers {
		urls = append(urls, s.ClientURL())
	}
	nc := connect(t, "test", urls) // pinned to n0: DontRandomize
	js := jetStream(t, nc)
	qcfg := queue.Config{Replicas: 3, AckWait: 2 * time.Second, MaxDeliver: 10}
	const campaign = "cluster"
	cases := publishKindword(t, js, qcfg, campaign, 64, 4)

	// Each oracle judges a few batches, then waits at the gate until the
	// node is gone: the loss falls mid-campaign however loaded the machine.
	gate := make(chan struct{})
	var openGate sync.Once
	open := func() { openGate.Do(func() { close(gate) }) }
	t.Cleanup(open)
	held := func() func([]domain.Case) {
		var n atomic.Int32
		return func([]domain.Case) {
			if n.Add(1) > 4 {
				<-gate
			}
		}
	}
	var names []string
	for i := range 2 {
		a := testoracle.New(testoracle.Config{Name: "fixed-a", Latency: 150 * time.Millisecond, Domains: []string{"kindword"}, OnJudge: held()})
		b := testoracle.New(testoracle.Config{Name: "fixed-b", Latency: 100 * time.Millisecond, Domains: []string{"kindword"}, OnJudge: held()})
		orcs, sts := statuses(a, b)
		name := fmt.Sprintf("w%d", i)
		startWorker(t, connect(t, name, urls), worker.Config{Name: name, Oracles: orcs, Statuses: sts, Queue: qcfg})
		names = append(names, a.Name(), b.Name())
	}
	db := storetest.Open(t, "")
	coord, done := startCoordinator(t, kindwordCampaign(db, nc, qcfg, campaign, time.Second, 4), 2*time.Minute)

	checkFor(t, time.Minute, 10*time.Millisecond, func() error {
		if s := coord.Campaign().Stats; s.Judged < s.Enqueued/4 || s.Enqueued == 0 {
			return fmt.Errorf("%w: %+v", errNotYet, s)
		}
		return nil
	})
	victim := pickVictim(t, js, servers)
	before := coord.Campaign().Stats
	victim.Shutdown()
	t.Logf("shut down %s at judged %d of %d", victim.Name(), before.Judged, before.Enqueued)
	open()

	camp := <-done
	t.Logf("campaign %s: %+v", camp.ID, camp.Stats)
	if camp.Stats.Judged-before.Judged < camp.Stats.Enqueued/4 {
		t.Errorf("only %d verdicts after the node loss: it was not mid-campaign", camp.Stats.Judged-before.Judged)
	}
	want := reliability.Expect{Cases: cases, Oracles: []string{"fixed-a", "fixed-b"}}
	if err := reliability.CheckCampaign(db, camp, want); err != nil {
		t.Fatal(err)
	}
}

// pickVictim chooses a server other than n0 (where the clients are): the
// leader of the jobs or results stream if one of them is elsewhere.
func pickVictim(t *testing.T, js jetstream.JetStream, servers []*server.Server) *server.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, name := range []string{"LF_RESULTS", "LF_JOBS"} {
		s, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		info, err := s.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.Cluster == nil {
			t.Fatalf("stream %s is not clustered", name)
		}
		if len(info.Cluster.Replicas)+1 != 3 {
			t.Fatalf("stream %s has %d replicas, want 3", name, len(info.Cluster.Replicas)+1)
		}
		for _, srv := range servers[1:] {
			if srv.Name() == info.Cluster.Leader {
				t.Logf("victim %s leads %s", srv.Name(), name)
				return srv
			}
		}
	}
	return servers[1]
}
