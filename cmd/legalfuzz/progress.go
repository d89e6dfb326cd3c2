package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/triage"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// startProgress prints the campaign's live status line (see ticker).
func startProgress(w io.Writer, c *coordinator.Coordinator, quiet bool, statusAddr string) (stop func()) {
	if quiet {
		return func() {}
	}
	if statusAddr != "" {
		fmt.Fprintf(w, "status: http://%s/status  metrics: http://%s/metrics\n", statusAddr, statusAddr)
	}
	last := map[string]int{}
	return ticker(w, func(period time.Duration) string { return progressLine(c.Status(), last, period) })
}

// ticker prints line every second: on a terminal it rewrites one line, cut
// to the terminal's width, elsewhere it logs a line every ten seconds.
// line gets the period, for rates.
func ticker(w io.Writer, line func(period time.Duration) string) (stop func()) {
	fd, tty := terminal(w)
	period := time.Second
	if !tty {
		period = 10 * time.Second
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				if tty {
					fmt.Fprintln(w)
				}
				return
			case <-t.C:
				l := line(period)
				if tty {
					if width, _, err := term.GetSize(fd); err == nil {
						l = fitWidth(l, width-1) // the last column would wrap on some terminals
					}
					fmt.Fprintf(w, "\r\033[K%s", l)
				} else {
					fmt.Fprintln(w, l)
				}
			}
		}
	}()
	return func() { close(done); <-finished }
}

// progressLine renders the domain being fuzzed, cases, features and
// corpus size, the jobs owed and the messages queued, findings, time left,
// and per oracle its cases/s and utilization (busy time over wall time).
// While the coordinator starts, it says what it waits for instead of a
// time left that does not run yet.
func progressLine(s coordinator.Status, last map[string]int, period time.Duration) string {
	st := s.Campaign.Stats
	names := slices.Sorted(maps.Keys(st.Oracles))
	var rates []string
	for _, n := range names {
		j := st.Oracles[n].Judged
		rates = append(rates, fmt.Sprintf("%s %.1f/s %.0f%%", n, float64(j-last[n])/period.Seconds(), 100*s.Utilization[n]))
		last[n] = j
	}
	state := s.Campaign.State
	left := "left " + s.TimeLeft.Round(time.Second).String()
	switch {
	case s.Starting && len(s.Workers) == 0:
		state, left = "starting", "waiting for workers"
	case s.Starting:
		state, left = "starting", "storing the seeds"
	case s.Fuzzing != "" && s.Campaign.State == store.StateRunning:
		state += " fuzzing " + s.Fuzzing
	}
	if t := s.Triage; t != nil && s.Campaign.State != store.StateRunning {
		state, left = "tail", fmt.Sprintf("tail left %s of %s", t.TailLeft.Round(time.Second), t.Tail)
		if s.Campaign.State == store.StateDraining {
			state = "draining"
		}
	}
	return fmt.Sprintf("%s %s | %s | cases %d | features %d, corpus %d | jobs owed %d, messages queued %d | findings %d, new buckets %d%s | %s",
		s.Campaign.ID, state, left, st.Cases, st.Features, st.Corpus, s.Outstanding, s.QueueDepth,
		st.Findings, st.NewBuckets, triagePart(s.Triage), strings.Join(rates, ", "))
}

// triagePart is the progress line's triage: buckets minimized (while
// generating), under way and waiting, and the night's replay once done.
func triagePart(t *coordinator.TriageStatus) string {
	if t == nil {
		return ""
	}
	out := fmt.Sprintf(" | minimized %d (%d while generating), %d under way, %d waiting", t.Minimized, t.During, t.Running, t.Waiting)
	if r := t.Replay; r != nil {
		out += fmt.Sprintf(" | replayed %d, %d carried (versions unchanged)", r.Reproduced+r.Fixed, r.Carried)
	}
	return out
}

// stageProgress is the live line of `legalfuzz minimize`: which bucket of
// how many, the oracles being asked (the installation a found-in replay is
// on), judgments so far and time spent.
type stageProgress struct {
	campaign, what string
	start          time.Time

	mu     sync.Mutex
	i, n   int
	bucket string
	asking []string
	judged int
}

// newStageProgress starts the line of one stage ("minimizing") of a
// campaign's buckets; campaign may be empty.
func newStageProgress(campaign, what string) *stageProgress {
	return &stageProgress{campaign: campaign, what: what, start: time.Now()}
}

// at says the stage reached bucket i (from 1) of n.
func (p *stageProgress) at(i, n int, bucket string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.i, p.n, p.bucket = i, n, bucket
}

