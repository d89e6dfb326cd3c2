package main

import (
	"fmt"
	"runtime/debug"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

// buildVersion names this build: the module version, or the VCS revision
// and time it was built from (with "+dirty" for uncommitted changes).
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	var rev, at, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if (v == "" || v == "(devel)") && rev != "" {
		v = fmt.Sprintf("%.12s%s (%s)", rev, dirty, at)
	}
	return v + " " + info.GoVersion
}

// versionInfo is `legalfuzz version --json`.
type versionInfo struct {
	Legalfuzz string            `json:"legalfuzz"`
	Oracles   map[string]string `json:"oracles"` // available oracles and their versions
}

func newVersionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print this build's version and the version of every oracle found here",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			found, err := discover(cmd.Context())
			if err != nil {
				return err
			}
			defer found.Close()
			v := versionInfo{Legalfuzz: buildVersion(), Oracles: map[string]string{}}
			for _, s := range found.Statuses {
				if s.Available {
					v.Oracles[s.Name] = s.Version
				}
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), v)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "legalfuzz\t%s\n", v.Legalfuzz)
			for _, s := range found.Statuses {
				if s.Available {
					fmt.Fprintf(tw, "%s\t%s\n", s.Name, s.Version)
				}
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}
