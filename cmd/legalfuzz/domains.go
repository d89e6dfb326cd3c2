package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store/tally"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/lattice"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
)

// domainInfo is one entry of `legalfuzz domains --json` (stable output).
type domainInfo struct {
	Name       string         `json:"name"`
	Doc        string         `json:"doc"`
	FuzzTarget string         `json:"fuzz_target"`
	Rules      map[string]int `json:"rules"`
	Oracles    []string       `json:"oracles"`
	// Policy spells the domain's agreement policy, one requirement a line.
	Policy []string `json:"policy"`
	// Sweep is the domain's lattice: the pairs of values of two fields its
	// sweep covers, and with --db how far the store's sweep has come.
	Sweep sweepInfo `json:"lattice"`
	// Ops is the store's op coverage (--db), for a domain whose cases are
	// ops: per oracle, the ops it was asked about, judged at least once
	// (a verdict not unsupported) and that reached llc.
	Ops []opsInfo `json:"op_coverage,omitempty"`
}

// opsInfo is one oracle's op coverage of a domain in a store.
type opsInfo struct {
	Oracle     string `json:"oracle"`
	Ops        int    `json:"ops"`
	Judged     int    `json:"judged"`
	ReachedLLC int    `json:"reached_llc"`
}

// sweepInfo is a domain's lattice and, in a store, its sweep.
type sweepInfo struct {
	Rows         int `json:"rows"`
	Pairs        int `json:"pairs"`
	Unrealizable int `json:"unrealizable"`
	// Covered and CompletedIn are the store's (--db): the pairs judged so
	// far, and the campaign (night) that judged the last row.
	Covered     int    `json:"covered"`
	CompletedIn string `json:"completed_in,omitempty"`
}

func newDomainsCmd() *cobra.Command {
	var asJSON bool
	var db string
	cmd := &cobra.Command{
		Use:   "domains",
		Short: "List the domains, their rules, the oracles that judge them and their lattice sweeps",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pols, err := policies()
			if err != nil {
				return err
			}
			infos, err := domainInfos(pols)
			if err != nil {
				return err
			}
			var ops []tally.OpCoverage
			if db != "" {
				if ops, err = addStore(cmd.ErrOrStderr(), db, infos); err != nil {
					return err
				}
			}
			if err := writeDomains(cmd.OutOrStdout(), infos, asJSON); err != nil || asJSON {
				return err
			}
			return writeSurfaces(cmd.Context(), cmd.OutOrStdout(), ops, db != "")
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON array")
	cmd.Flags().StringVar(&db, "db", "", "a store whose lattice sweeps (pairs covered, the night each completed) and op coverage (ops judged, ops that reached llc) to show")
	return cmd
}

// addStore fills in how far the store's sweep of each domain has come and
// its op coverage, and returns the op coverage of every night merged.
func addStore(w io.Writer, path string, infos []domainInfo) ([]tally.OpCoverage, error) {
	s, err := openForReading(w, path, 5*time.Second)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	sweeps, err := s.Sweeps()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	nights, err := s.Nights()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var all tally.Ops
	for _, n := range nights {
		all.Merge(&n.Tally.Ops)
	}
	ops := all.Coverage()
	for i := range infos {
		sw, ok := sweeps[infos[i].Name]
		if ok && sw.Rows == infos[i].Sweep.Rows && sw.Pairs == infos[i].Sweep.Pairs {
			infos[i].Sweep.Covered, infos[i].Sweep.CompletedIn = sw.Covered, sw.CompletedIn
		}
		for _, c := range ops {
			if c.Domain == infos[i].Name {
				infos[i].Ops = append(infos[i].Ops, opsInfo{Oracle: c.Oracle, Ops: c.Ops, Judged: c.Judged, ReachedLLC: c.ReachedLLC})
			}
		}
	}
	return ops, nil
}

func domainInfos(pols policy.Set) ([]domainInfo, error) {
	count := map[string]map[string]int{}
	for _, r := range rules.Rules() {
		if count[r.Domain] == nil {
			count[r.Domain] = map[string]int{}
		}
		count[r.Domain][string(r.Set)]++
	}
	var infos []domainInfo
	for _, d := range fuzz.Domains() {
		info := domainInfo{Name: d.Name, Doc: d.Doc, FuzzTarget: d.FuzzTarget, Rules: count[d.Name],
			Policy: pols.For(d.Name).Describe()}
		for _, set := range rules.Sets {
			if spec.New(set).Judges(d.Name) {
				info.Oracles = append(info.Oracles, spec.New(set).Name())
			}
		}
		l, err := lattice.For(d)
		if err != nil {
			return nil, err
		}
		info.Sweep = sweepInfo{Rows: l.Len(), Pairs: l.Pairs, Unrealizable: l.Unrealizable}
		infos = append(infos, info)
	}
	return infos, nil
}

// String is the sweep as the domains table shows it: the pairs (and rows)
// of the lattice, and with a store the pairs covered and the night that
// completed it.
func (s sweepInfo) String() string {
	text := fmt.Sprintf("%d in %d rows", s.Pairs, s.Rows)
	switch {
	case s.CompletedIn != "":
		text = fmt.Sprintf("%d (done in %s)", s.Pairs, s.CompletedIn)
	case s.Covered > 0:
		text = fmt.Sprintf("%d of %d (%d%%)", s.Covered, s.Pairs, s.Covered*100/s.Pairs)
	}
	return text
}

func writeDomains(w io.Writer, infos []domainInfo, asJSON bool) error {
	if asJSON {
		return writeJSON(w, infos)
	}
	tw := newTable(w, "DOMAIN\tSEED RULES\tPTXISA RULES\tORACLES\tLATTICE PAIRS\tWHAT")
	for _, d := range infos {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%v\t%s\t%s\n", d.Name, d.Rules["seed"], d.Rules["ptxisa"], d.Oracles, d.Sweep, d.Doc)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nAGREEMENT POLICIES")
	for _, d := range infos {
		fmt.Fprintf(w, "%s:\n", d.Name)
		for _, line := range d.Policy {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	return nil
}
