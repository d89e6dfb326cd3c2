package reports

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"github.com/legalfuzz/legalfuzz/coordinator/store/tally"
	"io"
	"strings"

	"github.com/legalfuzz/legalfuzz/coordinator/store/triage"
)

// JUnit XML, the subset CI systems read: one suite, one test case per bucket.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Name    string       `xml:"name,attr"`
	Tests   int          `xml:"tests,attr"`
	Fails   int          `xml:"failures,attr"`
	Skipped int          `xml:"skipped,attr"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Fails     int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Timestamp string      `xml:"timestamp,attr"`
	Cases     []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",cdata"`
}

// WriteJUnit writes one test case per bucket (classname legalfuzz.DOMAIN,
// name "KEY TITLE"), so a CI dashboard follows each bucket across nights.
// A suppressed bucket is skipped with its reason. A tool bug fails when it
// is new tonight (type "new"), back after a fix ("regressed") or seen again
// ("still"), with its reproducer as the failure text; a fixed one passes
// and says which versions fixed it; a bucket tonight did not look at, a
// limitation or seed evidence passes.
func WriteJUnit(w io.Writer, r *Report) error {
	suite := junitSuite{Name: "legalfuzz " + r.Campaign, Timestamp: r.Generated.Format("2006-01-02T15:04:05"), Cases: []junitCase{}}
	for _, b := range r.Buckets {
		c := junitCase{Name: b.Key + " " + b.Title, ClassName: "legalfuzz." + b.Domain}
		failing := b.Tonight == triage.TonightNew || b.Tonight == triage.TonightStill || b.Tonight == triage.TonightRegressed ||
			b.Tonight == "" && b.Status == triage.StatusNew // a report of a store without nights
		switch {
		case b.Status == triage.StatusSuppressed:
			c.Skipped = &junitMessage{Message: "suppressed: " + b.SuppressionReason}
			suite.Skipped++
		case failing && b.Class.Bug():
			c.Failure = &junitMessage{Message: cmp.Or(b.Tonight, b.Status) + " bucket: " + b.Title, Type: cmp.Or(b.Tonight, b.Status),
				Text: xmlSafe(reproducerText(b))}
			suite.Fails++
		case b.Tonight == triage.TonightFixed:
			c.SystemOut = fmt.Sprintf("fixed tonight (%s): replayed with %s, the case no longer shows it", b.Class, b.FixedBy)
		default:
			c.SystemOut = fmt.Sprintf("%s bucket (%s), first seen %s in campaign %s", cmp.Or(b.Tonight, b.Status), b.Class,
				b.FirstSeen.UTC().Format("2006-01-02 15:04:05Z"), b.Campaign)
		}
		suite.Cases = append(suite.Cases, c)
	}
	suite.Tests = len(suite.Cases)
	doc := junitSuites{Name: "legalfuzz", Tests: suite.Tests, Fails: suite.Fails, Skipped: suite.Skipped, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// reproducerText is a bucket's reproducer as plain text.
func reproducerText(b BucketReport) string {
	var s strings.Builder
	rp := b.Reproducer
	fmt.Fprintf(&s, "bucket %s: %s, first seen %s\n", b.Key, tally.Cases(b.Cases), b.FirstSeen.UTC().Format("2006-01-02 15:04:05Z"))
	fmt.Fprintf(&s, "case %s (%s, %s)\n", rp.Case, rp.Domain, rp.Source)
	if rp.Minimized {
		fmt.Fprintf(&s, "minimized from %s; the signature held on %d of %d re-checks\n", rp.Example, rp.Reliable, rp.ReChecks)
	} else if rp.MinimizeNote != "" {
		fmt.Fprintf(&s, "not minimized: %s\n", rp.MinimizeNote)
	}
	if rp.Problem != "" {
		fmt.Fprintf(&s, "problem: %s\n", rp.Problem)
	}
	fmt.Fprintf(&s, "case.json: %s\n", rp.Value)
	fmt.Fprintf(&s, "replay: %s\n", rp.Command)
	s.WriteString("verdicts:\n")
	for _, v := range rp.Verdicts {
		mark := " "
		for _, d := range rp.Disagreeing {
			if d == v.Oracle {
				mark = "*"
			}
		}
		fmt.Fprintf(&s, " %s %-12s %-11s", mark, v.Oracle, v.Kind)
		if v.Rule != "" {
			fmt.Fprintf(&s, " [%s]", v.Rule)
		}
		if v.Diagnostic != "" {
			fmt.Fprintf(&s, " %s", strings.ReplaceAll(strings.TrimSpace(v.Diagnostic), "\n", "\n      "))
		}
		s.WriteString("\n")
	}
	s.WriteString("(* = the disagreeing pair)\n")
	return s.String()
}

// xmlSafe drops the characters XML 1.0 cannot hold (CDATA is not escaped):
// control characters other than tab and newline, e.g. a tool's colour codes.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || (r >= 0x20 && r != 0xFFFE && r != 0xFFFF && (r < 0xD800 || r > 0xDFFF)) {
			return r
		}
		return -1
	}, s)
}
