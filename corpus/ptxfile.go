package corpus

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
	"github.com/legalfuzz/legalfuzz/oracles/ptxas"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// PTXRunScript is the script the ptx format writes beside its files: it runs
// ptxas ($PTXAS, default ptxas on PATH) on each file and checks the outcome
// the file's header records.
const PTXRunScript = "run.sh"

// PTXExpectation is the outcome a .ptx file's test expects of ptxas, and
// where it comes from: the correct answer, not what ptxas does today.
type PTXExpectation struct {
	// Kind is accept or reject.
	Kind oracles.Kind
	// From says who decided: "spec/ptxisa rules-... (rule R, source S)",
	// or, where spec/ptxisa does not decide, the recorded ptxas verdict.
	From string
	// XFail, when set, names the ptxas versions that still get it wrong
	// (an open bug): the test is an expected failure there, and passing
	// is an unexpected pass, how a user learns an upgrade fixed it.
	XFail string
}

// ptxExpectation is spec/ptxisa's answer when it decides the case, with
// the recorded ptxas verdicts that differ from it as expected failures;
// where spec/ptxisa does not decide, the recorded ptxas verdict (a change
// detector, and the header says so).
func ptxExpectation(e Entry, ref oracles.Verdict) PTXExpectation {
	if ref.Kind == oracles.Accept || ref.Kind == oracles.Reject {
		exp := PTXExpectation{Kind: ref.Kind, From: fmt.Sprintf("spec/ptxisa %s (%s)", ref.Version, describe(ref))}
		var xfail []string
		for _, name := range []string{ptxas.PTXAS124.Name, ptxas.PTXAS13.Name} {
			if v, ok := e.verdict(name); ok && (v.Kind == oracles.Accept || v.Kind == oracles.Reject) && v.Kind != ref.Kind {
				xfail = append(xfail, fmt.Sprintf("%s %s", name, v.Version))
			}
		}
		if len(xfail) > 0 {
			exp.XFail = strings.Join(xfail, ", ")
			for _, b := range e.Buckets {
				exp.XFail += " (bucket " + b.Key + ")"
			}
		}
		return exp
	}
	for _, name := range []string{ptxas.PTXAS124.Name, ptxas.PTXAS13.Name} {
		v, ok := e.verdict(name)
		if ok && (v.Kind == oracles.Accept || v.Kind == oracles.Reject) {
			return PTXExpectation{Kind: v.Kind, From: fmt.Sprintf("%s %s: the recorded verdict, a change detector (spec/ptxisa does not decide: %s)", name, v.Version, describe(ref))}
		}
	}
	return PTXExpectation{Kind: oracles.Reject, From: "nothing decides: spec/ptxisa " + describe(ref) + ", no ptxas verdict recorded"}
}

// ptxCommand is the ptxas command line for a file: the ptxas oracle's own
// flags, with the program left to the caller.
func ptxCommand(e ptx.Entry, file string) []string {
	return ptxas.New(ptxas.PTXAS124, tool.Tool{}).CommandArgs(e.Target.Arch, file)
}

// writePTXFormat writes one .ptx per entry and the run script.
func writePTXFormat(ctx context.Context, w *Written, es []Entry) error {
	if err := os.MkdirAll(w.Dir, 0o755); err != nil {
		return err
	}
	var checks []string
	for _, e := range es {
		if !ptx.Renders(e.Case.Domain) {
			w.Skipped = append(w.Skipped, Skip{e.Name, fmt.Sprintf("no PTX renderer for domain %s", e.Case.Domain)})
			continue
		}
		pe, err := ptx.Render(e.Case)
		if _, ok := oracles.AsNoSpelling(err); ok {
			w.Skipped = append(w.Skipped, Skip{e.Name, err.Error()})
			continue
		}
		if err != nil {
			return err
		}
		ref, err := reference(ctx, e.Case)
		if err != nil {
			return err
		}
		text, _, err := ptx.Module([]ptx.Entry{pe})
		if err != nil {
			return err
		}
		name := e.Name + ".ptx"
		exp := ptxExpectation(e, ref)
		args := ptxCommand(pe, name)
		file := ptxHeader(e, pe, exp, ref, args) + text
		path := filepath.Join(w.Dir, name)
		if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
			return err
		}
		w.Files = append(w.Files, path)
		w.Cases++
		xfail := "-"
		if exp.XFail != "" {
			xfail = "xfail"
		}
		checks = append(checks, fmt.Sprintf("check %s %s %s %s", tool.ShellQuote(name), exp.Kind, xfail, shellJoin(args)))
	}
	if len(checks) == 0 {
		return nil
	}
	script := filepath.Join(w.Dir, PTXRunScript)
	if err := os.WriteFile(script, []byte(runScript(checks)), 0o755); err != nil {
		return err
	}
	w.Files = append(w.Files, script)
	return nil
}

