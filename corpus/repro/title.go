package repro

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/mlir"
)

// component is the part of an upstream project that owns what a bucket's
// tool did wrong, as the project's tracker names it.
type component struct {
	// tag starts the title: "[MLIR][NVGPU]", "[NVPTX]".
	tag string
	// name says it in words: "MLIR, NVGPU dialect".
	name string
	// tracker is whose tracker the issue goes to, "LLVM" or "NVIDIA";
	// empty for what is not filed upstream (legalfuzz's own rule sets and
	// the seed algorithms under test, a user's verifier).
	tracker string
}

// The components of MLIR a bucket is filed under.
var (
	mlirNVGPU  = component{"[MLIR][NVGPU]", "MLIR, NVGPU dialect", "LLVM"}
	mlirNVVM   = component{"[MLIR][NVVM]", "MLIR, NVVM dialect", "LLVM"}
	mlirLLVMIR = component{"[MLIR][LLVMIR]", "MLIR, LLVM IR translation", "LLVM"}
	mlirOther  = component{"[MLIR]", "MLIR", "LLVM"}
	ours       = component{"[legalfuzz]", "legalfuzz", ""}
)

// families are the components of the tool families other than MLIR's:
// NVIDIA's tools are NVIDIA's to fix, not LLVM's.
var families = map[string]component{
	"llc":      {"[NVPTX]", "NVPTX backend", "LLVM"},
	"llvm-mc":  {"[AMDGPU][MC]", "AMDGPU assembler (MC)", "LLVM"},
	"ptxas":    {"NVIDIA (ptxas)", "ptxas", "NVIDIA"},
	"nvdisasm": {"NVIDIA (nvdisasm)", "nvdisasm and cuobjdump", "NVIDIA"},
	"cuda":     {"NVIDIA (CUDA driver)", "the CUDA driver", "NVIDIA"},
	"gpu":      {"NVIDIA (CUDA driver)", "the CUDA driver and the GPU", "NVIDIA"},
}

// isMLIRFamily reports whether a tool family is MLIR's: its verifiers and
// lowering (nvgpu's ops or nvvm's), or its GPU passes.
func isMLIRFamily(family string) bool {
	return family == "mlir" || family == "mlir-nvvm" || family == "mlir-passes"
}

// componentOf is what a bucket is filed under: for MLIR, the stage that
// failed when it names a dialect's conversion or the translation to LLVM
// IR, else the dialect of the op the case is about; for the other tools,
// their family's.
func componentOf(family, stage, op string, class policy.Class) component {
	if class == policy.SeedEvidence {
		return ours
	}
	if !isMLIRFamily(family) {
		if c, ok := families[family]; ok {
			return c
		}
		return ours
	}
	st := oracles.ParseStage(stage)
	switch {
	case st.Name == "pass:convert-nvgpu-to-nvvm":
		return mlirNVGPU
	case st.Name == "pass:convert-nvvm-to-llvm":
		return mlirNVVM
	case st.Name == "translate" && st.Fault != oracles.Refused:
		// mlir-translate refusing what the lowering made is the op's
		// verifier letting it through; anything else is the translation's.
		return mlirLLVMIR
	case strings.HasPrefix(op, "nvgpu."):
		return mlirNVGPU
	case strings.HasPrefix(op, "nvvm."):
		return mlirNVVM
	}
	return mlirOther
}

// subjectOf names what the tool was given in its own terms: the MLIR op,
// the PTX instruction, the LLVM intrinsic, the AMDGPU instruction; ""
// when the bundle holds no input to read it from.
func subjectOf(bd Bundle, family string) string {
	read := func(name string) string {
		text, _ := os.ReadFile(filepath.Join(bd.Dir, name))
		return string(text)
	}
	if isMLIRFamily(family) {
		return mlir.SubjectOp(read(MLIRFile))
	}
	switch family {
	case "ptxas", "nvdisasm", "cuda", "gpu":
		return ptxInstruction(read(PTXFile), instruction[bd.Bucket.Signature.Domain])
	case "llc":
		return intrinsicName.FindString(read(llcFile(bd)))
	case "llvm-mc":
		return asmInstruction(read(AsmFile))
	}
	return ""
}

