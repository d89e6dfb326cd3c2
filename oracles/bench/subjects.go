package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/llvm"
	"github.com/legalfuzz/legalfuzz/oracles/mlir"
	"github.com/legalfuzz/legalfuzz/oracles/ptxas"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// subject is one tool oracle under benchmark: how to make fresh instances
// of it and which bare tool commands its first pass runs.
type subject struct {
	name    string
	version string
	path    string
	// batchSize is the oracle's default batch size, as reported; 0 means no
	// cap (one invocation per target group).
	batchSize int
	judges    func(domainName string) bool
	// fresh returns a new oracle, with no cache (header probes, refused
	// targets, learned intrinsics) left from an earlier mode; batchSize 0
	// means the oracle's default. Discovery work (version and capability
	// probes) happens here, outside any timing.
	fresh func(ctx context.Context, batchSize int) (oracles.Oracle, error)
	// firstPass renders cases into the commands the oracle's first pass
	// runs at its default batch size, writing any input files under dir.
	firstPass func(cases []domain.Case, dir string) ([]command, error)
	// notes says what the harness does beyond the bare run.
	notes string
}

// command is one bare tool invocation.
type command struct {
	tool  tool.Tool
	args  []string
	stdin []byte
}

// subjects are the oracles the benchmark knows, by name, or by base for an
// LLVM installation's oracles (llc@LABEL). Adding an oracle is one entry
// here.
var subjects = map[string]func(ctx context.Context, in toolchain.Installation) (*subject, error){
	oracles.PTXAS: func(ctx context.Context, _ toolchain.Installation) (*subject, error) { return discoverPTXAS(ctx) },
	oracles.LLC:   discoverLLC,
	oracles.MLIR:  discoverMLIR,
}

// Known lists the oracle names the benchmark knows, sorted.
func Known() []string {
	var names []string
	for name := range subjects {
		if in, _ := oracles.Lookup(name); in.Installed {
			name = oracles.Installed(name, "LABEL")
		}
		names = append(names, name)
	}
	return slices.Sorted(slices.Values(names))
}

// subjectOf discovers the named subject: an installation's oracle on the
// installation its label names.
func subjectOf(ctx context.Context, name string) (*subject, error) {
	discover, ok := subjects[oracles.Base(name)]
	if !ok {
		return nil, fmt.Errorf("bench: unknown oracle %q (known: %v)", name, Known())
	}
	var in toolchain.Installation
	if label := oracles.Label(name); label != "" {
		ins, _, err := toolchain.Discover(ctx, toolchain.Options{})
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(ins, func(in toolchain.Installation) bool { return in.Label == label })
		if i < 0 {
			return nil, fmt.Errorf("bench: %s: no LLVM installation labelled %s", name, label)
		}
		in = ins[i]
	}
	return discover(ctx, in)
}

func discoverPTXAS(ctx context.Context) (*subject, error) {
	o, st := ptxas.Discover(ctx)
	if o == nil {
		return nil, fmt.Errorf("%s: %s (install: %s)", st.Name, st.Reason, st.Install)
	}
	t := tool.Tool{Name: st.Name, Path: st.Path, Version: st.Version}
	return &subject{
		name: o.Name(), version: o.Version(), path: st.Path, judges: o.Judges,
		fresh: func(_ context.Context, n int) (oracles.Oracle, error) {
			p := ptxas.New(ptxas.PTXAS124, t)
			p.BatchSize = n
			return p, nil
		},
		firstPass: func(cases []domain.Case, dir string) ([]command, error) {
			p := ptxas.New(ptxas.PTXAS124, t)
			batches, err := p.Batches(cases)
			if err != nil {
				return nil, err
			}
			cmds := make([]command, len(batches))
			for i, b := range batches {
				sub := filepath.Join(dir, fmt.Sprintf("batch%d", i))
				if err := os.Mkdir(sub, 0o755); err != nil {
					return nil, fmt.Errorf("bench: %w", err)
				}
				paths, err := b.Write(sub)
				if err != nil {
					return nil, err
				}
				cmds[i] = command{tool: t, args: p.CommandArgs(b.Arch, paths...)}
			}
			return cmds, nil
		},
		notes: "ptxas: cases spec/ptxisa expects to be accepted share one run per architecture (a module " +
			"file per PTX version: ptxas reads them all when they assemble); the others one run per target " +
			"(ptxas stops after the first module with errors). Beyond the bare run the harness probes each " +
			"target's header once per ptxas version (cached on disk), renders, writes and parses, and " +
			"re-assembles the entries a failed run left undecided; a crash or unattributable output cuts the run. " +
			"On mixed cases the bare first pass is cheap because ptxas aborts a module with errors before " +
			"generating code for any of it; the accepted cases are assembled in full only by the harness.",
	}, nil
}

