package coordinator_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/queue/queuetest"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// TestUnstorableResultBlocksNothing: of three results fetched together, one
// the store refuses for a reason of its own (its key passes bbolt's limit).
// It used to fail the transaction of all three, redelivered until dropped;
// now the other two are committed and acked, and it is one dead letter with
// that reason, terminated: nothing is left on the stream.
func TestUnstorableResultBlocksNothing(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, nc := queuetest.Embedded(t)
	db := storetest.Open(t, "")
	const camp = "c"
	coord, err := coordinator.New(coordinator.Options{Store: db, Conn: nc, CampaignID: camp,
		Config: store.CampaignConfig{Domains: []string{"kindword"}, KeepAll: true}}) // kept: the test reads the verdicts back
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{"a", "b", "c"}
	for _, id := range ids {
		if _, err := db.AddCases(camp, []store.CaseRecord{{ID: id, Domain: "kindword", Campaign: camp}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.MarkEnqueued(camp, map[string][]string{"a": {"fine"}, "b": {"fine"}, "c": {"fine"}}); err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if err := queue.Setup(ctx, js, queue.Config{}); err != nil {
		t.Fatal(err)
	}
	var commits []store.Commit
	for _, id := range ids {
		oracle := "fine"
		if id == "b" {
			oracle = strings.Repeat("o", 40<<10) // a verdict key bbolt refuses
		}
		if _, err := js.Publish(ctx, queue.ResultSubject(camp), []byte(id)); err != nil {
			t.Fatal(err)
		}
		commits = append(commits, store.Commit{Campaign: camp, Now: time.Unix(1, 0), Oracle: "fine",
			Verdicts: []oracles.Verdict{{Oracle: oracle, Case: id, Domain: "kindword", Kind: oracles.Accept}}})
	}
	cons, err := queue.ResultConsumer(ctx, js, queue.Config{}, camp)
	if err != nil {
		t.Fatal(err)
	}
	ms := fetch(t, cons, len(ids))
	coordinator.CommitFetched(coord, ms, commits)

	for _, id := range ids {
		vs, err := db.Verdicts(id)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: 0, false: 1}[id == "b"]; len(vs) != want {
			t.Errorf("case %s: %d verdicts stored, want %d", id, len(vs), want)
		}
	}
	dls, err := db.DeadLetters()
	if err != nil {
		t.Fatal(err)
	}
	if len(dls) != 1 || !strings.Contains(dls[0].Reason, "key too large") || string(dls[0].Data) != "b" {
		t.Errorf("dead letters %d (%+v); want one for b saying the key is too large", len(dls), dls)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) { // acks are asynchronous
		info, err := cons.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.NumAckPending == 0 && info.NumPending == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d messages unacked, %d pending; want every one acked or terminated", info.NumAckPending, info.NumPending)
		}
	}
}

// fetch takes n messages from cons, failing the test if they do not come.
func fetch(t *testing.T, cons jetstream.Consumer, n int) []jetstream.Msg {
	t.Helper()
	batch, err := cons.Fetch(n, jetstream.FetchMaxWait(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var ms []jetstream.Msg
	for m := range batch.Messages() {
		ms = append(ms, m)
	}
	if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
		t.Fatal(err)
	}
	if len(ms) != n {
		t.Fatalf("fetched %d messages, want %d", len(ms), n)
	}
	return ms
}
