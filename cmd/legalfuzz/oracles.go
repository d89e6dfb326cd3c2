package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/registry"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

func newOraclesCmd() *cobra.Command {
	var asJSON, wide bool
	cmd := &cobra.Command{
		Use:   "oracles",
		Short: "List the oracles found on this machine, their versions, and why any is missing",
		Long: `Oracles lists the LLVM installations found and every oracle: available or not, its version, the
domains it judges and a note (why it is missing, what it cannot judge). The table fits 120 columns,
versions shortened and long cells cut with "…"; --wide prints every cell whole, --json everything.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			found, err := discover(cmd.Context())
			if err != nil {
				return err
			}
			defer found.Close()
			w := cmd.OutOrStdout()
			if asJSON {
				return writeJSON(w, found.Statuses)
			}
			width := screenWidth
			if wide {
				width = 0
			}
			if err := writeToolchains(w, found, wide, width); err != nil {
				return err
			}
			return writeOracles(w, found, wide, width)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON array")
	cmd.Flags().BoolVar(&wide, "wide", false, "print every cell whole (full versions, paths, install hints), however wide")
	return cmd
}

// writeOracles lists the oracles: in full when wide, else with versions
// shortened to the release and notes to their first clause.
func writeOracles(w io.Writer, found *registry.Found, wide bool, width int) error {
	t := newFitTable([]string{"ORACLE", "AVAILABLE", "VERSION", "DOMAINS", "NOTE"}, 3, 4)
	for _, s := range found.Statuses {
		var notes []string
		switch {
		case !s.Available && wide:
			notes = append(notes, s.Reason+"; "+s.Install)
		case !s.Available:
			notes = append(notes, s.Reason)
		case s.ReplayOnly && wide:
			notes = append(notes, "replays buckets only (--all-releases, or --oracles naming it, judges with it)")
		case s.ReplayOnly:
			notes = append(notes, "replays buckets only")
		case s.SampleOneIn > 1 && wide:
			notes = append(notes, fmt.Sprintf("judges one case in %d beside a build of main (--all-releases, or --oracles naming it, every case)", s.SampleOneIn))
		case s.SampleOneIn > 1:
			notes = append(notes, fmt.Sprintf("judges 1 case in %d", s.SampleOneIn))
		}
		if wide && s.Path != "" {
			notes = append(notes, s.Path)
		}
		unspelled := slices.Sorted(maps.Keys(s.Unspelled))
		for _, d := range unspelled {
			if wide {
				notes = append(notes, "cannot judge "+d+": "+s.Unspelled[d])
			}
		}
		if !wide && len(unspelled) > 0 {
			notes = append(notes, "cannot judge "+strings.Join(unspelled, ","))
		}
		version := s.Version
		if !wide {
			version = shortVersion(found, s)
		}
		t.row(s.Name, map[bool]string{true: "yes", false: "no"}[s.Available], version, strings.Join(s.Domains, ","), strings.Join(notes, "; "))
	}
	return t.write(w, width)
}

// releaseRE finds the release in a tool's version string.
var releaseRE = regexp.MustCompile(`\d+\.\d+(\.\d+)*`)

// shortVersion is what the table shows of an oracle's version: for an LLVM
// installation's oracle the installation's version ("22.1.8", "24.0.0 main
// 2026-10-25 7e3c571"), else the first release number in it ("12.4.131"),
// else the version as it is (a rule set's hash).
func shortVersion(found *registry.Found, s oracles.Status) string {
	if _, label, ok := strings.Cut(s.Name, "@"); ok {
		for _, in := range found.Toolchains {
			if in.Label == label {
				return installationVersion(in)
			}
		}
	}
	if v := releaseRE.FindString(s.Version); v != "" {
		return v
	}
	return s.Version
}

// installationVersion is an installation's version, with the date and short
// commit of a snapshot of LLVM main.
func installationVersion(in toolchain.Installation) string {
	date, commit, ok := strings.Cut(in.Snapshot, " ")
	if !ok {
		return strings.TrimSpace(in.Version + " " + in.Snapshot)
	}
	return in.Version + " main " + date + " " + commit[:min(len(commit), 7)]
}

// writeToolchains lists the LLVM installations found, and why installed
// ones were left out.
func writeToolchains(w io.Writer, found *registry.Found, wide bool, width int) error {
	t := newFitTable([]string{"LLVM", "VERSION", "SOURCE", "TOOLS"}, 2, 3)
	for _, in := range found.Toolchains {
		v := installationVersion(in)
		if wide && in.Snapshot != "" {
			v = in.Version + " (main " + in.Snapshot + ")"
		}
		t.row(in.Label, v, in.Source, in.Dir)
	}
	for _, err := range found.Skipped {
		t.row("-", "-", fmt.Sprintf("left out: %v", err), "")
	}
	if err := t.write(w, width); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
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