func discoverLLC(ctx context.Context, in toolchain.Installation) (*subject, error) {
	v := llvm.VariantOf(in)
	o, st := llvm.Discover(ctx, in)
	if o == nil {
		return nil, fmt.Errorf("%s: %s (install: %s)", st.Name, st.Reason, st.Install)
	}
	t := tool.Tool{Name: st.Name, Path: st.Path, Version: st.Version}
	fresh := func(ctx context.Context, n int) (*llvm.Oracle, error) {
		l, err := llvm.New(ctx, v, t)
		if err != nil {
			return nil, err
		}
		l.BatchSize = n
		return l, nil
	}
	return &subject{
		name: o.Name(), version: o.Version(), path: st.Path, batchSize: llvm.DefaultBatchSize, judges: o.Judges,
		fresh: func(ctx context.Context, n int) (oracles.Oracle, error) { return fresh(ctx, n) },
		firstPass: func(cases []domain.Case, _ string) ([]command, error) {
			l, err := fresh(ctx, 0)
			if err != nil {
				return nil, err
			}
			batches, err := l.Batches(cases)
			if err != nil {
				return nil, err
			}
			cmds := make([]command, len(batches))
			for i, b := range batches {
				cmds[i] = command{tool: l.Tool(), args: b.Args, stdin: b.Module}
			}
			return cmds, nil
		},
		notes: fmt.Sprintf("%s: at most %d kernels per module, one module per target, IR on stdin, the "+
			"kernels spec/ptxisa expects to compile first. Beyond the bare run the harness checks the PTX for "+
			"every entry and, after a failing kernel (llc stops at the first), attributes it (stack dump, else "+
			"a rerun with -debug-pass=Executions), asks the target's probe (cached on disk) whether llc refuses "+
			"the target outright, and compiles the undecided kernels again. A target the cache knows refused "+
			"needs no run. On mixed cases the bare first pass stops at the first failing kernel of each module, "+
			"so it skips the kernels after it, which the harness must compile.", v.Name, llvm.DefaultBatchSize),
	}, nil
}

func discoverMLIR(ctx context.Context, in toolchain.Installation) (*subject, error) {
	o, st := mlir.Discover(ctx, in)
	if o == nil {
		return nil, fmt.Errorf("%s: %s (install: %s)", st.Name, st.Reason, st.Install)
	}
	opt := o.Opt
	verifier := mlir.NewRelease(o.Name(), in.Major, opt) // the verifier alone: what the bare mlir-opt run does
	return &subject{
		name: o.Name(), version: verifier.Version(), path: opt.Path, batchSize: mlir.DefaultBatchSize,
		judges: o.Judges,
		fresh: func(_ context.Context, n int) (oracles.Oracle, error) {
			m := mlir.NewRelease(o.Name(), in.Major, opt)
			m.BatchSize = n
			return m, nil
		},
		firstPass: func(cases []domain.Case, dir string) ([]command, error) {
			var cmds []command
			for chunk := range slices.Chunk(cases, mlir.DefaultBatchSize) {
				path := filepath.Join(dir, fmt.Sprintf("batch%d.mlir", len(cmds)))
				file, args, err := verifier.VerifyCommand(chunk, path)
				if err != nil {
					return nil, err
				}
				if err := os.WriteFile(path, file, 0o644); err != nil {
					return nil, fmt.Errorf("bench: %w", err)
				}
				cmds = append(cmds, command{tool: opt, args: args})
			}
			return cmds, nil
		},
		notes: fmt.Sprintf("mlir: the verifier alone (mlir-opt --split-input-file, at most %d cases per file); "+
			"the optional lowering (mlir-opt passes, mlir-translate, llvm-link, llc, ptxas per accepted case) "+
			"is not benchmarked. Beyond the bare run the harness renders and writes the file and attributes "+
			"each diagnostic to its split. Rejections need no re-run; a crash or a hang does: the run's "+
			"timing reports (--mlir-timing, one per finished split) say where it stopped, the culprit runs "+
			"alone and the splits after it run again (output that names no split is cut in pieces).", mlir.DefaultBatchSize),
	}, nil
}