// intrinsicName is the first NVVM intrinsic an IR file names.
var intrinsicName = regexp.MustCompile(`\bllvm\.nvvm\.[\w.]+`)

// ptxInstruction is the opcode, with its qualifiers, of the first
// instruction of a PTX module that starts with prefix.
func ptxInstruction(ptx, prefix string) string {
	if prefix == "" {
		return ""
	}
	for _, line := range strings.Split(ptx, "\n") {
		fields := strings.Fields(line)
		if len(fields) > 1 && strings.HasPrefix(fields[0], "@") { // a guard predicate
			fields = fields[1:]
		}
		if len(fields) > 0 && strings.Contains(fields[0], prefix) && !strings.HasPrefix(fields[0], ".") {
			return strings.TrimSuffix(fields[0], ";")
		}
	}
	return ""
}

// asmInstruction is the first line of an assembly file that is an
// instruction, not a directive, a label or a comment.
func asmInstruction(asm string) string {
	for _, line := range strings.Split(asm, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, ".") && !strings.HasPrefix(line, "//") &&
			!strings.HasPrefix(line, ";") && !strings.HasSuffix(line, ":") {
			return line
		}
	}
	return ""
}

// toolWord is how a title names a tool that is not MLIR.
func toolWord(family, oracle string) string {
	switch family {
	case "ptxas", "llc", "llvm-mc":
		return family
	case "nvdisasm":
		return "nvdisasm"
	case "cuda", "gpu":
		return "the CUDA driver"
	}
	return oracle
}

// title is the title: the component's tag, then what the tool did
// in the tool's terms (its own words first, the op or instruction it was
// given, the rule it let through otherwise); never legalfuzz's rule IDs
// or the placeholders of a normalized diagnostic.
func title(bd Bundle, tool oracles.Verdict, family, subject string, c component, class policy.Class) string {
	var what string
	switch {
	case class == policy.SeedEvidence || c == ours || class == policy.Disputed:
		what = tool.Oracle + " says " + string(tool.Kind) + " where " + bd.Expected.Oracle + " says " + string(bd.Expected.Kind)
		if m := cleanMessage(tool.Diagnostic); m != "" {
			what += ": " + m
		}
	case isMLIRFamily(family):
		what = mlirWhat(bd, tool, subject, class)
	default:
		what = toolWhat(bd, tool, toolWord(family, tool.Oracle), subject, class)
	}
	return c.tag + " " + what
}

// mlirWhat is an MLIR bucket's title after its tag.
func mlirWhat(bd Bundle, v oracles.Verdict, op string, class policy.Class) string {
	st := oracles.ParseStage(v.Rule)
	m := cleanMessage(v.Diagnostic)
	who := orDefault(op, "the case")
	switch {
	case class == policy.Miscompile && v.Value != "":
		return who + " computes " + v.Value + ", expected " + bd.Expected.Value
	case v.Kind == oracles.Accept:
		return who + " verifies though " + violation(bd)
	case st.Fault == oracles.Refused && class == policy.TooPermissive:
		// The gap is the rule the verifier lacks: one bucket per rule,
		// though the refusing tool may say the same of several. Its words
		// follow in the issue; in the title they would pass GitHub's 256
		// characters.
		return who + " verifies though " + violation(bd) + ", and " + stageTools[st.Name] + " refuses its lowering"
	case st.Fault == oracles.Refused:
		return who + " verifies, but " + stageTools[st.Name] + " refuses its lowering: " + m
	case st.Fault == oracles.PassRefused:
		return who + " verifies, but " + strings.TrimPrefix(st.Name, "pass:") + " refuses it: " + m
	case st.Fault == oracles.Dropped:
		return who + " lowers to PTX with " + m
	case st.Fault == oracles.WrongValue:
		return who + " lowers to wrong PTX: " + m
	}
	if pass, ok := strings.CutPrefix(st.Name, "pass:"); ok {
		who += " in " + pass
	}
	switch {
	case st.Fault == oracles.ExitZero:
		return withSubject(who, m) + ", exits 0"
	case v.Kind == oracles.Error || v.Kind == oracles.Timeout:
		return dropArgs(m)
	}
	return withSubject(who, m)
}

