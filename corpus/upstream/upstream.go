// Package upstream reads seeds from a user's own tests: the nvgpu and nvvm
// ops of an llvm-project checkout's MLIR tests and the NVPTX intrinsic calls
// of its CodeGen tests, as values of the domains the ops and calls spell.
// Upstream tests hold the forms a compiler's authors thought of; a campaign
// that starts from them judges those forms, and their neighbours, first.
// Every form that names a domain is either read or counted with the reason
// it was not, so a report says what the import missed.
package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/legalfuzz/legalfuzz/corpus"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// sources are the test folders of an llvm-project checkout the import
// reads, each with the files it takes there; a folder the checkout lacks
// is skipped.
var sources = []source{
	{Dir: "mlir/test/Dialect/NVGPU", Match: "*.mlir", Recursive: true},
	{Dir: "mlir/test/Dialect/LLVMIR", Match: "nvvm*.mlir"},
	{Dir: "mlir/test/Conversion/NVGPUToNVVM", Match: "*.mlir", Recursive: true},
	{Dir: "mlir/test/Target/LLVMIR", Match: "nvvm*", Recursive: true},
	{Dir: "llvm/test/CodeGen/NVPTX", Match: "*.ll"},
}

// source is one test folder and the files read there.
type source struct {
	Dir string
	// Match is the file name pattern (filepath.Match); with Recursive it
	// selects the entries of Dir (a file or a whole folder) to read.
	Match     string
	Recursive bool
}

// NoDomain is the domain under which Unread counts the forms of no domain.
const NoDomain = "(none)"

// Result is what an import read: the unique cases (Paths name FILE:LINE of
// each case's first form), how many forms of each domain it read, and the
// forms it did not read by domain and reason.
type Result struct {
	corpus.Loaded
	// Files is the number of test files read.
	Files int
	// Read counts the forms read per domain (duplicates included).
	Read map[string]int
	// Unread counts the forms not read, per domain and reason; forms of no
	// domain are under NoDomain, with the op or intrinsic family as the
	// reason.
	Unread map[string]map[string]int
}

// form is one op or intrinsic call of a test file.
type form struct {
	path string
	line int
	text string
	// target and ptx are the file's RUN line's -mcpu and +ptxNN, "" when
	// it names none.
	target, ptx string
}

// reading is what a reader made of a form: a domain's JSON fields, or the
// reason it could not. A form of no domain has domain NoDomain.
type reading struct {
	domain string
	fields map[string]any
	reason string
	// check is the renderer's word on the value read, "" when it spells
	// the value with the form itself (nil: no renderer to ask).
	check func(domain.Case) string
}

// unread is a reading of a form of domain d that could not be read.
func unread(d, format string, args ...any) reading {
	return reading{domain: d, reason: fmt.Sprintf(format, args...)}
}

// Import reads every test file of the checkout at root.
func Import(root string) Result {
	r := Result{Read: map[string]int{}, Unread: map[string]map[string]int{}}
	seen := map[string]bool{}
	for _, src := range sources {
		for _, path := range src.files(root, &r.Problems) {
			r.readFile(path, seen)
		}
	}
	return r
}

// files lists a source's files under root in lexical order.
func (s source) files(root string, problems *[]error) []string {
	dir := filepath.Join(root, s.Dir)
	var out []string
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		switch {
		case err != nil && path == dir && errors.Is(err, fs.ErrNotExist):
			return filepath.SkipDir
		case err != nil:
			*problems = append(*problems, err)
			return nil
		case path == dir:
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		top := strings.Split(filepath.ToSlash(rel), "/")[0]
		ok, _ := filepath.Match(s.Match, top)
		switch {
		case e.IsDir() && (!s.Recursive || !ok):
			return filepath.SkipDir
		case !e.IsDir() && ok && (s.Recursive || rel == top) && testFile(path):
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		*problems = append(*problems, fmt.Errorf("%s: %w", dir, err))
	}
	return out
}

// testFile reports whether a file is an MLIR or LLVM IR test.
func testFile(path string) bool {
	ext := filepath.Ext(path)
	return ext == ".mlir" || ext == ".ll"
}

// readFile reads one test file's forms into r. A file that cannot be read,
// or is not text, is one problem; the import goes on.
func (r *Result) readFile(path string, seen map[string]bool) {
	raw, err := corpus.ReadFile(path)
	if err == nil && bytes.IndexByte(raw, 0) >= 0 {
		err = fmt.Errorf("%s: not a test file: it holds NUL bytes", path)
	}
	if err != nil {
		r.Problems = append(r.Problems, err)
		return
	}
	r.Files++
	read := readMLIR
	if filepath.Ext(path) == ".ll" {
		read = readLLVM
	}
	for _, f := range forms(path, string(raw)) {
		r.add(f, read(f), seen)
	}
}

// add counts one form's reading and keeps its case when it is new.
func (r *Result) add(f form, rd reading, seen map[string]bool) {
	if rd.reason == "" {
		c, reason := build(f, rd)
		if reason != "" {
			rd.reason = reason
		} else {
			r.Read[rd.domain]++
			if seen[c.ID] {
				r.Duplicates++
				return
			}
			seen[c.ID] = true
			r.Cases = append(r.Cases, c)
			r.Paths = append(r.Paths, fmt.Sprintf("%s:%d", f.path, f.line))
			return
		}
	}
	if r.Unread[rd.domain] == nil {
		r.Unread[rd.domain] = map[string]int{}
	}
	r.Unread[rd.domain][rd.reason]++
}

// build makes a reading's case with the domain's strict JSON form, at the
// file's target when the domain knows it (else at the domain's default),
// and asks the renderer whether it spells the case with the form read.
func build(f form, rd reading) (domain.Case, string) {
	d, ok := fuzz.Lookup(rd.domain)
	if !ok {
		return domain.Case{}, "harness: unknown domain " + rd.domain
	}
	v, err := parse(d, rd.fields, f.target, f.ptx)
	if err != nil && f.target != "" {
		v, err = parse(d, rd.fields, "", "")
	}
	if err != nil {
		return domain.Case{}, "not-in-domain: " + fieldOf(err)
	}
	c := domain.NewCase(d.Name, v)
	if rd.check != nil {
		if why := rd.check(c); why != "" {
			return domain.Case{}, why
		}
	}
	return c, ""
}

// parse builds a value of d from JSON fields and a target.
func parse(d domain.Domain, fields map[string]any, target, ptx string) (domain.Value, error) {
	m := make(map[string]any, len(fields)+2)
	for k, v := range fields {
		m[k] = v
	}
	if target != "" {
		m["target"] = target
		if ptx != "" {
			m["ptx"] = ptx
		}
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return d.ParseJSON(raw)
}

// fieldOf names the field a ParseJSON error is about (`field "a_type":
// unknown value "e3m2"` gives `a_type=e3m2`), else the error itself.
func fieldOf(err error) string {
	msg := err.Error()
	_, rest, ok := strings.Cut(msg, `field "`)
	if !ok {
		return msg
	}
	name, rest, _ := strings.Cut(rest, `"`)
	if _, val, ok := strings.Cut(rest, `value "`); ok {
		v, _, _ := strings.Cut(val, `"`)
		return name + "=" + v
	}
	return name
}

// Sorted lists the names of counts, most first, then by name.
func Sorted(counts map[string]int) []string {
	names := make([]string, 0, len(counts))
	for n := range counts {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if counts[names[i]] != counts[names[j]] {
			return counts[names[i]] > counts[names[j]]
		}
		return names[i] < names[j]
	})
	return names
}
