package llvm

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// Rules name how llc's answer was read; they are part of a finding's
// signature, so one kind of llc behaviour buckets together.
const (
	RuleAccepted     = "llc.accepted"
	RuleCannotSelect = "llc.cannot-select" // ISel has no pattern: the target lacks the op
	RuleFatal        = "llc.fatal-error"   // report_fatal_error without crash diagnostics
	RuleVerifier     = "llc.verifier"      // the IR verifier refused an operand (immarg range)
	RuleInvalidIR    = "llc.invalid-ir"    // our rendering was not valid IR: a legalfuzz bug
	RuleCrash        = "llc.crash"         // a signal, an assertion, an unexpected abort
	RuleTimeout      = "llc.timeout"       // killed at the deadline
	RuleUnexplained  = "llc.unexplained"   // failed without saying why
)

// outcome is how one llc answer reads for one case.
type outcome struct {
	kind oracles.Kind
	rule string
	diag string
}

// classify reads a failed llc run. The rule that separates a rejection from
// a crash: llc reports an operation its target cannot select with "LLVM
// ERROR: Cannot select: ..." and then aborts with "PLEASE submit a bug
// report" and a stack dump. That abort is LLVM's normal way of refusing an
// intrinsic on a target, so it is a reject (llc.cannot-select). A fatal error
// that exits with status 1 and no signal is report_fatal_error without crash
// diagnostics, LLVM's deliberate message to the user (such as "PTX version
// 8.4 does not support target 'sm_100a'"): also a reject (llc.fatal-error).
// Everything else that dies is a crash, an error verdict: any signal but
// that abort (SIGSEGV, SIGBUS, ...), a failed assertion, "UNREACHABLE
// executed", or an abort after any other message.
func classify(r tool.Result, timeout string) outcome {
	out := r.Output()
	fatal := fatalLines(out)
	switch {
	case r.TimedOut:
		return outcome{oracles.Timeout, RuleTimeout, "llc did not finish within " + timeout}
	case strings.Contains(out, "Assertion `") || strings.Contains(out, "UNREACHABLE executed"):
		return outcome{oracles.Error, RuleCrash, diag.Normalize(firstMatch(out, "Assertion `", "UNREACHABLE executed"))}
	case len(fatal) > 0 && strings.HasPrefix(fatal[0], "LLVM ERROR: Cannot select:") && aborted(r):
		return outcome{oracles.Reject, RuleCannotSelect, diag.Normalize(fatal[0])}
	case len(fatal) > 0 && r.Signal == "" && r.ExitCode != 0:
		return outcome{oracles.Reject, RuleFatal, diag.Normalize(strings.Join(fatal, "\n"))}
	case len(fatal) > 0:
		return outcome{oracles.Error, RuleCrash, diag.Normalize(fatal[0]) + " (" + death(r) + ")"}
	case r.Signal != "":
		return outcome{oracles.Error, RuleCrash, "llc died: " + death(r)}
	}
	return outcome{oracles.Error, RuleUnexplained, fmt.Sprintf("llc exited %d: %s", r.ExitCode, diag.Normalize(diag.FirstLine(out)))}
}

// aborted reports death by SIGABRT, or an abort's exit status through a shell.
func aborted(r tool.Result) bool { return r.Signal == "aborted" || r.ExitCode == 134 }

func death(r tool.Result) string {
	if r.Signal != "" {
		return "signal: " + r.Signal
	}
	return "exit " + strconv.Itoa(r.ExitCode)
}

// fatalLines returns the "LLVM ERROR:" lines.
func fatalLines(out string) []string {
	var ls []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "LLVM ERROR:") {
			ls = append(ls, strings.TrimSpace(l))
		}
	}
	return ls
}

func firstMatch(out string, subs ...string) string {
	for _, l := range strings.Split(out, "\n") {
		for _, s := range subs {
			if strings.Contains(l, s) {
				return strings.TrimSpace(l)
			}
		}
	}
	return ""
}

// culprit is a failure pinned on one kernel of a module.
type culprit struct {
	pos int // position in the module
	outcome
}

var (
	stackPass = regexp.MustCompile(`Running pass '([^']+)' on function '@k_(\d+)'`)
	tracePass = regexp.MustCompile(`(Executing|Freeing) Pass '([^']+)' on Function 'k_(\d+)'`)
	parseErr  = regexp.MustCompile(`<stdin>:(\d+):\d+: error: (.*)`)
	caseValue = regexp.MustCompile(`%c(\d+)\.`)
	userOf    = regexp.MustCompile(`@(llvm\.[\w.]+)`)
	// unknownCall is how llc after 22 refuses a call to an llvm.* name it
	// has no intrinsic for; llc 22 and older compile it as an external
	// function instead (decider.compiled).
	unknownCall = regexp.MustCompile(`call to unknown intrinsic '(llvm\.[\w.]+)' cannot be lowered`)
)

// perFunctionPasses run each function through instruction selection and
// printing before the next function starts (the last function pass manager
// of llc's NVPTX pipeline): a failure there proves every earlier kernel of
// the module compiled to the end.
var perFunctionPasses = []string{"Instruction Selection", "Assembly Printer"}

