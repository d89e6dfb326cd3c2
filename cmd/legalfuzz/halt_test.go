package main

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/queue/queuetest"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
)

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestCampaignOnFullDisk: a campaign whose store fills its disk ran on and
// ended, long after, with "the drain timeout passed with 10741 jobs
// unjudged". It stops at once: exit 2, its last line naming the store and
// the full disk. The campaign keeps every case (--keep-all), so the store
// fills the disk whatever the machine's speed: kept to its findings and
// corpus, it grew too slowly on a loaded machine and the campaign ended
// with exit 0.
func TestCampaignOnFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("campaign test takes seconds; skipped in -short")
	}
	db := filepath.Join(storetest.SmallDisk(t, 1<<20), "legalfuzz.db")
	_, errOut, code := runCLI(t, "", "campaign", "--duration", "60s", "--drain-timeout", "60s", "--out", t.TempDir(), "--db", db,
		"--quiet", "--no-minimize", "--keep-all", "--domains", "kindword", "--oracles", "spec/seed,spec/ptxisa", "--generator", "structured")
	last := lastLine(errOut)
	if code != exitError || !strings.HasPrefix(last, "legalfuzz: campaign stopped: cannot write the store "+db) ||
		!strings.Contains(last, "no space left on device") {
		t.Fatalf("exit %d, last line %q; want 2 and the full disk named", code, last)
	}
}

// TestCampaignWithWorkerLackingPermission: a worker whose NATS user may not
// publish results ran, judged and lost every result ("Permissions
// Violation for Publish"), its jobs dead letters saying "context deadline
// exceeded", and the campaign ended on the generic drain timeout. The
// worker now refuses to start, saying what its user lacks, and the
// campaign stops naming the worker and the permission: exit 2 for both.
func TestCampaignWithWorkerLackingPermission(t *testing.T) {
	if testing.Short() {
		t.Skip("campaign test takes seconds; skipped in -short")
	}
	pub := slices.DeleteFunc(slices.Clone(queue.WorkerPublish), func(s string) bool { return s == "results.>" })
	ns := queuetest.Server(t, func(o *server.Options) {
		o.Users = []*server.User{{Username: "coordinator", Password: "c"},
			{Username: "worker", Password: "w", Permissions: &server.Permissions{
				Publish: &server.SubjectPermission{Allow: pub}, Subscribe: &server.SubjectPermission{Allow: queue.WorkerSubscribe}}}}
	})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // a worker that runs on, without the check, is stopped
	worker, campaign := make(chan exit, 1), make(chan exit, 1)
	go func() {
		worker <- runIn(ctx, "worker", "--nats", ns.ClientURL(), "--nats-user", "worker", "--nats-password", "w",
			"--name", "w1", "--oracles", "spec/seed", "--fuzz=false")
	}()
	go func() {
		campaign <- runIn(ctx, "campaign", "--nats", ns.ClientURL(), "--nats-user", "coordinator", "--nats-password", "c",
			"--workers", "0", "--duration", "60s", "--drain-timeout", "60s", "--out", t.TempDir(), "--quiet", "--no-minimize",
			"--domains", "kindword", "--oracles", "spec/seed", "--generator", "structured")
	}()
	const lacks = "missing NATS permission: the NATS user may not publish to results.>"
	for _, want := range []struct {
		name, prefix string
		exits        chan exit
	}{{"worker", "legalfuzz: worker w1: " + lacks, worker}, {"campaign", "legalfuzz: campaign stopped: worker w1 cannot work: " + lacks, campaign}} {
		select {
		case e := <-want.exits:
			if last := lastLine(e.errOut); e.code != exitError || !strings.HasPrefix(last, want.prefix) {
				t.Errorf("%s: exit %d, last line %q; want 2 naming what the worker lacks", want.name, e.code, last)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s still runs after 30 s; want it to stop naming what the worker lacks", want.name)
		}
	}
}

// exit is how a command line ended.
type exit struct {
	errOut string
	code   int
}

// runIn runs one command line in process under ctx.
func runIn(ctx context.Context, args ...string) exit {
	var out, errOut bytes.Buffer
	code := run(ctx, args, strings.NewReader(""), &out, &errOut)
	return exit{errOut.String(), code}
}

// TestInterruptAndResume: Ctrl-C (a cancelled context) ends a campaign with
// one line that says how to go on, and running the same command again says
// it resumed and finishes the campaign.
func TestInterruptAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("campaign test takes seconds; skipped in -short")
	}
	out := t.TempDir()
	args := []string{"campaign", "--duration", "8s", "--out", out, "--quiet", "--no-minimize",
		"--domains", "kindword", "--oracles", "spec/ptxisa,spec/seed", "--fuzz-binary", filepath.Join(out, "none")}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(3*time.Second, cancel)
	var stdout, stderr bytes.Buffer
	code := run(ctx, args, strings.NewReader(""), &stdout, &stderr)
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	last := lines[len(lines)-1]
	if code != exitError || !strings.HasPrefix(last, "legalfuzz: interrupted: campaign c") ||
		!strings.HasSuffix(last, "run the same command again to resume") || strings.Contains(stderr.String(), "context canceled") {
		t.Fatalf("interrupted campaign: exit %d, stderr:\n%s", code, stderr.String())
	}
	_, errOut, code := runCLI(t, "", args...) // runs what is left of the 8 s

	if code != exitOK || !strings.Contains(errOut, "resuming campaign c") {
		t.Fatalf("resumed campaign: exit %d, stderr:\n%s", code, errOut)
	}
}
