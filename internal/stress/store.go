package stress

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/reliability"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/reports"
)

// StoreOptions are the store bench's settings; cmd/legalfuzz's bench store
// documents each as a flag.
type StoreOptions struct {
	Sizes   []int
	OldMax  int
	Domain  string
	Oracles []string
	// FindingEvery makes every FindingEvery-th case a member of one finding
	// bucket (0: none): what the bucket keeps of its members shows.
	FindingEvery int
}

// BenchStore measures a store of each size in o.Sizes, kept whole (for the
// sizes up to o.OldMax) and settled, in folder dir, and writes each row to
// w as a table line as soon as it is measured.
func BenchStore(o StoreOptions, dir string, w io.Writer) ([]StoreRow, error) {
	var rows []StoreRow
	fmt.Fprintf(w, "%-9s %-9s %12s %10s %12s %10s %10s %9s\n", "cases", "form", "file bytes", "B/case", "used B/case", "commit/s", "report s", "report MB")
	for _, n := range o.Sizes {
		for _, keepAll := range []bool{true, false} {
			if keepAll && n > o.OldMax {
				continue
			}
			row, err := benchStore(filepath.Join(dir, fmt.Sprintf("s%d-%t.db", n, keepAll)), n, keepAll, &o)
			if err != nil {
				return rows, err
			}
			rows = append(rows, row)
			fmt.Fprintf(w, "%-9d %-9s %12d %10.1f %12.1f %10.0f %10.3f %9.1f\n", row.Cases, row.Form, row.FileBytes,
				row.BytesPerCase, row.UsedPerCase, row.CommitPerSecond, row.ReportSeconds, row.ReportPeakMB)
		}
	}
	return rows, nil
}

// StoreRow is one store measured.
type StoreRow struct {
	Cases           int     `json:"cases"`
	Form            string  `json:"form"` // keep-all or settled
	FileBytes       int64   `json:"file_bytes"`
	UsedBytes       int64   `json:"used_bytes"` // pages in use: the file less its free pages
	BytesPerCase    float64 `json:"bytes_per_case"`
	UsedPerCase     float64 `json:"used_bytes_per_case"`
	CommitPerSecond float64 `json:"commits_per_second"` // cases committed (added, enqueued, judged) per second
	ReportSeconds   float64 `json:"report_seconds"`
	ReportPeakMB    float64 `json:"report_peak_heap_mb"`
}

// storeBenchChunk is how many cases one round of the commit path takes.
const storeBenchChunk = 2000

// benchStore fills a store at path with n judged cases and measures it.
func benchStore(path string, n int, keepAll bool, o *StoreOptions) (StoreRow, error) {
	row := StoreRow{Cases: n, Form: map[bool]string{true: "keep-all", false: "settled"}[keepAll]}
	db, err := store.OpenStore(path, time.Second)
	if err != nil {
		return row, err
	}
	const camp = "bench"
	if err := db.PutCampaign(store.Campaign{ID: camp, State: store.StateRunning, Created: time.Now().UTC(),
		Config: store.CampaignConfig{Oracles: o.Oracles, KeepAll: keepAll}}); err != nil {
		db.Close()
		return row, err
	}
	var busy time.Duration
	for done, round := 0, uint64(1); done < n; round++ {
		cs, err := reliability.Cases(o.Domain, min(storeBenchChunk, n-done), round)
		if err != nil {
			db.Close()
			return row, err
		}
		start := time.Now()
		added, err := commitSynthetic(db, camp, cs, done, o)
		busy += time.Since(start)
		if err != nil {
			db.Close()
			return row, err
		}
		done += added
		if added == 0 {
			db.Close()
			return row, fmt.Errorf("domain %s: no new cases in round %d", o.Domain, round)
		}
	}
	row.CommitPerSecond = float64(n) / busy.Seconds()
	if row.FileBytes, row.UsedBytes, err = db.Size(); err != nil {
		db.Close()
		return row, err
	}
	if err := db.Close(); err != nil {
		return row, err
	}
	row.BytesPerCase, row.UsedPerCase = float64(row.FileBytes)/float64(n), float64(row.UsedBytes)/float64(n)
	row.ReportSeconds, row.ReportPeakMB, err = timeReport(path)
	return row, err
}

// commitSynthetic adds the cases, marks them enqueued and commits one
// verdict per oracle, as a campaign's commit path does, and returns how
// many cases were new. Every case accepts, but every o.FindingEvery-th
// (counting from done, the cases committed before), which the PTX ISA
// rejects with a diagnostic of a typical length: a finding.
func commitSynthetic(db *store.Store, camp string, cs []domain.Case, done int, o *StoreOptions) (int, error) {
	orcs := o.Oracles
	recs := make([]store.CaseRecord, len(cs))
	now := time.Now().UTC()
	for i, c := range cs {
		recs[i] = store.CaseRecord{ID: c.ID, Domain: c.Domain, Data: c.Value.Encode(), Campaign: camp, Source: "fuzz:bench", Seen: now}
	}
	added, err := db.AddCases(camp, recs)
	if err != nil {
		return 0, err
	}
	enq := map[string][]string{}
	var commits []store.Commit
	pol := policy.Policy{Domain: o.Domain, Judges: []string{"ptxas"}}
	judged := func(c domain.Case, vs []oracles.Verdict) []policy.Disagreement { return pol.Evaluate(c, vs) }
	for _, orc := range orcs {
		c := store.Commit{Campaign: camp, Now: now, Oracle: orc, Elapsed: time.Millisecond, Judged: judged}
		for i, r := range added {
			v := oracles.Verdict{Oracle: orc, Case: r.ID, Domain: r.Domain, Kind: oracles.Accept, Version: "bench"}
			if orc == oracles.SpecPTXISA && o.FindingEvery > 0 && (done+i)%o.FindingEvery == 0 {
				v.Kind, v.Rule, v.Diagnostic = oracles.Reject, "ptxisa."+o.Domain+".bench", benchDiagnostic
			}
			c.Verdicts = append(c.Verdicts, v)
		}
		commits = append(commits, c)
	}
	for _, r := range added {
		enq[r.ID] = orcs
	}
	if err := db.MarkEnqueued(camp, enq); err != nil {
		return 0, err
	}
	if _, err := db.CommitMany(commits); err != nil {
		return 0, err
	}
	return len(added), nil
}

// benchDiagnostic is a finding's diagnostic of a typical length (a PTX ISA
// rule's text, a tool's first lines).
var benchDiagnostic = strings.Repeat("the operand's field is out of the range the instruction allows; ", 5)

// timeReport loads the report of the store at path and returns its wall
// time and the peak heap in use while it ran, above the heap before.
func timeReport(path string) (seconds, peakMB float64, err error) {
	db, err := store.OpenStoreReadOnly(path, time.Second)
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	peak := base
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	_, err = reports.Load(db, reports.Options{StorePath: path})
	seconds = time.Since(start).Seconds()
	close(stop)
	<-sampled
	return seconds, float64(peak-base) / (1 << 20), err
}
