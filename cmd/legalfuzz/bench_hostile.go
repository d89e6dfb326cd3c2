package main

import (
	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/internal/stress"
)

// newBenchHostileVerifierCmd is the soak's hostile verifier
// (stress.HostileVerifier). Hidden: the soak runs it through --oracle.
func newBenchHostileVerifierCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "hostile-verifier",
		Short:  "An exec verifier whose diagnostics' first lines pass the store's key limit (bench soak runs it)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return stress.HostileVerifier(cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
}
