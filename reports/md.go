package reports

import (
	"cmp"
	"fmt"
	"github.com/legalfuzz/legalfuzz/coordinator/store/tally"
	"io"
	"strings"

	"github.com/legalfuzz/legalfuzz/coordinator/store/triage"
)

// mdListLimit bounds the buckets and claims a CI comment lists.
const mdListLimit = 15

// WriteMarkdown writes a short summary for a CI comment: counts, the new
// buckets with their titles, and the claims matrix in one line plus its
// contradicted rules.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	t := r.Totals
	if r.Campaign == "" {
		b.WriteString("## legalfuzz report: no campaign in the store\n\n")
	} else {
		fmt.Fprintf(&b, "## legalfuzz report: campaign `%s`\n\n", mdCode(r.Campaign))
	}
	minimized := ""
	if t.Minimized > 0 {
		minimized = fmt.Sprintf(" (+%d minimized)", t.Minimized)
	}
	fmt.Fprintf(&b, "%d cases%s, %d verdicts, %d buckets (**%d new**, %d known, %d suppressed), %d dead letters.\n\n",
		t.Generated, minimized, t.Verdicts, t.Buckets, t.New, t.Known, t.Suppressed, t.DeadLetters)
	writeQuarantineMarkdown(&b, r)
	writeTonightMarkdown(&b, r)
	var fresh []BucketReport
	for _, bk := range r.Buckets {
		if bk.Status == triage.StatusNew {
			fresh = append(fresh, bk)
		}
	}
	if len(fresh) > 0 {
		b.WriteString("### New buckets\n\n| bucket | filing | class | cases | title | found in |\n|---|---|---|---:|---|---|\n")
		for i, bk := range fresh {
			if i == mdListLimit {
				fmt.Fprintf(&b, "| … | | | | and %d more (see report.html) | |\n", len(fresh)-mdListLimit)
				break
			}
			found := bk.FoundIn
			if bk.NewestReproduces {
				found += " (**newest reproduces**)"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %d | %s | %s |\n", bk.Key, bk.Filing, bk.Class, bk.Cases, mdCell(bk.Title), mdCell(found))
		}
		b.WriteString("\n")
	}
	c := r.ClaimCounts
	fmt.Fprintf(&b, "### Seed claims\n\n%d seed rules: **%d contradicted**, %d confirmed, %d unverified.\n",
		c.Rules, c.Contradicted, c.Confirmed, c.Unverified)
	n := 0
	for _, cl := range r.Claims {
		if cl.Verdict != tally.Contradicted {
			continue
		}
		if n == mdListLimit {
			b.WriteString("- … more in report.html\n")
			break
		}
		n++
		if n == 1 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "- `%s`: contradicted on %d of %s judged by %s", cl.Rule, cl.Contradicting, tally.Cases(cl.Judged), tallyText(cl.Tools, true))
		if agreed := tallyText(cl.Tools, false); agreed != "" {
			fmt.Fprintf(&b, "; agreed: %s", agreed)
		}
		if cl.Witness != nil {
			fmt.Fprintf(&b, " (witness `%s`)", cl.Witness.Case)
		}
		b.WriteString("\n")
	}
	writeSweepsMarkdown(&b, r.Sweeps)
	writeCoverageMarkdown(&b, r.Spelled, r.ToolSpelled)
	writeOpsMarkdown(&b, r.Ops)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSweepsMarkdown writes each domain's lattice sweep: the pairs of
// values judged of those it covers.
func writeSweepsMarkdown(b *strings.Builder, sweeps []Sweep) {
	if len(sweeps) == 0 {
		return
	}
	b.WriteString("\n### Lattice sweeps\n\n| domain | pairs covered | rows | unrealizable pairs | completed in |\n|---|---:|---:|---:|---|\n")
	for _, w := range sweeps {
		fmt.Fprintf(b, "| %s | %d of %d (%d%%) | %d | %d | %s |\n", w.Domain, w.Covered, w.Pairs, w.Percent, w.Rows, w.Unrealizable,
			cmp.Or(w.CompletedIn, "-"))
	}
}

// writeTonightMarkdown writes what changed tonight: the counts, the tools
// whose versions changed, and the regressed and fixed buckets.
func writeTonightMarkdown(b *strings.Builder, r *Report) {
	t := r.Tonight
	if t.Campaign == "" {
		return
	}
	since := "the first run in this store"
	if t.Since != "" {
		since = "since `" + mdCode(t.Since) + "`"
	}
	fmt.Fprintf(b, "### Tonight (%s)\n\n**%d new**, %d still failing, **%d regressed**, %d fixed.", since, t.New, t.Still, t.Regressed, t.Fixed)
	for i, c := range t.Changed {
		if i == 0 {
			b.WriteString(" Versions changed:")
		}
		fmt.Fprintf(b, " %s %s → %s;", c.Oracle, cmp.Or(c.From, "(none)"), cmp.Or(c.To, "(none)"))
	}
	b.WriteString("\n\n")
	n := 0
	for _, bk := range r.Buckets {
		if bk.Tonight != triage.TonightRegressed && bk.Tonight != triage.TonightFixed {
			continue
		}
		if n == mdListLimit {
			b.WriteString("- … more in report.html\n")
			break
		}
		n++
		fmt.Fprintf(b, "- %s `%s` %s", bk.Tonight, bk.Key, mdCell(bk.Title))
		if bk.FixedBy != "" {
			fmt.Fprintf(b, " (fixed by %s)", mdCell(bk.FixedBy))
		}
		b.WriteString("\n")
	}
	if n > 0 {
		b.WriteString("\n")
	}
}

// tallyText spells the tools that agreed (or contradicted) with counts.
func tallyText(ts []tally.ToolTally, contradicting bool) string {
	var parts []string
	for _, t := range ts {
		n := t.Agree
		if contradicting {
			n = t.Contradict
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s (%d)", t.Tool, n))
		}
	}
	return strings.Join(parts, ", ")
}

// mdCell makes text safe in a Markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "<", "&lt;")
	return strings.ReplaceAll(s, "`", "'")
}

func mdCode(s string) string { return strings.ReplaceAll(s, "`", "'") }

// writeQuarantineMarkdown names the workers the reported campaigns
// refused, and why.
func writeQuarantineMarkdown(b *strings.Builder, r *Report) {
	for _, c := range r.Campaigns {
		for _, q := range c.Quarantine {
			fmt.Fprintf(b, "**Worker `%s` quarantined** in campaign `%s` (%s): %s. Its results since its last agreed spot check were judged again by others.\n\n",
				mdCode(q.Worker), mdCode(c.ID), q.Oracle, mdCell(q.Reason))
		}
	}
}
