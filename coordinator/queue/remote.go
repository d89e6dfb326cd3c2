package queue

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Remote is the panel of the live workers on a NATS JetStream: it publishes
// cases as jobs under a private campaign token, the way a campaign does, and
// collects their verdicts. Through it a coordinator minimizes a bucket whose
// oracle only a remote (e.g. GPU) worker runs.
type Remote struct {
	js  jetstream.JetStream
	cfg Config
	// BatchSize is the most cases per job; zero means 256.
	BatchSize int
}

// NewRemote makes a remote panel on a NATS connection and makes sure the
// streams it uses exist.
func NewRemote(ctx context.Context, nc *nats.Conn, cfg Config) (*Remote, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	if err := Setup(ctx, js, cfg); err != nil {
		return nil, err
	}
	return &Remote{js: js, cfg: cfg}, nil
}

// pending is a (case, oracle) pair still waiting for its verdict.
type pending struct{ caseID, oracle string }

// Judge implements oracles.Panel. It waits until every job is answered or
// ctx ends; a job a worker gave up on (a dead letter) fails the call.
func (r *Remote) Judge(ctx context.Context, cases []domain.Case, names []string) (map[string][]oracles.Verdict, error) {
	offered, err := r.offered(ctx)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		for name := range offered {
			names = append(names, name)
		}
		slices.Sort(names)
	}
	for _, name := range names {
		if _, ok := offered[name]; !ok {
			return nil, fmt.Errorf("%s: %w on any live worker", name, oracles.ErrUnavailable)
		}
	}
	id := "judge-" + nuid.Next()
	cons, err := r.js.CreateConsumer(ctx, streamResults, jetstream.ConsumerConfig{
		FilterSubjects:    []string{ResultSubject(id), DeadSubject(id)},
		AckPolicy:         jetstream.AckExplicitPolicy,
		InactiveThreshold: time.Minute,
	})
	if err != nil {
		return nil, fmt.Errorf("results consumer: %w", err)
	}
	defer func() { _ = r.js.DeleteConsumer(context.Background(), streamResults, cons.CachedInfo().Name) }()
	want, err := r.publish(ctx, id, cases, names, offered)
	if err != nil {
		return nil, err
	}
	out, err := r.collect(ctx, cons, want)
	for _, vs := range out { // in the order of names, as a local panel answers
		slices.SortStableFunc(vs, func(a, b oracles.Verdict) int {
			return slices.Index(names, a.Oracle) - slices.Index(names, b.Oracle)
		})
	}
	return out, err
}

// Names implements oracles.Panel: the oracles the live workers offer.
func (r *Remote) Names(ctx context.Context) ([]string, error) {
	offered, err := r.offered(ctx)
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(offered)), nil
}

// Versions implements oracles.Panel: the versions the live workers
// advertise; an oracle two workers run in different versions is left out.
func (r *Remote) Versions(ctx context.Context) (map[string]string, error) {
	caps, err := Workers(ctx, r.js)
	if err != nil {
		return nil, err
	}
	out, mixed := map[string]string{}, map[string]bool{}
	for _, c := range caps {
		for _, s := range c.Oracles {
			if v, ok := out[s.Name]; s.Available && ok && v != s.Version {
				mixed[s.Name] = true
			} else if s.Available {
				out[s.Name] = s.Version
			}
		}
	}
	for name := range mixed {
		delete(out, name)
	}
	return out, nil
}

// offer is what the live workers offer of one oracle: the domains it
// judges, and whether every worker running it reads the urgent lane.
type offer struct {
	domains []string
	urgent  bool
}

// offered maps each oracle the live workers offer to its offer.
func (r *Remote) offered(ctx context.Context) (map[string]*offer, error) {
	caps, err := Workers(ctx, r.js)
	if err != nil {
		return nil, err
	}
	out := map[string]*offer{}
	for _, c := range caps {
		for _, s := range c.Oracles {
			if !s.Available {
				continue
			}
			o := out[s.Name]
			if o == nil {
				o = &offer{urgent: true}
				out[s.Name] = o
			}
			o.domains = append(o.domains, s.Domains...)
			o.urgent = o.urgent && c.Urgent
		}
	}
	return out, nil
}

// publish sends one job per (oracle, domain, batch), on the urgent lane
// where every worker of the oracle reads it, and returns the pairs whose
// verdicts are due.
func (r *Remote) publish(ctx context.Context, id string, cases []domain.Case, names []string, offered map[string]*offer) (map[pending]bool, error) {
	size := r.BatchSize
	if size < 1 {
		size = 256
	}
	want := map[pending]bool{}
	for _, name := range names {
		byDomain := map[string][]WireCase{}
		var doms []string
		for _, c := range cases {
			if !slices.Contains(offered[name].domains, c.Domain) {
				continue
			}
			if _, ok := byDomain[c.Domain]; !ok {
				doms = append(doms, c.Domain)
			}
			byDomain[c.Domain] = append(byDomain[c.Domain], WireCase{ID: c.ID, Data: c.Value.Encode()})
			want[pending{c.ID, name}] = true
		}
		publish := PublishJobs
		if offered[name].urgent {
			publish = PublishUrgent
		}
		for _, dom := range doms {
			if err := publish(ctx, r.js, Job{Campaign: id, Oracle: name, Domain: dom, Cases: byDomain[dom]}, size); err != nil {
				return nil, err
			}
		}
	}
	return want, nil
}

// collect reads results until every wanted pair has its verdict. Verdicts
// for pairs it did not ask for (a redelivered job's second answer, anything
// forged) are dropped.
func (r *Remote) collect(ctx context.Context, cons jetstream.Consumer, want map[pending]bool) (map[string][]oracles.Verdict, error) {
	it, err := cons.Messages(Pull())
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	defer it.Stop()
	out := map[string][]oracles.Verdict{}
	for len(want) > 0 {
		m, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("%d verdicts still due: %w", len(want), errors.Join(ctx.Err(), err))
		}
		_ = m.Ack()
		if strings.HasPrefix(m.Subject(), SubjectDead+".") {
			dl, _ := Decode[DeadLetter](m.Data())
			return nil, fmt.Errorf("a worker gave up on a job: %s", dl.Reason)
		}
		res, err := Decode[Result](m.Data())
		if err != nil {
			continue // not a result: nothing of ours
		}
		if len(res.Bad) > 0 {
			return nil, fmt.Errorf("worker %s could not decode case %s: %s", res.Worker, res.Bad[0].ID, res.Bad[0].Error)
		}
		for _, v := range res.Verdicts {
			p := pending{v.Case, v.Oracle}
			if want[p] && v.Oracle == res.Oracle {
				delete(want, p)
				out[v.Case] = append(out[v.Case], v)
			}
		}
	}
	return out, nil
}
