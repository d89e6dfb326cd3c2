package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
)

// startProgress prints a live status line every second: on a terminal it
// rewrites one line, elsewhere it logs a line every ten seconds.
func startProgress(w io.Writer, c *coordinator.Coordinator, quiet bool, statusAddr string) (stop func()) {
	if quiet {
		return func() {}
	}
	if statusAddr != "" {
		fmt.Fprintf(w, "status: http://%s/status  metrics: http://%s/metrics\n", statusAddr, statusAddr)
	}
	fd, tty := terminal(w)
	period := time.Second
	if !tty {
		period = 10 * time.Second
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		last := map[string]int{}
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
				line := progressLine(c.Status(), last, period)
				if tty {
					if width, _, err := term.GetSize(fd); err == nil {
						line = fitWidth(line, width-1) // the last column would wrap on some terminals
					}
					fmt.Fprintf(w, "\r\033[K%s", line)
				} else {
					fmt.Fprintln(w, line)
				}
			}
		}
	}()
	return func() { close(done); <-finished }
}

// progressLine renders the domain being fuzzed, cases, features and
// corpus size, the jobs owed and the messages queued, findings, time left,
// and per oracle its cases/s and utilization (busy time over wall time).
func progressLine(s coordinator.Status, last map[string]int, period time.Duration) string {
	st := s.Campaign.Stats
	names := slices.Sorted(maps.Keys(st.Oracles))
	var rates []string
	for _, n := range names {
		j := st.Oracles[n].Judged
		rates = append(rates, fmt.Sprintf("%s %.1f/s %.0f%%", n, float64(j-last[n])/period.Seconds(), 100*s.Utilization[n]))
		last[n] = j
	}
	fuzzing := ""
	if s.Fuzzing != "" && s.Campaign.State == store.StateRunning {
		fuzzing = " fuzzing " + s.Fuzzing
	}
	return fmt.Sprintf("%s %s%s | left %s | cases %d | features %d, corpus %d | jobs owed %d, messages queued %d | findings %d, new buckets %d | %s",
		s.Campaign.ID, s.Campaign.State, fuzzing, s.TimeLeft.Round(time.Second), st.Cases, st.Features, st.Corpus, s.Outstanding, s.QueueDepth,
		st.Findings, st.NewBuckets, strings.Join(rates, ", "))
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
		regressed := e.Tonight == store.TonightRegressed && e.Status != store.StatusSuppressed
		if e.Campaign != camp.ID && !regressed {
			continue
		}
		title := e.Title
		switch {
		case e.FixedUpstream():
			// Fixed where it will next be released: listed, not failing.
			title += "  [fixed upstream: LLVM main no longer shows it; found in " + e.FoundIn() + "]"
		case (e.Status == store.StatusNew || regressed) && (failOnAll || e.Class.Bug()):
			fresh++
		}
		fmt.Fprintf(w, "  %-10s %-14s %s  %d cases  %s\n", cmp.Or(e.Tonight, e.Status), e.Class, e.Key, e.Cases, title)
	}
	fmt.Fprintf(w, "tonight: %d new, %d still failing, %d regressed, %d fixed\n", tonight[store.TonightNew], tonight[store.TonightStill],
		tonight[store.TonightRegressed], tonight[store.TonightFixed])
	fmt.Fprintf(w, "results: %s (legalfuzz triage --db %s)\n", dbPath, dbPath)
	if fresh > 0 {
		return errFindings
	}
	return nil
}
