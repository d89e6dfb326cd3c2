package repro

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/replay"
)

// Reduction is what Reduce did to a bundle's tool input.
type Reduction struct {
	// File is the reduced input, in the bundle; Original keeps the field-
	// minimized rendering it started from.
	File, Original string
	// Lines and Bytes before and after.
	LinesBefore, LinesAfter int
	BytesBefore, BytesAfter int
	// Runs counts repro.sh runs (the cache spares repeated candidates).
	Runs int
	// Checked says how each candidate was checked valid for the stage
	// before the one that fails ("" when no tool here could).
	Checked string
}

// ErrNothingToReduce says the bundle has no tool input text to reduce:
// its deviating oracle runs in process.
var ErrNothingToReduce = errors.New("no tool input to reduce")

// Reduce shrinks the tool input of a bundle written by Write (case.mlir,
// case.ptx, case.ll) while its repro.sh still exits 1 and the input stays
// valid for the stage before the one that fails (the family's
// replay.Validator: the tool's own verifier or reader judges each
// candidate). The interestingness test is the bug's own check, the tool's
// words or its outcome. The field minimizer shrank the case's values;
// this shrinks the text a maintainer reads: lines deleted, then what the
// family's replay.Editor does (MLIR: values built from parts made
// arguments of their function, regions unwrapped). When the
// bug is an accept, lines naming the operation under test stay, so that
// an empty module does not "reproduce" an accept.
func Reduce(ctx context.Context, bd Bundle) (Reduction, error) {
	name := inputFile(bd)
	if name == "" {
		return Reduction{}, ErrNothingToReduce
	}
	path := filepath.Join(bd.Dir, name)
	data, err := os.ReadFile(path)
	if err != nil {
		return Reduction{}, err
	}
	ext := filepath.Ext(name)
	r := Reduction{File: path, Original: strings.TrimSuffix(path, ext) + ".orig" + ext}
	if err := os.WriteFile(r.Original, data, 0o644); err != nil {
		return r, err
	}
	lines := strings.SplitAfter(string(data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	family := reproducerOf(bd.Observed.Oracle)
	editor, _ := family.(replay.Editor)
	keep, v := reduceChecks(ctx, bd, family, name, lines)
	r.Checked = v.What
	test := func(cand []string) bool {
		if v.Valid != nil && !v.Valid(cand) {
			return false
		}
		r.Runs++
		if os.WriteFile(path, []byte(strings.Join(cand, "")), 0o644) != nil {
			return false
		}
		cmd := exec.CommandContext(ctx, "./"+ScriptFile)
		cmd.Dir = bd.Dir
		err := cmd.Run()
		var ee *exec.ExitError
		return errors.As(err, &ee) && ee.ExitCode() == ExitReproduces
	}
	if !test(lines) {
		return r, errors.Join(os.WriteFile(path, data, 0o644), errors.New("repro.sh does not reproduce the bug on the field-minimized input; nothing reduced"))
	}
	out := ReduceLines(lines, keep, test)
	if editor != nil {
		out = editor.Edit(name, out, keep, test, func(l []string) []string { return ReduceLines(l, keep, test) })
	}
	text := strings.Join(out, "")
	r.LinesBefore, r.LinesAfter = len(lines), len(out)
	r.BytesBefore, r.BytesAfter = len(data), len(text)
	return r, os.WriteFile(path, []byte(text), 0o644)
}

// reduceChecks are the lines a reduction keeps and how the family checks
// a candidate valid. An accept keeps the lines naming the instruction (an
// empty module does not "reproduce" an accept); dropped work or a wrong
// value keeps the ops (deleting the op drops all of its work); the
// family's validity check may keep the op under test.
func reduceChecks(ctx context.Context, bd Bundle, family oracles.Reproducer, name string, lines []string) (func(string) bool, replay.Validity) {
	keep := func(string) bool { return false }
	if instr := replay.Instruction(bd.Case.Domain); replay.Outcome(bd.Observed) == "accept" && instr != "" {
		keep = func(l string) bool { return strings.Contains(l, strings.TrimSuffix(instr, ".")) }
	}
	if fault := oracles.ParseStage(bd.Observed.Rule).Fault; fault == oracles.Dropped || fault == oracles.WrongValue {
		keep = func(string) bool { return false }
		if e, ok := family.(replay.Editor); ok {
			keep = e.Ops
		}
	}
	var v replay.Validity
	if val, ok := family.(replay.Validator); ok {
		v = val.Validity(ctx, replayCase(bd), name, lines)
	}
	if v.Keep != nil {
		kept := keep
		keep = func(l string) bool { return kept(l) || v.Keep(l) }
	}
	return keep, v
}

// inputFile is the bundle's tool input that repro.sh runs the deviating
// tool on, or "".
func inputFile(bd Bundle) string {
	for _, f := range []string{MLIRFile, PTXFile, bd.reproductions[bd.Observed.Oracle].Input} {
		if f != "" && fileIn(bd.Dir, f) && scriptReads(bd, f) {
			return f
		}
	}
	return ""
}

// scriptReads reports whether repro.sh runs a tool on file.
func scriptReads(bd Bundle, file string) bool {
	text, err := os.ReadFile(filepath.Join(bd.Dir, ScriptFile))
	return err == nil && strings.Contains(string(text), " "+file) && bd.Observed.Oracle != oracles.SpecPTXISA
}

// ReduceLines is a line-level delta debugger: a pure function of the
// lines, the lines never to delete, and the test, which must hold for the
// result. It removes chunks of lines, halves first and then ever smaller
// down to single lines, keeping every deletion after which test still
// holds, until a pass over single lines deletes nothing. Test results are
// cached by the candidate's hash.
func ReduceLines(lines []string, keep func(string) bool, test func([]string) bool) []string {
	seen := map[[32]byte]bool{}
	try := func(cand []string) bool {
		h := sha256.Sum256([]byte(strings.Join(cand, "\x00")))
		if v, ok := seen[h]; ok {
			return v
		}
		v := test(cand)
		seen[h] = v
		return v
	}
	cur := lines
	for size := max(len(cur)/2, 1); ; {
		deleted := false
		for start := 0; start < len(cur); {
			end := min(start+size, len(cur))
			if anyKept(cur[start:end], keep) {
				start = end
				continue
			}
			cand := append(append([]string{}, cur[:start]...), cur[end:]...)
			if len(cand) > 0 && try(cand) {
				cur, deleted = cand, true
				continue
			}
			start = end
		}
		if size == 1 && !deleted {
			return cur
		}
		if !deleted || size > 1 {
			size = max(size/2, 1)
		}
	}
}

// anyKept reports whether a chunk holds a line that must stay.
func anyKept(chunk []string, keep func(string) bool) bool {
	for _, l := range chunk {
		if keep(l) {
			return true
		}
	}
	return false
}
