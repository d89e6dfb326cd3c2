package queue

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// WorkerPublish and WorkerSubscribe are all a worker's NATS user needs
// (docs/gpu-worker.md spells them in nats-server's configuration): bind and
// read the job consumers, ack jobs, publish results, inputs and dead
// letters, and refresh its registry entry. A worker cannot create or change
// streams, read results or other campaigns' inputs, or touch consumers
// other than the jobs'. TestWorkerLeastPrivilege runs a campaign with a
// worker holding exactly these.
var (
	WorkerPublish = []string{
		"$JS.API.INFO",
		"$JS.API.STREAM.INFO." + streamJobs,
		"$JS.API.STREAM.INFO.KV_" + kvWorkers,
		"$JS.API.CONSUMER.CREATE." + streamJobs + ".>",
		"$JS.API.CONSUMER.DURABLE.CREATE." + streamJobs + ".>",
		"$JS.API.CONSUMER.INFO." + streamJobs + ".>",
		"$JS.API.CONSUMER.MSG.NEXT." + streamJobs + ".>",
		"$JS.ACK." + streamJobs + ".>",
		"$KV." + kvWorkers + ".>",
		SubjectResults + ".>", SubjectInputs + ".>", SubjectDead + ".>",
	}
	WorkerSubscribe = []string{"_INBOX.>"}
)

// ErrPermission marks a NATS user that lacks a permission a worker needs.
var ErrPermission = errors.New("missing NATS permission")

// CheckWorkerPermissions checks that nc's user may do what a worker does
// (WorkerPublish, WorkerSubscribe), so that a worker lacking a permission
// says so at its start: one lacking results.> or $JS.ACK ran, judged, and
// lost each result to "Permissions Violation for Publish", its jobs dead
// letters saying "context deadline exceeded". On a subject of each pattern
// it publishes a message no stream keeps (its Nats-Expected-Stream header
// names no stream, so JetStream refuses to store it) or subscribes, and
// reads the server's verdict, which comes before the answer to a flush.
// The JetStream API's patterns are left out (a request there acts); a user
// lacking them fails its first request.
func CheckWorkerPermissions(nc *nats.Conn) error {
	probe := "legalfuzz_permission_probe_" + nuid.Next()
	var missing []string
	for _, p := range WorkerPublish {
		if strings.HasPrefix(p, "$JS.API.") {
			continue
		}
		subj := probeSubject(p, probe)
		m := &nats.Msg{Subject: subj, Header: nats.Header{jetstream.ExpectedStreamHeader: []string{probe}}}
		if err := nc.PublishMsg(m); err != nil {
			return fmt.Errorf("check NATS permissions: %w", err)
		}
		if d, err := denied(nc, subj); err != nil || d {
			if err != nil {
				return err
			}
			missing = append(missing, "publish to "+p)
		}
	}
	for _, p := range WorkerSubscribe {
		subj := probeSubject(p, probe)
		sub, err := nc.SubscribeSync(subj)
		if err != nil {
			return fmt.Errorf("check NATS permissions: %w", err)
		}
		d, err := denied(nc, subj)
		_ = sub.Unsubscribe()
		if err != nil {
			return err
		}
		if d {
			missing = append(missing, "subscribe to "+p)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: the NATS user may not %s (a worker's permissions: docs/gpu-worker.md)", ErrPermission, strings.Join(missing, ", "))
	}
	return nil
}

// probeSubject is a subject of pattern p, its wildcards filled with probe.
func probeSubject(p, probe string) string {
	tokens := strings.Split(p, ".")
	for i, t := range tokens {
		if t == "*" || t == ">" {
			tokens[i] = probe
		}
	}
	return strings.Join(tokens, ".")
}

// denied reports whether the server refused what nc just did on subj: it
// answers a flush after it reported the violation, which nats.go keeps as
// the connection's last error, naming the subject.
func denied(nc *nats.Conn, subj string) (bool, error) {
	if err := nc.FlushTimeout(5 * time.Second); err != nil {
		return false, fmt.Errorf("check NATS permissions: %w", err)
	}
	err := nc.LastError()
	return errors.Is(err, nats.ErrPermissionViolation) && strings.Contains(err.Error(), `"`+subj+`"`), nil
}
