package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/oracles/registry"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

func newOraclesCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "oracles",
		Short: "List the oracles found on this machine, their versions, and why any is missing",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			found, err := discover(cmd.Context())
			if err != nil {
				return err
			}
			defer found.Close()
			statuses := found.Statuses
			w := cmd.OutOrStdout()
			if asJSON {
				return writeJSON(w, statuses)
			}
			writeToolchains(w, found)
			tw := newTable(w, "ORACLE\tAVAILABLE\tVERSION\tDOMAINS\tNOTE")
			for _, s := range statuses {
				note := s.Path
				if !s.Available {
					note = s.Reason + "; " + s.Install
				} else if s.ReplayOnly {
					note = "replays buckets only (--all-releases, or --oracles naming it, judges with it); " + note
				} else if s.SampleOneIn > 1 {
					note = fmt.Sprintf("judges one case in %d beside a build of main (--all-releases, or --oracles naming it, every case); ", s.SampleOneIn) + note
				}
				for _, d := range slices.Sorted(maps.Keys(s.Unspelled)) {
					note += "; cannot judge " + d + ": " + s.Unspelled[d]
				}
				fmt.Fprintf(tw, "%s\t%v\t%s\t%s\t%s\n", s.Name, s.Available, s.Version, strings.Join(s.Domains, ","), note)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON array")
	return cmd
}

// writeToolchains lists the LLVM installations found, and why installed
// ones were left out.
func writeToolchains(w io.Writer, found *registry.Found) {
	tw := newTable(w, "LLVM\tVERSION\tSOURCE\tTOOLS")
	for _, in := range found.Toolchains {
		v := in.Version
		if in.Snapshot != "" {
			v += " (main " + in.Snapshot + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", in.Label, v, in.Source, in.Dir)
	}
	for _, err := range found.Skipped {
		fmt.Fprintf(tw, "-\t-\tleft out: %v\t\n", err)
	}
	_ = tw.Flush()
	fmt.Fprintln(w)
}

// userOracles are the --oracle flags: exec:NAME=COMMAND each.
var userOracles []string

// userToolchains are the --toolchain and --toolchains flags; allReleases
// is --all-releases.
var (
	userToolchains toolchain.Options
	allReleases    bool
)

// userPolicy is the --policy file; empty means the built-in policies.
var userPolicy string

// policies returns the built-in policies with the --policy file's additions.
func policies() (policy.Set, error) {
	if userPolicy == "" {
		return policy.Set{}, nil
	}
	return policy.Load(userPolicy)
}

// discover finds the machine's oracles plus the user's exec oracles.
func discover(ctx context.Context) (*registry.Found, error) {
	var execs []string
	for _, o := range userOracles {
		spec, ok := strings.CutPrefix(o, "exec:")
		if !ok {
			return nil, fmt.Errorf("--oracle %q: want exec:NAME=COMMAND", o)
		}
		execs = append(execs, spec)
	}
	found, err := registry.Discover(ctx, registry.Options{Exec: execs, Toolchains: userToolchains, AllReleases: allReleases})
	if err != nil {
		return nil, err
	}
	for _, st := range found.Statuses {
		if !strings.HasPrefix(st.Name, "exec:") || st.Available {
			continue
		}
		if strictOracles {
			found.Close()
			return nil, fmt.Errorf("oracle %s is unavailable: %s", st.Name, st.Reason)
		}
		slog.Warn("oracle unavailable; going on without it (--strict-oracles makes this an error)", "oracle", st.Name, "reason", st.Reason)
	}
	return found, nil
}

// strictOracles makes an unavailable user oracle an error.
var strictOracles bool
