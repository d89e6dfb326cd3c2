package queue_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/queue/queuetest"
)

// TestCheckWorkerPermissions: a worker user holding every permission a
// worker needs passes; one lacking results.>, $JS.ACK or its inbox is
// refused, naming what it lacks. The probes leave nothing on the streams.
func TestCheckWorkerPermissions(t *testing.T) {
	without := func(list []string, drop string) []string {
		return slices.DeleteFunc(slices.Clone(list), func(s string) bool { return s == drop })
	}
	ack := "$JS.ACK.LF_JOBS.>"
	if !slices.Contains(queue.WorkerPublish, ack) || !slices.Contains(queue.WorkerPublish, "results.>") {
		t.Fatalf("the test's subjects are not in WorkerPublish %q", queue.WorkerPublish)
	}
	users := []struct {
		name     string
		pub, sub []string
		missing  string // "" passes
	}{
		{"full", queue.WorkerPublish, queue.WorkerSubscribe, ""},
		{"noresults", without(queue.WorkerPublish, "results.>"), queue.WorkerSubscribe, "publish to results.>"},
		{"noack", without(queue.WorkerPublish, ack), queue.WorkerSubscribe, "publish to " + ack},
		{"noinbox", queue.WorkerPublish, []string{"elsewhere.>"}, "subscribe to _INBOX.>"},
	}
	ns := queuetest.Server(t, func(o *server.Options) {
		o.Users = []*server.User{{Username: "admin", Password: "a"}}
		for _, u := range users {
			o.Users = append(o.Users, &server.User{Username: u.name, Password: "p", Permissions: &server.Permissions{
				Publish: &server.SubjectPermission{Allow: u.pub}, Subscribe: &server.SubjectPermission{Allow: u.sub}}})
		}
	})
	admin := connectAs(t, ns, "admin", "a")
	js, err := jetstream.New(admin)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := queue.Setup(ctx, js, queue.Config{}); err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		t.Run(u.name, func(t *testing.T) {
			err := queue.CheckWorkerPermissions(connectAs(t, ns, u.name, "p"))
			if u.missing == "" && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if u.missing != "" && (!errors.Is(err, queue.ErrPermission) || !strings.Contains(err.Error(), u.missing)) {
				t.Fatalf("err = %v; want ErrPermission saying it may not %s", err, u.missing)
			}
		})
	}
	lister := js.ListStreams(ctx)
	for info := range lister.Info() {
		if info.State.Msgs != 0 {
			t.Errorf("the probes left %d messages on %s", info.State.Msgs, info.Config.Name)
		}
	}
	if err := lister.Err(); err != nil {
		t.Fatal(err)
	}
}

// connectAs connects to ns as user, closing the connection at cleanup.
func connectAs(t *testing.T, ns *server.Server, user, password string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(ns.ClientURL(), nats.UserInfo(user, password))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}