// ptxHeader is the comment block a .ptx file starts with.
func ptxHeader(e Entry, pe ptx.Entry, exp PTXExpectation, ref oracles.Verdict, args []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// legalfuzz regression test for ptxas: expect %s\n", exp.Kind)
	fmt.Fprintf(&b, "// expect: %s\n", exp.Kind)
	fmt.Fprintf(&b, "// expected from: %s\n", exp.From)
	if exp.XFail != "" {
		fmt.Fprintf(&b, "// xfail: an open bug of %s; a pass here means this ptxas fixed it\n", exp.XFail)
	}
	fmt.Fprintf(&b, "// target: %s (PTX ISA %s)\n", pe.Target.Arch, pe.Target.PTX)
	fmt.Fprintf(&b, "// case: %s (domain %s)\n", e.Case.ID, e.Case.Domain)
	for _, bk := range e.Buckets {
		fmt.Fprintf(&b, "// bucket: %s %s\n", bk.Key, oneLine(bk.Title))
	}
	fmt.Fprintf(&b, "// spec/ptxisa: %s\n", describe(ref))
	for _, name := range []string{ptxas.PTXAS124.Name, ptxas.PTXAS13.Name} {
		if v, ok := e.verdict(name); ok {
			fmt.Fprintf(&b, "// recorded %s %s: %s\n", name, v.Version, describe(v))
		}
	}
	fmt.Fprintf(&b, "// run: ptxas %s\n", strings.Join(args, " "))
	return b.String()
}

// runScript is the ptx format's checker: one check line per file.
func runScript(checks []string) string {
	return `#!/bin/sh
# Generated by legalfuzz corpus export. Runs ptxas on each .ptx file here and
# checks the correct outcome its header states (expect: accept or reject,
# from spec/ptxisa). A file marked xfail is an open ptxas bug: getting it
# wrong is an expected failure (XFAIL), getting it right an unexpected pass
# (XPASS: the bug is fixed in this ptxas; drop the xfail line).
#   PTXAS=/path/to/ptxas sh run.sh
# A file for a target or PTX ISA version this ptxas does not know is skipped.
# Exit status: 0 when every file passed or failed as expected, 1 on a FAIL
# or an XPASS, 2 when ptxas cannot be found.
PTXAS=${PTXAS:-ptxas}
# A relative path in PTXAS is the caller's: made absolute before the cd.
case $PTXAS in
/*) ;;
*/*) PTXAS=$(pwd)/$PTXAS ;;
esac
cd "$(dirname "$0")" || exit 2
if ! command -v "$PTXAS" >/dev/null 2>&1; then
	echo "run.sh: $PTXAS not found; set PTXAS to ptxas's path" >&2
	exit 2
fi
pass=0 fail=0 skip=0 xfail=0 xpass=0
check() {
	file=$1 want=$2 xf=$3
	shift 3
	out=$("$PTXAS" "$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		got=accept
	elif printf '%s\n' "$out" | grep -q -e "is not defined for option 'gpu-name'" -e "Unsupported .version"; then
		echo "SKIP $file: this ptxas does not know its target or PTX version"
		skip=$((skip + 1))
		return
	elif { [ $rc -le 128 ] || [ $rc -eq 255 ]; } && printf '%s\n' "$out" | grep -q -e "error" -e "fatal"; then
		got=reject
	else
		got="crash (exit status $rc)"
	fi
	if [ "$got" = "$want" ] && [ "$xf" = xfail ]; then
		echo "XPASS $file: $got, though marked as an open bug"
		xpass=$((xpass + 1))
	elif [ "$got" = "$want" ]; then
		echo "PASS $file: $got"
		pass=$((pass + 1))
	elif [ "$xf" = xfail ]; then
		echo "XFAIL $file: want $want, got $got (an open bug)"
		xfail=$((xfail + 1))
	else
		echo "FAIL $file: want $want, got $got"
		printf '%s\n' "$out" | sed 's/^/    /'
		fail=$((fail + 1))
	fi
}
` + strings.Join(checks, "\n") + `
echo "$pass passed, $xfail expected failures, $xpass unexpected passes, $fail failed, $skip skipped"
[ $fail -eq 0 ] && [ $xpass -eq 0 ]
`
}

// shellJoin quotes and joins a command line for sh.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = tool.ShellQuote(a)
	}
	return strings.Join(q, " ")
}
