package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/oracles"
)

type minimizeOptions struct {
	nats   natsFlags
	db     string
	budget int
	all    bool
}

func newMinimizeCmd() *cobra.Command {
	o := &minimizeOptions{}
	cmd := &cobra.Command{
		Use:   "minimize [--db PATH] [--nats URL] [ID ...]",
		Short: "Minimize buckets' example cases with the oracles on this machine or on live workers",
		Long: `Minimize shrinks each bucket's example case while the same signature still holds, judged by the
bucket's two oracles: in this process, or with --nats on the live workers that have them (a GPU worker's
oracles included). It re-checks the result three times (reliability) and stores it on the bucket. Without
IDs it minimizes every bucket not minimized yet. Campaigns run it for their new buckets.`,
		RunE: func(cmd *cobra.Command, ids []string) error {
			db, err := store.OpenExisting(o.db, 5*time.Second)
			if err != nil {
				return err
			}
			defer db.Close()
			panel, done, err := o.panel(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			p := newStageProgress("", "minimizing")
			stop := ticker(cmd.ErrOrStderr(), p.line)
			defer stop()
			width := 0
			if o.nats.url == "" {
				width = 1 // this process's oracles: one Judge at a time each, as a worker asks them
			}
			return minimizeBuckets(cmd.Context(), cmd.OutOrStdout(), db, p.watch(panel), ids, o.budget, o.all, width, p)
		},
	}
	o.nats.register(cmd.Flags())
	cmd.Flags().StringVar(&o.db, "db", "legalfuzz-out/legalfuzz.db", "bbolt store")
	cmd.Flags().IntVar(&o.budget, "budget", 200, "most candidate judgments per bucket")
	cmd.Flags().BoolVar(&o.all, "again", false, "minimize buckets already minimized too")
	return cmd
}

// panel judges with this machine's oracles, or with --nats through the live
// workers; done releases what it holds.
func (o *minimizeOptions) panel(ctx context.Context) (oracles.Panel, func(), error) {
	if o.nats.url == "" {
		found, err := discover(ctx)
		if err != nil {
			return nil, nil, err
		}
		return oracles.Local{Oracles: found.Oracles}, func() { found.Close() }, nil
	}
	nc, err := o.nats.connect("legalfuzz-minimize")
	if err != nil {
		return nil, nil, err
	}
	remote, err := queue.NewRemote(ctx, nc, queue.Config{})
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return remote, nc.Close, nil
}

// minimizeBuckets minimizes the named buckets (by key prefix), or every bucket
// not yet minimized, width at a time (coordinator.MinimizeBuckets), and
// prints one line each as it finishes; p, when not nil, is told how many
// are done.
func minimizeBuckets(ctx context.Context, w io.Writer, db *store.Store, panel oracles.Panel, ids []string, budget int, again bool, width int, p *stageProgress) error {
	buckets, err := db.Buckets()
	if err != nil {
		return err
	}
	buckets = slices.DeleteFunc(buckets, func(b store.Bucket) bool { return !wanted(b, ids, again) })
	done := 0
	return coordinator.MinimizeBuckets(ctx, db, panel, buckets, coordinator.MinimizeOptions{Budget: budget}, width, func(b store.Bucket) {
		done++
		if p != nil {
			p.at(done, len(buckets), b.Key)
		}
		if b.Minimized == "" {
			fmt.Fprintf(w, "%s  %s\n", b.Key, b.MinimizeNote)
			return
		}
		fmt.Fprintf(w, "%s  minimized %s -> %s, reproduces %d/%d  %s\n", b.Key, b.Example, b.Minimized, b.Reliability, b.ReChecks, b.Title)
	})
}

func wanted(b store.Bucket, ids []string, again bool) bool {
	if len(ids) == 0 {
		return again || b.Minimized == ""
	}
	for _, id := range ids {
		if strings.HasPrefix(b.Key, id) {
			return true
		}
	}
	return false
}