// attribution pins a failure on a kernel from the pass named in a stack
// dump or, with trace set, in -debug-pass=Executions output. trusted says
// whether the kernels before it are proven to have compiled.
func attribution(m *module, out string, trace bool) (pos int, trusted, ok bool) {
	var pass, id string
	if trace {
		ms := tracePass.FindAllStringSubmatch(out, -1)
		if len(ms) == 0 || ms[len(ms)-1][1] != "Executing" {
			return 0, false, false // the failure came after the last function pass finished
		}
		pass, id = ms[len(ms)-1][2], ms[len(ms)-1][3]
	} else {
		ms := stackPass.FindAllStringSubmatch(out, -1)
		if len(ms) == 0 {
			return 0, false, false
		}
		pass, id = ms[len(ms)-1][1], ms[len(ms)-1][2]
	}
	n, err := strconv.Atoi(id)
	if err != nil {
		return 0, false, false
	}
	pos, ok = m.kernelByID(n)
	for _, p := range perFunctionPasses {
		trusted = trusted || strings.Contains(pass, p)
	}
	return pos, trusted, ok
}

// irCulprits reads llc's refusal of the module itself: calls to names it
// has no intrinsic for (unsupported: no such instruction), parse errors (by
// line) and verifier messages (by the case prefix of the quoted values, or
// by the intrinsic a declaration message names). Parse errors and operand
// type mismatches mean we rendered invalid IR; other verifier messages, such
// as an immarg out of range, are LLVM refusing the case.
func irCulprits(m *module, out string) []culprit {
	var cs []culprit
	seen := map[int]bool{}
	for _, mm := range unknownCall.FindAllStringSubmatch(out, -1) {
		for _, pos := range m.kernelsUsing(mm[1]) {
			if !seen[pos] {
				seen[pos] = true
				cs = append(cs, culprit{pos, outcome{oracles.Unsupported, ruleNoIntrinsic,
					"llc has no intrinsic " + mm[1] + ": call to unknown intrinsic"}})
			}
		}
	}
	for _, mm := range parseErr.FindAllStringSubmatch(out, -1) {
		line, _ := strconv.Atoi(mm[1])
		if pos, ok := m.kernelAtLine(line); ok {
			cs = append(cs, culprit{pos, invalidIR(mm[2])})
		}
	}
	if len(cs) > 0 || !strings.Contains(out, "input module cannot be verified") {
		return cs
	}
	msg := ""
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.Contains(l, "input module cannot be verified"):
		case !strings.ContainsAny(l, "%@") && !strings.HasPrefix(l, " ") && strings.TrimSpace(l) != "":
			msg = strings.TrimSpace(l)
		case msg != "":
			for _, pos := range quotedKernels(m, l) {
				if !seen[pos] {
					seen[pos] = true
					cs = append(cs, culprit{pos, verifierOutcome(msg)})
				}
			}
		}
	}
	return cs
}

// quotedKernels lists the kernels a verifier line refers to.
func quotedKernels(m *module, l string) []int {
	if mm := caseValue.FindStringSubmatch(l); mm != nil {
		id, _ := strconv.Atoi(mm[1])
		if pos, ok := m.kernelByID(id); ok {
			return []int{pos}
		}
	}
	if mm := userOf.FindStringSubmatch(l); mm != nil && !strings.Contains(l, "call ") {
		return m.kernelsUsing(mm[1])
	}
	return nil
}

// invalidIRMessages are verifier messages that mean the rendering, not the
// case, is wrong.
var invalidIRMessages = []string{
	"incorrect argument type", "non-immediate parameter", "not mangled correctly",
	"incompatible signature", "Incorrect number of arguments", "does not match function signature",
}

func verifierOutcome(msg string) outcome {
	for _, s := range invalidIRMessages {
		if strings.Contains(msg, s) {
			return invalidIR(msg)
		}
	}
	return outcome{oracles.Reject, RuleVerifier, diag.Normalize(msg)}
}

func invalidIR(msg string) outcome {
	return outcome{oracles.Error, RuleInvalidIR, "legalfuzz rendered invalid IR (a renderer bug): " + diag.Normalize(msg)}
}

var (
	unrecognized = regexp.MustCompile(`'[^']+' is not a recognized (processor|feature) for this target`)
	externCall   = regexp.MustCompile(`\.extern \.func\s+(?:\([^)]*\)\s*)?(llvm\.[\w.]+)`)
)

// unknownTarget is llc's warning that it does not know the target's
// processor or PTX feature (it goes on without it), or "". It is read from
// stderr alone: scanning the PTX on stdout too cost more than the rest of
// reading a clean run.
func unknownTarget(r tool.Result) string {
	if !bytes.Contains(r.Stderr, []byte("is not a recognized")) {
		return ""
	}
	return unrecognized.FindString(string(r.Stderr))
}

// entryPrefix starts the PTX entry of kernel N: ".entry k_N(".
const entryPrefix = ".entry k_"

// entries lists the kernels whose entry llc wrote into ptx, by id, in one
// pass over it (a clean run of a large module writes thousands of lines).
func entries(ptx string) map[int]bool {
	ids := map[int]bool{}
	for rest := ptx; ; {
		i := strings.Index(rest, entryPrefix)
		if i < 0 {
			return ids
		}
		rest = rest[i+len(entryPrefix):]
		if j := strings.IndexByte(rest, '('); j > 0 {
			if id, err := strconv.Atoi(rest[:j]); err == nil {
				ids[id] = true
			}
		}
	}
}

// unknownIntrinsics lists llvm.* names llc emitted as external functions: it
// does not know them as intrinsics (llc 19 and the tcgen05 family).
func unknownIntrinsics(ptx string) []string {
	if !strings.Contains(ptx, ".extern .func") {
		return nil
	}
	var names []string
	for _, m := range externCall.FindAllStringSubmatch(ptx, -1) {
		names = append(names, m[1])
	}
	return names
}
