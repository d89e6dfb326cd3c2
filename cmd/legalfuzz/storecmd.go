package main

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/spf13/cobra"
)

func newStoreCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "store check | salvage --out NEW | compact --out NEW",
		Short: "Check a store for damage, copy what can still be read into a new one, or compact an old one",
	}
	cmd.AddCommand(newStoreCheckCmd(), newStoreSalvageCmd(), newStoreCompactCmd())
	return cmd
}

func newStoreCheckCmd() *cobra.Command {
	var f storeReadFlags
	cmd := &cobra.Command{
		Use:   "check [--db PATH]",
		Short: "Run bbolt's consistency check and decode every record; exit 2 on damage",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := store.OpenDamaged(f.db, f.lockWait)
			if err != nil {
				return err
			}
			defer db.Close()
			damage := db.Inspect()
			for _, d := range damage {
				fmt.Fprintln(cmd.OutOrStdout(), d)
			}
			if len(damage) > 0 {
				return fmt.Errorf("store %s is damaged: %d problems (legalfuzz store salvage --db %s --out NEW copies what reads)", f.db, len(damage), f.db)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "store %s: no damage found\n", f.db)
			return nil
		},
	}
	f.add(cmd)
	return cmd
}

func newStoreSalvageCmd() *cobra.Command {
	var f storeReadFlags
	var out string
	cmd := &cobra.Command{
		Use:   "salvage [--db PATH] --out NEW",
		Short: "Copy every campaign, case, verdict, bucket and suppression that still reads into a new store",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("--out %s: want a path where no file is", out)
			}
			db, err := store.OpenDamaged(f.db, f.lockWait)
			if err != nil {
				return err
			}
			defer db.Close()
			res, err := db.Salvage(out)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			names := slices.Sorted(maps.Keys(res.Copied))
			for _, name := range names {
				fmt.Fprintf(w, "copied %d %s\n", res.Copied[name], name)
			}
			for _, l := range res.Lost {
				fmt.Fprintf(w, "lost: %s\n", l)
			}
			fmt.Fprintf(w, "salvaged into %s (%d losses)\n", out, len(res.Lost))
			return nil
		},
	}
	f.add(cmd)
	cmd.Flags().StringVar(&out, "out", "", "the new store to write (must not exist)")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func newStoreCompactCmd() *cobra.Command {
	var f storeReadFlags
	var out string
	cmd := &cobra.Command{
		Use:   "compact [--db PATH] --out NEW",
		Short: "Write a store in the current form: settled cases folded into their nights' tallies, those nothing needs dropped",
		Long: "compact reads a store (one written before schema 3, or by a campaign run with --keep-all, keeps every\n" +
			"case and verdict) and writes a new one where every settled case is counted in its night's tally and only\n" +
			"the first members of each finding bucket, the corpus and imported cases are kept: what a campaign of this\n" +
			"version keeps. The new file is packed (full pages, nothing after the last). Reports of both show the same\n" +
			"buckets, corpus, claims and agreement matrices. The old store is not changed.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := store.OpenStoreReadOnly(f.db, f.lockWait)
			if err != nil {
				return err
			}
			defer db.Close()
			res, err := db.Compact(out)
			if err != nil {
				return err
			}
			before, after := fileSize(f.db), fileSize(out)
			fmt.Fprintf(cmd.OutOrStdout(), "compacted %s into %s: %d cases read, %d settled into tallies, %d dropped, %d kept; %d -> %d bytes\n",
				f.db, out, res.Cases, res.Settled, res.Dropped, res.Kept, before, after)
			return nil
		},
	}
	f.add(cmd)
	cmd.Flags().StringVar(&out, "out", "", "the new store to write (must not exist)")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

// fileSize is the size of the file at path, 0 when it cannot be read.
func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}
