package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/fuzz"
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
}

func newDomainsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "domains",
		Short: "List the domains, their rules and the oracles that judge them",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pols, err := policies()
			if err != nil {
				return err
			}
			return writeDomains(cmd.OutOrStdout(), domainInfos(pols), asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON array")
	return cmd
}

func domainInfos(pols policy.Set) []domainInfo {
	count := map[string]map[string]int{}
	for _, r := range spec.Rules() {
		if count[r.Domain] == nil {
			count[r.Domain] = map[string]int{}
		}
		count[r.Domain][string(r.Set)]++
	}
	var infos []domainInfo
	for _, d := range fuzz.Domains() {
		info := domainInfo{Name: d.Name, Doc: d.Doc, FuzzTarget: d.FuzzTarget, Rules: count[d.Name],
			Policy: pols.For(d.Name).Describe()}
		for _, set := range spec.Sets {
			if spec.New(set).Judges(d.Name) {
				info.Oracles = append(info.Oracles, spec.New(set).Name())
			}
		}
		infos = append(infos, info)
	}
	return infos
}

func writeDomains(w io.Writer, infos []domainInfo, asJSON bool) error {
	if asJSON {
		return writeJSON(w, infos)
	}
	tw := newTable(w, "DOMAIN\tSEED RULES\tPTXISA RULES\tORACLES\tWHAT")
	for _, d := range infos {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%v\t%s\n", d.Name, d.Rules["seed"], d.Rules["ptxisa"], d.Oracles, d.Doc)
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
