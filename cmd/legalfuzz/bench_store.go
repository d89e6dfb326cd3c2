package main

import (
	"encoding/json"
	"os"

	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/internal/stress"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// storeBenchOptions are bench store's flags: the bench's settings, its
// folder and the rows' file.
type storeBenchOptions struct {
	stress.StoreOptions
	dir string
	out string
}

func newBenchStoreCmd() *cobra.Command {
	o := &storeBenchOptions{}
	cmd := &cobra.Command{
		Use:   "store [--sizes 10000,100000,1000000] [--old-max 100000] [--out FILE.json]",
		Short: "Measure the store per judged case: bytes, commit throughput, and report time and memory, keeping all (old) vs settling (new)",
		Long: "store commits synthetic results through the real commit path (AddCases, MarkEnqueued, CommitMany) for\n" +
			"N cases of --domain, each judged by --oracles (every --finding-every-th a member of one finding bucket),\n" +
			"into a fresh store, then times `report`'s Load on it and\n" +
			"samples its heap. Each size runs twice: with KeepAll (every case and verdict kept: the form before\n" +
			"schema 3, plus tallies) and as campaigns run now (settled cases dropped). --old-max bounds the sizes\n" +
			"the keep-all run is made for (its store grows ~1 KB a case).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir := o.dir
			if dir == "" {
				tmp, err := os.MkdirTemp("", "legalfuzz-bench-store-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(tmp)
				dir = tmp
			}
			rows, err := stress.BenchStore(o.StoreOptions, dir, cmd.OutOrStdout())
			if err != nil {
				return err
			}
			if o.out == "" {
				return nil
			}
			data, err := json.MarshalIndent(rows, "", "  ")
			if err != nil {
				return err
			}
			return os.WriteFile(o.out, append(data, '\n'), 0o644)
		},
	}
	f := cmd.Flags()
	f.IntSliceVar(&o.Sizes, "sizes", []int{10_000, 100_000, 1_000_000}, "judged cases per store")
	f.IntVar(&o.OldMax, "old-max", 100_000, "largest size the keep-all (old form) store is made for")
	f.StringVar(&o.dir, "dir", "", "folder for the stores (default: a temporary one, removed)")
	f.StringVar(&o.out, "out", "", "write the rows as JSON to this file")
	f.StringVar(&o.Domain, "domain", "tmadesc", "domain of the synthetic cases")
	f.StringSliceVar(&o.Oracles, "oracles", []string{oracles.SpecSeed, oracles.SpecPTXISA, "ptxas"}, "oracles whose synthetic verdicts each case gets")
	f.IntVar(&o.FindingEvery, "finding-every", 100, "every Nth case is a finding (the PTX ISA rejects it, ptxas accepts), all in one bucket; 0: none")
	return cmd
}
