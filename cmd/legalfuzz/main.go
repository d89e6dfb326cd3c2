// Command legalfuzz fuzzes and differential-tests GPU legality rules. This
// package is wiring only: flags, output and exit codes.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/internal/clip"
	"github.com/legalfuzz/legalfuzz/oracles/cuda"
)

// Exit codes: the contract nightly jobs script against.
const (
	exitOK       = 0 // ran, nothing new
	exitFindings = 1 // new findings
	exitError    = 2 // usage or runtime error
)

// errFindings makes a command exit 1 after printing its normal output.
var errFindings = errors.New("new findings")

func main() {
	cuda.ServeChildIfAsked() // the gpu oracle re-runs this binary to isolate faults
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one command line and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: logLevel(), ReplaceAttr: clip.LogAttr})))
	root := newRootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errFindings):
		return exitFindings
	default:
		fmt.Fprintln(stderr, "legalfuzz:", clip.Lines(err.Error()))
		return exitError
	}
}

// logLevel is $LEGALFUZZ_LOG (debug, info, warn or error), warn by default:
// debug shows each tool run the batch engine makes.
func logLevel() slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(os.Getenv("LEGALFUZZ_LOG"))); err != nil {
		return slog.LevelWarn
	}
	return l
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "legalfuzz",
		Short:         "Fuzz and differential-test GPU legality rules",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildVersion(),
	}
	root.PersistentFlags().StringArrayVar(&userOracles, "oracle", nil,
		"add a user oracle, exec:NAME=COMMAND (a verifier speaking legalfuzz-exec/1; repeatable)")
	root.PersistentFlags().BoolVar(&strictOracles, "strict-oracles", false,
		"exit 2 when a user oracle (--oracle) is unavailable, instead of going on without it")
	root.PersistentFlags().StringArrayVar(&userToolchains.Named, "toolchain", nil,
		"add an LLVM installation, [LABEL=]DIR: a build or install folder (or its bin/); its oracles are mlir@LABEL, llc@LABEL, ... (repeatable)")
	root.PersistentFlags().StringVar(&userToolchains.File, "toolchains", "",
		"a file of LLVM installations, one [LABEL=]DIR a line (# comments), as --toolchain")
	root.PersistentFlags().BoolVar(&allReleases, "all-releases", false,
		"judge with every installed LLVM release; by default only the newest release, builds of main and --toolchain ones judge, the older releases replay buckets")
	root.PersistentFlags().StringVar(&userPolicy, "policy", "",
		"policy file adding judges, pairs and expectations to the built-in policies (docs/policy.md)")
	root.AddCommand(newDomainsCmd(), newOraclesCmd(), newCheckCmd(), newJudgeCmd(),
		newCampaignCmd(), newCoordinatorCmd(), newWorkerCmd(), newTriageCmd(),
		newMinimizeCmd(), newReportCmd(), newBenchCmd())
	root.AddCommand(newCorpusCmd(), newStoreCmd(), newVersionCmd(), newGPUCheckCmd())
	return root
}
