package queue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Config tunes the streams and consumers. Zero fields take the defaults.
type Config struct {
	// Replicas is the stream replication factor (1 on a single server, 3 on a
	// 3-node cluster).
	Replicas int
	// AckWait is how long a job may go without word from its worker before
	// it is redelivered: workers report progress every AckWait/3 (at most
	// every 5 s), so it bounds how long a dead worker's jobs wait, not how
	// long a batch may take. Zero means DefaultAckWait.
	AckWait time.Duration
	// MaxDeliver bounds redeliveries of a poison message.
	MaxDeliver int
}

func (c Config) withDefaults() Config {
	if c.Replicas == 0 {
		c.Replicas = 1
	}
	if c.AckWait == 0 {
		c.AckWait = DefaultAckWait
	}
	if c.MaxDeliver == 0 {
		c.MaxDeliver = 5
	}
	return c
}

// DefaultAckWait is Config.AckWait's default: a SIGKILLed worker's jobs (and
// its fuzz slice, which blocks new ones) are redelivered within 15 s.
const DefaultAckWait = 15 * time.Second

// PullBytes bounds what a consumer of results, dead letters or inputs has
// pulled from its stream and not yet handed to its reader: flow control.
// Pulled by message count (256), a burst of large results (a verifier's
// 40 KiB diagnostics) overran the client's pending limit ("nats: slow
// consumer, messages dropped": redelivered later, never lost) and held a
// gigabyte; pulled by bytes, the rest waits on the stream.
const PullBytes = 8 << 20

// Pull is the consumer option that bounds a pull by PullBytes.
func Pull() jetstream.PullMaxBytes { return jetstream.PullMaxBytes(PullBytes) }

// Setup creates or updates the streams and the worker registry. Jobs are a
// work queue (a job leaves the stream once a worker acks it); results and
// inputs stay until the coordinator acks them.
func Setup(ctx context.Context, js jetstream.JetStream, cfg Config) error {
	cfg = cfg.withDefaults()
	streams := []jetstream.StreamConfig{
		{Name: streamJobs, Subjects: []string{SubjectJobs + ".>", SubjectUrgent + ".>", SubjectFuzz + ".>"}, Retention: jetstream.WorkQueuePolicy, Replicas: cfg.Replicas},
		{Name: streamResults, Subjects: []string{SubjectResults + ".>", SubjectDead + ".>"}, Retention: jetstream.WorkQueuePolicy, Replicas: cfg.Replicas},
		{Name: streamInputs, Subjects: []string{SubjectInputs + ".>"}, Retention: jetstream.WorkQueuePolicy, Replicas: cfg.Replicas},
	}
	for _, sc := range streams {
		if err := ensureStream(ctx, js, sc); err != nil {
			return fmt.Errorf("stream %s: %w", sc.Name, err)
		}
	}
	_, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: kvWorkers, TTL: 6 * heartbeatPeriod, Replicas: cfg.Replicas})
	if err != nil {
		return fmt.Errorf("worker registry: %w", err)
	}
	return nil
}

// ensureStream creates sc, or updates the stream when its config differs.
// An update is skipped when nothing changed: the server races a stream
// update against a worker creating its consumer (nats-server 2.15,
// filestore.UpdateConfig vs ConsumerStore), and every coordinator start and
// campaign resume calls Setup while workers may be binding.
func ensureStream(ctx context.Context, js jetstream.JetStream, sc jetstream.StreamConfig) error {
	s, err := js.Stream(ctx, sc.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		_, err = js.CreateStream(ctx, sc)
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return nil // another coordinator created it first
		}
		return err
	}
	if err != nil {
		return err
	}
	have := s.CachedInfo().Config
	if slices.Equal(have.Subjects, sc.Subjects) && have.Retention == sc.Retention && have.Replicas == sc.Replicas {
		return nil
	}
	_, err = js.UpdateStream(ctx, sc)
	return err
}

