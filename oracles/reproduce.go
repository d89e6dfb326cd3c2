package oracles

import (
	"context"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// The files of a reproducer bundle (corpus/repro) that oracles render: a
// bundle holds each once, shared by the oracles of its pair that read it.
const (
	CaseFile   = "case.json"
	PTXFile    = "case.ptx"
	MLIRFile   = "case.mlir"
	LLFile     = "case.ll"
	DriverFile = "case.driver.json"
	AsmFile    = "case.s"
)

// Reproducer is what an oracle family knows of replaying its verdicts by
// hand, outside legalfuzz: the input its tool reads, the commands that
// run the tool on it, and what an upstream issue about the tool says. The
// reproducer bundles of corpus/repro ask it and know no oracle by name;
// oracles/registry lists one per family.
type Reproducer interface {
	// Reproduce renders a case for one of the family's oracles.
	Reproduce(ctx context.Context, r ReproRequest) Reproduction
	// Filing is the family's facts an upstream issue needs.
	Filing() Filing
}

// ReproRequest asks a Reproducer for one oracle's replay of one case.
type ReproRequest struct {
	// Name is the oracle, one of the family's (mlir@22, ptxas13).
	Name string
	Case domain.Case
	// Shared is set when the bucket's pair has another oracle that renders
	// the same input file (one of this family, or MLIR's other entry
	// point): each renders its input under a name of its own, or, for a
	// family whose replay reads one fixed file, the one not Observed does.
	Shared bool
	// Observed is set for the oracle whose verdict repro.sh replays (the
	// tool that deviates).
	Observed bool
	// Oracles are the oracles discovered here: an input only a located tool
	// can render (llc's IR depends on the intrinsics it knows) is rendered
	// with them.
	Oracles []Oracle
}

// Reproduction is how one oracle's verdict on a case is replayed by hand.
type Reproduction struct {
	// Files are the input files to write into the bundle.
	Files []ReproFile
	// Input is the file the tool reads, quoted by an issue when the family
	// files upstream; "" when none was rendered.
	Input string
	// Commands are commands.txt's lines for the oracle: the command lines
	// that run its tool, and # comments (why an input was not written).
	Commands []string
	// Replay says how repro.sh replays the oracle's verdict, Steps what it
	// runs for ReplaySteps and ReplayStages.
	Replay Replay
	Steps  []Step
}

// ReproFile is one rendered input file.
type ReproFile struct{ Name, Text string }

// Replay is how repro.sh replays a deviating verdict.
type Replay int

const (
	// ReplayCheck replays it with legalfuzz check: for oracles judged in
	// process, and whatever has no input written here.
	ReplayCheck Replay = iota
	// ReplaySteps runs the steps and judges the last by what the oracle
	// said: its words, a crash, or an accept that emitted the operation.
	ReplaySteps
	// ReplayStages runs the steps up to the one the verdict's stage names
	// (the first must succeed) and judges that one as a reader of the
	// first's output: a refusal, a crash, an error printed at exit 0. A
	// verdict of no step's stage (the outputs compared) is judged by
	// legalfuzz check after all of them.
	ReplayStages
	// ReplayPlan is replayed as the family's reproducer writes it
	// (replay.Planner): MLIR's verifier, the fewest passes of its lowering
	// that show the bug, its chain through llc and ptxas, or a pass judge's
	// pipelines before the pass and the pass alone.
	ReplayPlan
)

// Step is one tool run of a replay.
type Step struct {
	// Name names the step in repro.sh (its output is $work/NAME.out).
	Name string
	// Var is the shell variable that holds the tool, Tool how it is found.
	Var  string
	Tool tool.Spec
	// Args are the tool's arguments, the input file and Output among them.
	Args []string
	// Input is the bundle file the step reads; Output the file it writes
	// the code it emitted to (a quoted "$work/..." path), "" when none is
	// checked.
	Input, Output string
}

// Filing is what an upstream issue says of a tool family.
type Filing struct {
	// Input is the file the family's tools read in a bundle, when the
	// Reproduction that wrote it is not at hand (a bundle read back).
	Input string
	// Component is what a bucket is filed under; a zero Component is
	// legalfuzz's own (not filed upstream).
	Component Component
	// ComponentOf, when set, picks the component by the stage that failed
	// and the op the case is about (MLIR's dialects).
	ComponentOf func(stage Stage, op string) Component
	// Tool is how a title names the tool ("ptxas", "the CUDA driver").
	Tool string
	// Docs is the documentation the tool's input is read against; "" is
	// the PTX ISA and the CUDA driver documentation.
	Docs string
	// Verifier is set for a family of op verifiers with a lowering (MLIR):
	// its titles say what an op verifies and lowers to.
	Verifier bool
	// StageTools names the tool that runs each stage of the family's chain
	// after its own ("translate": "mlir-translate"), as titles and issues
	// name a stage; a stage not listed is named as it is.
	StageTools map[string]string
	// Accepts is the verb a title says the tool accepts a case with
	// ("compiles"); "" is "accepts".
	Accepts string
	// Subject names what the tool was given in its own terms (the op, the
	// instruction, the intrinsic) from the text of the bundle's files,
	// read by name; input is the deviating oracle's Reproduction.Input,
	// prefix the PTX instruction the case's domain is about. Nil when it
	// cannot.
	Subject func(read func(name string) string, input, prefix string) string
}

// Component is the part of an upstream project that owns a bug, as the
// project's tracker names it.
type Component struct {
	// Tag starts the title: "[MLIR][NVGPU]", "[NVPTX]".
	Tag string
	// Name says it in words: "MLIR, NVGPU dialect".
	Name string
	// Tracker is whose tracker takes the issue, "LLVM" or "NVIDIA"; empty
	// for what is not filed upstream.
	Tracker string
}

// NotWritten is the Reproduction of an input that could not be rendered:
// one comment saying why.
func NotWritten(file, why string) Reproduction {
	return Reproduction{Commands: []string{"# " + file + " not written: " + why}}
}