// line renders the stage's line.
func (p *stageProgress) line(time.Duration) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	asking := "-"
	if len(p.asking) > 0 {
		asking = strings.Join(p.asking, ", ")
	}
	return fmt.Sprintf("%s | bucket %d/%d %s | asking %s | judged %d | %s so far",
		strings.TrimSpace(p.campaign+" "+p.what), p.i, p.n, cmp.Or(p.bucket, "-"), asking, p.judged, time.Since(p.start).Round(time.Second))
}

// watch wraps a panel so that the line shows what it is asked.
func (p *stageProgress) watch(panel oracles.Panel) oracles.Panel {
	return watchedPanel{Panel: panel, p: p}
}

// watchedPanel is a panel whose questions a stageProgress line shows.
type watchedPanel struct {
	oracles.Panel
	p *stageProgress
}

// Judge implements oracles.Panel.
func (w watchedPanel) Judge(ctx context.Context, cases []domain.Case, names []string) (map[string][]oracles.Verdict, error) {
	p := w.p
	p.mu.Lock()
	p.asking = names
	if len(names) == 0 {
		p.asking = []string{"every oracle"}
	}
	p.mu.Unlock()
	vs, err := w.Panel.Judge(ctx, cases, names)
	p.mu.Lock()
	for _, v := range vs {
		p.judged += len(v)
	}
	p.mu.Unlock()
	return vs, err
}

// fitWidth cuts a line to width columns (runes), ending it with "…" when
// cut, so the line a terminal rewrites never wraps.
func fitWidth(line string, width int) string {
	r := []rune(line)
	if width <= 0 || len(r) <= width {
		return line
	}
	return string(r[:width-1]) + "…"
}

// terminal returns w's file descriptor and whether it is a terminal.
func terminal(w io.Writer) (int, bool) {
	f, ok := w.(*os.File)
	if !ok {
		return 0, false
	}
	fd := int(f.Fd())
	return fd, term.IsTerminal(fd)
}

// summarize prints where the results are and returns errFindings when the
// campaign found new buckets that no suppression covers and that are tool
// bugs; new limitations and seed evidence fail it only with failOnAll.
func summarize(w io.Writer, db *store.Store, camp store.Campaign, dbPath, suppressions string, failOnAll bool) error {
	st := camp.Stats
	o := triageOptions{suppressions: suppressions}
	entries, err := o.entries(db)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "campaign %s %s: %d cases, %d verdicts, %d findings in %d buckets (%d new), %d dead letters\n",
		camp.ID, camp.State, st.Cases, st.Judged, st.Findings, len(entries), st.NewBuckets, st.DeadLetters)
	fresh := 0
	tonight := map[string]int{}
	for _, e := range entries {
		tonight[e.Tonight]++
		regressed := e.Tonight == triage.TonightRegressed && e.Status != triage.StatusSuppressed
		if e.Campaign != camp.ID && !regressed {
			continue
		}
		title := e.Title
		switch {
		case e.FixedUpstream():
			// Fixed where it will next be released: listed, not failing.
			title += "  [fixed upstream: LLVM main no longer shows it; found in " + e.FoundIn() + "]"
		case (e.Status == triage.StatusNew || regressed) && (failOnAll || e.Class.Bug()):
			fresh++
		}
		fmt.Fprintf(w, "  %-10s %-14s %s  %d cases  %s\n", cmp.Or(e.Tonight, e.Status), e.Class, e.Key, e.Cases, title)
	}
	fmt.Fprintf(w, "tonight: %d new, %d still failing, %d regressed, %d fixed\n", tonight[triage.TonightNew], tonight[triage.TonightStill],
		tonight[triage.TonightRegressed], tonight[triage.TonightFixed])
	if tr := camp.Triaged; tr != nil {
		fmt.Fprintf(w, "minimized: %d while generating, %d after (tail at most %s); %d not yet minimized (their example stands; the next campaign on this store minimizes them first)\n",
			len(tr.During), len(tr.After), tr.Tail, len(tr.Left))
	}
	for _, q := range camp.Quarantine {
		fmt.Fprintf(w, "worker %s quarantined (%s): %s; its results since its last agreed spot check were judged again by others\n", q.Worker, q.Oracle, q.Reason)
	}
	fmt.Fprintf(w, "results: %s (legalfuzz triage --db %s)\n", dbPath, dbPath)
	if fresh > 0 {
		return errFindings
	}
	return nil
}
