package main

import (
	"encoding/json"
	"fmt"
	"github.com/legalfuzz/legalfuzz/coordinator/store/tally"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/corpus"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
	"github.com/legalfuzz/legalfuzz/oracles/registry"
)

type judgeOptions struct {
	domain    string
	oracles   []string
	batchSize int
	asJSON    bool
}

func newJudgeCmd() *cobra.Command {
	var o judgeOptions
	cmd := &cobra.Command{
		Use:   "judge [--domain D] [--oracles ...] [--json] DIR|FILE...",
		Short: "Judge a corpus locally with every oracle; print the agreement matrix and every disagreement",
		Long: `Judge reads cases (Go native corpus files, go-fuzz raw inputs, JSON cases) and judges them with
every available oracle. Without --domain, each path must be a corpus root whose FuzzX folders name the
domains (e.g. fuzz/testdata/fuzz). Exit 1 when a disagreement is a finding.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, args) },
	}
	cmd.Flags().StringVar(&o.domain, "domain", "", "domain of every case in the paths")
	cmd.Flags().StringSliceVar(&o.oracles, "oracles", nil, "oracles to use (default: all available)")
	cmd.Flags().IntVar(&o.batchSize, "batch", 500, "cases per oracle invocation")
	cmd.Flags().BoolVar(&o.asJSON, "json", false, "print one JSON object: matrix and disagreements")
	return cmd
}

// judgeReport is the --json output of judge (stable).
type judgeReport struct {
	Cases         int                   `json:"cases"`
	Problems      []string              `json:"problems"`
	Matrix        tally.Matrix          `json:"matrix"`
	Disagreements []policy.Disagreement `json:"disagreements"`
}

func (o *judgeOptions) run(cmd *cobra.Command, paths []string) error {
	pols, err := policies()
	if err != nil {
		return err
	}
	cases, problems, err := o.load(paths)
	if err != nil {
		return err
	}
	for _, p := range problems {
		slog.Warn("skipped bad case file", "err", p)
	}
	found, err := discover(cmd.Context())
	if err != nil {
		return err
	}
	defer found.Close()
	orcs, err := selectOracles(found, o.oracles)
	if err != nil {
		return err
	}
	byCase, err := oracles.Local{Oracles: orcs, BatchSize: o.batchSize}.Judge(cmd.Context(), cases, nil)
	if err != nil {
		return err
	}
	rep := judgeReport{Cases: len(cases), Matrix: tally.BuildMatrix(byCase), Disagreements: []policy.Disagreement{}}
	for _, p := range problems {
		rep.Problems = append(rep.Problems, p.Error())
	}
	for _, c := range cases {
		rep.Disagreements = append(rep.Disagreements, pols.For(c.Domain).Evaluate(c, byCase[c.ID])...)
	}
	if err := writeJudgeReport(cmd.OutOrStdout(), rep, o.asJSON); err != nil {
		return err
	}
	for _, d := range rep.Disagreements {
		if d.Finding() {
			return errFindings
		}
	}
	return nil
}

// load reads the cases of one domain, or of every domain whose FuzzX folder
// is under the paths.
func (o *judgeOptions) load(paths []string) ([]domain.Case, []error, error) {
	if o.domain != "" {
		d, ok := fuzz.Lookup(o.domain)
		if !ok {
			return nil, nil, fmt.Errorf("unknown domain %q (see legalfuzz domains)", o.domain)
		}
		l := corpus.Load(d, paths)
		return l.Cases, l.Problems, nil
	}
	var cases []domain.Case
	var problems []error
	found := false
	for _, d := range fuzz.Domains() {
		var dirs []string
		for _, p := range paths {
			if dir := filepath.Join(p, d.FuzzTarget); isDir(dir) {
				dirs = append(dirs, dir)
			}
		}
		if len(dirs) == 0 {
			continue
		}
		found = true
		l := corpus.Load(d, dirs)
		cases, problems = append(cases, l.Cases...), append(problems, l.Problems...)
	}
	if !found {
		return nil, nil, fmt.Errorf("no FuzzX corpus folder under %s; name the domain with --domain", strings.Join(paths, ", "))
	}
	return cases, problems, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// selectOracles returns the available oracles, restricted to names if given.
func selectOracles(found *registry.Found, names []string) ([]oracles.Oracle, error) {
	if len(names) == 0 {
		return found.Oracles, nil
	}
	var out []oracles.Oracle
	for _, n := range names {
		i := slices.IndexFunc(found.Oracles, func(o oracles.Oracle) bool { return o.Name() == n })
		if i < 0 {
			return nil, fmt.Errorf("oracle %q is not available (see legalfuzz oracles)", n)
		}
		out = append(out, found.Oracles[i])
	}
	return out, nil
}

func writeJudgeReport(w io.Writer, rep judgeReport, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintf(w, "%d cases, %d bad files\n\n", rep.Cases, len(rep.Problems))
	if err := rep.Matrix.WriteText(w); err != nil {
		return err
	}
	return writeDisagreements(w, rep.Disagreements)
}

// writeDisagreements groups disagreements by pair, verdicts and rules, with a
// count and one example case each.
func writeDisagreements(w io.Writer, ds []policy.Disagreement) error {
	type group struct {
		key, example, expected string
		n                      int
	}
	groups := map[string]*group{}
	for _, d := range ds {
		key := fmt.Sprintf("%s: %s %s %s | %s %s %s", d.Domain, d.A.Oracle, d.A.Kind, ruleAndValue(d.A), d.B.Oracle, d.B.Kind, diag.FirstLine(d.B.Diagnostic+" "+d.B.Value))
		g := groups[key]
		if g == nil {
			g = &group{key: key, example: d.Case, expected: d.Expected}
			groups[key] = g
		}
		g.n++
	}
	keys := slices.Sorted(maps.Keys(groups))
	fmt.Fprintf(w, "\n%d disagreements in %d groups\n", len(ds), len(groups))
	for _, k := range keys {
		g := groups[k]
		tag := "FINDING"
		if g.expected != "" {
			tag = "expected (" + g.expected + ")"
		}
		if _, err := fmt.Fprintf(w, "%5d  %s  e.g. case %s  %s\n", g.n, g.key, g.example, tag); err != nil {
			return err
		}
	}
	return nil
}

// ruleAndValue spells a verdict's rule, and its value when it has one.
func ruleAndValue(v oracles.Verdict) string {
	if v.Value == "" {
		return v.Rule
	}
	return v.Rule + " = " + v.Value
}
