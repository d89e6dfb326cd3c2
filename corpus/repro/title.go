package repro

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/replay"
)

// ours is the component of what is not filed upstream: legalfuzz's own
// rule sets and the seed algorithms under test, a user's verifier.
var ours = oracles.Component{Tag: "[legalfuzz]", Name: "legalfuzz"}

// componentOf is what a bucket is filed under: the family's component,
// for MLIR the one of the stage that failed or of the op the case is
// about (oracles.Filing).
func componentOf(f oracles.Filing, stage, op string, class policy.Class) oracles.Component {
	switch {
	case class == policy.SeedEvidence:
		return ours
	case f.ComponentOf != nil:
		return f.ComponentOf(oracles.ParseStage(stage), op)
	case f.Component.Tag == "":
		return ours
	}
	return f.Component
}

// inputOf is the file the named oracle's tool read in the bundle: as it
// was rendered, else (a bundle read back from its folder) the family's.
func inputOf(bd Bundle, oracle string, f oracles.Filing) string {
	if rep, ok := bd.reproductions[oracle]; ok {
		return rep.Input
	}
	return f.Input
}

// subjectOf names what the tool was given in its own terms: the MLIR op,
// the PTX instruction, the LLVM intrinsic, the AMDGPU instruction; ""
// when the bundle holds no input to read it from.
func subjectOf(bd Bundle, f oracles.Filing) string {
	if f.Subject == nil {
		return ""
	}
	read := func(name string) string {
		if name == "" {
			return ""
		}
		text, _ := os.ReadFile(filepath.Join(bd.Dir, name))
		return string(text)
	}
	sig := bd.Bucket.Signature
	return f.Subject(read, inputOf(bd, sig.Tool, f), replay.Instruction(sig.Domain))
}

// title is the title: the component's tag, then what the tool did
// in the tool's terms (its own words first, the op or instruction it was
// given, the rule it let through otherwise); never legalfuzz's rule IDs
// or the placeholders of a normalized diagnostic.
func title(bd Bundle, tool oracles.Verdict, f oracles.Filing, subject string, c oracles.Component, class policy.Class) string {
	var what string
	switch {
	case class == policy.SeedEvidence || c == ours || class == policy.Disputed:
		what = tool.Oracle + " says " + string(tool.Kind) + " where " + bd.Expected.Oracle + " says " + string(bd.Expected.Kind)
		if m := cleanMessage(tool.Diagnostic); m != "" {
			what += ": " + m
		}
	case f.Verifier:
		what = verifierWhat(bd, tool, f, subject, class)
	default:
		what = toolWhat(bd, tool, f, orDefault(f.Tool, tool.Oracle), subject, class)
	}
	return c.Tag + " " + what
}

// verifierWhat is the title after its tag of a bucket of a verifier
// family (MLIR's): what the op verifies and what its lowering does.
func verifierWhat(bd Bundle, v oracles.Verdict, f oracles.Filing, op string, class policy.Class) string {
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
		return who + " verifies though " + violation(bd) + ", and " + f.StageTools[st.Name] + " refuses its lowering"
	case st.Fault == oracles.Refused:
		return who + " verifies, but " + f.StageTools[st.Name] + " refuses its lowering: " + m
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

// toolWhat is the title after its tag of a bucket of a tool given one
// instruction (ptxas, llc, llvm-mc, the CUDA driver).
func toolWhat(bd Bundle, v oracles.Verdict, f oracles.Filing, tool, subject string, class policy.Class) string {
	m := cleanMessage(v.Diagnostic)
	subject = orDefault(subject, "the case")
	switch {
	case class == policy.Miscompile && v.Value != "":
		return tool + " computes " + v.Value + " for " + subject + ", expected " + bd.Expected.Value
	case oracles.ParseStage(v.Rule).Fault == oracles.WrongValue:
		return tool + " compiles " + subject + " to wrong PTX: " + m
	case v.Kind == oracles.Accept:
		return tool + " " + orDefault(f.Accepts, "accepts") + " " + subject + " though " + violation(bd)
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
var placeholderFragment = regexp.MustCompile(`(?:` + replay.Placeholder.String() + `)(?::\s*)?`)

// cleanMessage is a diagnostic's message for a title: the tool's words
// with the fragments normalization replaced dropped rather than printed.
func cleanMessage(diagnostic string) string {
	m := placeholderFragment.ReplaceAllString(replay.Message(diagnostic), "")
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