// WaitStreams waits until the coordinator has set the streams up: workers
// never create or change streams, so a worker user needs no permission to.
func WaitStreams(ctx context.Context, js jetstream.JetStream) error {
	for {
		_, err := js.Stream(ctx, streamJobs)
		if err == nil {
			_, err = js.KeyValue(ctx, kvWorkers)
		}
		if err == nil {
			return nil
		}
		if !errors.Is(err, jetstream.ErrStreamNotFound) && !errors.Is(err, jetstream.ErrBucketNotFound) {
			return fmt.Errorf("wait for the coordinator's streams: %w", err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no coordinator set the streams up: %w", ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// consumer creates or binds a durable pull consumer on stream for subject.
func consumer(ctx context.Context, js jetstream.JetStream, cfg Config, stream, name, subject string) (jetstream.Consumer, error) {
	cfg = cfg.withDefaults()
	c, err := js.CreateOrUpdateConsumer(ctx, stream, jetstream.ConsumerConfig{
		Durable:       name,
		FilterSubject: subject,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       cfg.AckWait,
		MaxDeliver:    cfg.MaxDeliver,
		MaxAckPending: 10000,
		Replicas:      cfg.Replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("consumer %s on %s: %w", name, subject, err)
	}
	return c, nil
}

// JobConsumer is the durable consumer all workers running oracle share, so
// each job goes to exactly one of them.
func JobConsumer(ctx context.Context, js jetstream.JetStream, cfg Config, oracle string) (jetstream.Consumer, error) {
	return consumer(ctx, js, cfg, streamJobs, consumerName("jobs", oracle), SubjectJobs+"."+token(oracle)+".>")
}

// UrgentConsumer is JobConsumer for the oracle's urgent lane.
func UrgentConsumer(ctx context.Context, js jetstream.JetStream, cfg Config, oracle string) (jetstream.Consumer, error) {
	return consumer(ctx, js, cfg, streamJobs, consumerName("urgent", oracle), SubjectUrgent+"."+token(oracle)+".>")
}

// FuzzConsumer is the durable consumer fuzz workers share.
func FuzzConsumer(ctx context.Context, js jetstream.JetStream, cfg Config) (jetstream.Consumer, error) {
	return consumer(ctx, js, cfg, streamJobs, "fuzz", SubjectFuzz+".>")
}

// ResultConsumer is the coordinator's consumer of a campaign's results and
// dead letters.
func ResultConsumer(ctx context.Context, js jetstream.JetStream, cfg Config, campaign string) (jetstream.Consumer, error) {
	c, err := consumer(ctx, js, cfg, streamResults, consumerName("results", campaign), SubjectResults+"."+token(campaign))
	if err != nil {
		return nil, err
	}
	return c, nil
}

// DeadConsumer is the coordinator's consumer of a campaign's dead letters.
func DeadConsumer(ctx context.Context, js jetstream.JetStream, cfg Config, campaign string) (jetstream.Consumer, error) {
	return consumer(ctx, js, cfg, streamResults, consumerName("dead", campaign), DeadSubject(campaign))
}

// InputsConsumer is the coordinator's consumer of a campaign's new inputs.
func InputsConsumer(ctx context.Context, js jetstream.JetStream, cfg Config, campaign string) (jetstream.Consumer, error) {
	return consumer(ctx, js, cfg, streamInputs, consumerName("inputs", campaign), InputsSubject(campaign))
}

// Pending returns how many jobs wait in the jobs stream (queue depth).
func Pending(ctx context.Context, js jetstream.JetStream) (uint64, error) {
	s, err := js.Stream(ctx, streamJobs)
	if err != nil {
		return 0, err
	}
	info, err := s.Info(ctx)
	if err != nil {
		return 0, err
	}
	return info.State.Msgs, nil
}

// Advertise stores a worker's capability in the registry; it expires unless
// refreshed, so a dead worker drops out.
func Advertise(ctx context.Context, js jetstream.JetStream, c Capability) error {
	kv, err := js.KeyValue(ctx, kvWorkers)
	if err != nil {
		return fmt.Errorf("worker registry: %w", err)
	}
	c.V, c.Seen = Version, time.Now().UTC()
	_, err = kv.Put(ctx, consumerName("w", c.Worker), Encode(c))
	return err
}

// Workers lists the live workers' capabilities.
func Workers(ctx context.Context, js jetstream.JetStream) ([]Capability, error) {
	kv, err := js.KeyValue(ctx, kvWorkers)
	if err != nil {
		return nil, fmt.Errorf("worker registry: %w", err)
	}
	keys, err := kv.Keys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var caps []Capability
	for _, k := range keys {
		e, err := kv.Get(ctx, k)
		if err != nil {
			continue // expired between Keys and Get
		}
		c, err := Decode[Capability](e.Value())
		if err != nil {
			continue // a garbage registry entry is not a worker
		}
		caps = append(caps, c)
	}
	return caps, nil
}

// HeartbeatPeriod is how often workers refresh their registry entry.
func HeartbeatPeriod() time.Duration { return heartbeatPeriod }

// MessageID names a stream message by its stream and stream sequence, which
// stay the same when the message is redelivered; empty when m carries no
// JetStream metadata.
func MessageID(m jetstream.Msg) string {
	meta, err := m.Metadata()
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s:%d", meta.Stream, meta.Sequence.Stream)
}

// PublishJobs publishes job's cases (of one domain, for one oracle of a
// campaign), one job per size cases (at least one): how a campaign and a
// Remote panel send work alike. A job's batch is named by its first case
// and its oracle, for the logs, or by its Check.
func PublishJobs(ctx context.Context, js jetstream.JetStream, job Job, size int) error {
	return publishJobs(ctx, js, JobSubject(job.Oracle, job.Domain), job, size)
}

// PublishUrgent is PublishJobs on the urgent lane.
func PublishUrgent(ctx context.Context, js jetstream.JetStream, job Job, size int) error {
	return publishJobs(ctx, js, UrgentSubject(job.Oracle, job.Domain), job, size)
}

func publishJobs(ctx context.Context, js jetstream.JetStream, subject string, job Job, size int) error {
	for part := range slices.Chunk(job.Cases, max(size, 1)) {
		j := job
		j.V, j.Batch, j.Cases = Version, part[0].ID+"-"+job.Oracle, part
		if j.Check != "" {
			j.Batch = j.Check
		}
		if _, err := js.Publish(ctx, subject, Encode(j)); err != nil {
			return fmt.Errorf("publish job for %s: %w", j.Oracle, err)
		}
	}
	return nil
}
