package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/corpus"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

type checkOptions struct {
	domain string
	asJSON bool
}

func newCheckCmd() *cobra.Command {
	var o checkOptions
	cmd := &cobra.Command{
		Use:   "check --domain D [--json] FILE|-",
		Short: "Judge one case (its JSON form) with every available oracle",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd, args[0])
		},
	}
	cmd.Flags().StringVar(&o.domain, "domain", "", "the case's domain (see legalfuzz domains)")
	cmd.Flags().BoolVar(&o.asJSON, "json", false, "print one JSON object per verdict, one per line")
	_ = cmd.MarkFlagRequired("domain")
	return cmd
}

func (o *checkOptions) run(cmd *cobra.Command, path string) error {
	d, ok := fuzz.Lookup(o.domain)
	if !ok {
		return fmt.Errorf("unknown domain %q (see legalfuzz domains)", o.domain)
	}
	data, err := readInput(cmd.InOrStdin(), path)
	if err != nil {
		return err
	}
	v, err := d.ParseJSON(data)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	c := domain.NewCase(d.Name, v)
	found, err := discover(cmd.Context())
	if err != nil {
		return err
	}
	defer found.Close()
	byCase, err := oracles.Local{Oracles: found.Oracles}.Judge(cmd.Context(), []domain.Case{c}, nil)
	if err != nil {
		return err
	}
	if err := writeVerdicts(cmd.OutOrStdout(), byCase[c.ID], o.asJSON); err != nil || o.asJSON {
		return err
	}
	pols, err := policies()
	if err != nil {
		return err
	}
	fmt.Fprintln(cmd.OutOrStdout(), verdictLine(pols.For(d.Name).Evaluate(c, byCase[c.ID])))
	return nil
}

// verdictLine says in one line whether the case is a finding under the
// domain's policy, and why.
func verdictLine(ds []policy.Disagreement) string {
	var findings, expected []string
	for _, d := range ds {
		say := fmt.Sprintf("%s %s vs %s %s", d.A.Oracle, d.A.Kind, d.B.Oracle, d.B.Kind)
		if d.Finding() {
			findings = append(findings, say)
		} else {
			expected = append(expected, say+" (expected: "+d.Expected+")")
		}
	}
	switch {
	case len(findings) > 0:
		return "finding: " + strings.Join(findings, "; ")
	case len(expected) > 0:
		return "no finding: the judges that disagree are expected to: " + strings.Join(expected, "; ")
	}
	return "no finding: every judge the policy compares agrees (or could not judge the case)"
}

// readInput reads a file, or standard input for "-", bounded and refusing
// devices and FIFOs.
func readInput(stdin io.Reader, path string) ([]byte, error) {
	if path == "-" {
		return corpus.ReadAll(stdin, "standard input")
	}
	data, err := corpus.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read case: %w", err)
	}
	return data, nil
}

func writeVerdicts(w io.Writer, verdicts []oracles.Verdict, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		for _, v := range verdicts {
			if err := enc.Encode(v); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ORACLE\tVERDICT\tRULE\tDIAGNOSTIC / VALUE")
	for _, v := range verdicts {
		detail := v.Diagnostic
		if v.Kind == oracles.Accept {
			detail = v.Value
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v.Oracle, v.Kind, v.Rule, detail)
	}
	return tw.Flush()
}