// stageTools are the tools of the mlir oracle's stages after the lowering.
var stageTools = map[string]string{"translate": "mlir-translate", "link": "llvm-link", "llc": "llc", "ptxas": "ptxas"}

// toolWhat is the title after its tag of a bucket of a tool given one
// instruction (ptxas, llc, llvm-mc, the CUDA driver).
func toolWhat(bd Bundle, v oracles.Verdict, tool, subject string, class policy.Class) string {
	m := cleanMessage(v.Diagnostic)
	subject = orDefault(subject, "the case")
	switch {
	case class == policy.Miscompile && v.Value != "":
		return tool + " computes " + v.Value + " for " + subject + ", expected " + bd.Expected.Value
	case oracles.ParseStage(v.Rule).Fault == oracles.WrongValue:
		return tool + " compiles " + subject + " to wrong PTX: " + m
	case v.Kind == oracles.Accept && tool == "llc":
		return "llc compiles " + subject + " though " + violation(bd)
	case v.Kind == oracles.Accept:
		return tool + " accepts " + subject + " though " + violation(bd)
	case v.Kind == oracles.Reject:
		return tool + " rejects " + subject + ": " + m
	case strings.HasPrefix(m, tool):
		return dropArgs(m) + " on " + subject
	}
	return tool + " fails on " + subject + ": " + dropArgs(m)
}

// violation says what rule the bucket is about, with the case's own
// values when the reference decided with it ("...: 2, allowed 0..1"),
// else the rule's message (the bucket's rule is the first one the tool
// can see, not always the one spec/ptxisa names first); never its ID.
func violation(bd Bundle) string {
	ref := bd.Reference
	if d := strings.TrimSpace(ref.Diagnostic); d != "" && ref.Kind == oracles.Reject && ref.Rule == bd.Bucket.Signature.Rule {
		return strings.SplitN(d, "\n", 2)[0]
	}
	if r := ruleOf(bd.Bucket.Signature.Rule); r != nil {
		return r.Message
	}
	return "the documentation forbids it"
}

// quotedOp finds an MLIR op a message names.
var quotedOp = regexp.MustCompile(`(?:^|[^.\w])(?:nvgpu|nvvm)\.\w`)

// withSubject puts who did it before a message that does not name an op.
func withSubject(who, m string) string {
	if quotedOp.MatchString(m) {
		return m
	}
	return who + ": " + m
}

// placeholderFragment is a placeholder of a normalized diagnostic with the
// separator after it ("FILE: ", "FILE:LINE:COL: ").
var placeholderFragment = regexp.MustCompile(`(?:` + placeholder.String() + `)(?::\s*)?`)

// cleanMessage is a diagnostic's message for a title: the tool's words
// with the fragments normalization replaced dropped rather than printed.
func cleanMessage(diagnostic string) string {
	m := placeholderFragment.ReplaceAllString(message(diagnostic), "")
	m = strings.ReplaceAll(m, "''", "")
	m = strings.TrimPrefix(strings.TrimSpace(m), "error: ")
	return strings.TrimSuffix(strings.Join(strings.Fields(m), " "), ".")
}

// dropArgs drops the argument lists of the functions a crash message
// names ("in mlir::NVVM::MmaOp::verify()" is "in
// mlir::NVVM::MmaOp::verify"): the frames section has them in full.
func dropArgs(m string) string {
	var b strings.Builder
	depth := 0
	for i, r := range m {
		switch {
		case r == '(' && depth == 0 && i > 0 && isIdent(m[i-1]):
			depth = 1
		case depth > 0 && r == '(':
			depth++
		case depth > 0 && r == ')':
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isIdent reports whether c may end a C++ function name.
func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '>'
}
