package layout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/legalfuzz/legalfuzz/"

// MaxLines is the most lines a package's non-test Go files may hold
// together: past it, a package does more than one job.
const MaxLines = 4000

// kinds classifies every package directly under oracles/ (see the package
// comment), and a subpackage that is not of its parent's kind (its own
// subpackages are then of its kind); a new package fails the test until it
// is classified here.
var kinds = map[string]string{
	"algo": family, "amdgpu": family, "cuda": family, "exec": family,
	"llvm": family, "mlir": family, "nvvmop": family, "ptxas": family,
	"spec": family,

	"": shared, "batch": shared, "diag": shared, "emitted": shared,
	"intrinsic": shared, "ptx": shared, "replay": shared, "rules": shared, "surface": shared,
	"spelltest": shared, "testoracle": shared, "tool": shared,
	"toolchain": shared, "valuecheck": shared,

	"registry": assembly, "bench": assembly,
}

const (
	family   = "family"
	shared   = "shared piece"
	assembly = "assembly"
)

// allowed are the violations of today, each to be fixed and then removed
// from this list: the test also fails on an entry that no longer occurs.
var allowed = []string{}

// pkg is what the test reads of one package from go list.
type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	CgoFiles   []string
	Imports    []string
}

// TestLayout fails on every violation of the layout rules not in allowed,
// and on every entry of allowed that is no longer a violation.
func TestLayout(t *testing.T) {
	pkgs := list(t)
	got, err := violations(pkgs)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range got {
		if !slices.Contains(allowed, v) {
			t.Errorf("layout: %s", v)
		}
	}
	for _, a := range allowed {
		if !slices.Contains(got, a) {
			t.Errorf("layout: %q is fixed: remove it from allowed", a)
		}
	}
}

// list runs go list on the whole module.
func list(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Dir,GoFiles,CgoFiles,Imports", "./...")
	cmd.Dir = filepath.Join("..", "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	return pkgs
}

// violations lists, sorted, each broken rule as one line.
func violations(pkgs []pkg) ([]string, error) {
	var out []string
	for _, p := range pkgs {
		rel := strings.TrimPrefix(p.ImportPath, module)
		k, fam, err := kindOf(rel)
		if err != nil {
			return nil, err
		}
		for _, imp := range p.Imports {
			irel, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			ik, ifam, err := kindOf(irel)
			if err != nil {
				return nil, err
			}
			switch {
			case k == family && ik == family && fam != ifam:
				out = append(out, fmt.Sprintf("%s imports %s (family -> family)", rel, irel))
			case k == shared && ik == family:
				out = append(out, fmt.Sprintf("%s imports %s (shared piece -> family)", rel, irel))
			case under(rel, "coordinator") && under(irel, "reports"):
				out = append(out, fmt.Sprintf("%s imports %s (coordinator -> reports)", rel, irel))
			}
		}
		n, err := lines(p)
		if err != nil {
			return nil, err
		}
		if n > MaxLines {
			out = append(out, fmt.Sprintf("%s has more than %d lines of non-test Go", rel, MaxLines))
		}
	}
	slices.Sort(out)
	return out, nil
}

// kindOf classifies a package path relative to the module: its kind and,
// for a family, the family's name; "" for a package outside oracles/.
func kindOf(rel string) (kind, name string, err error) {
	if rel == "oracles" {
		return shared, "", nil
	}
	rest, ok := strings.CutPrefix(rel, "oracles/")
	if !ok {
		return "", "", nil
	}
	for p := rest; strings.Contains(p, "/"); p = p[:strings.LastIndex(p, "/")] {
		if kind, ok := kinds[p]; ok {
			return kind, p, nil
		}
	}
	name, _, _ = strings.Cut(rest, "/")
	kind, ok = kinds[name]
	if !ok {
		return "", "", fmt.Errorf("oracles/%s is neither a family, a shared piece nor an assembly: classify it in internal/layout's kinds", name)
	}
	return kind, name, nil
}

// under says whether rel is dir or below it.
func under(rel, dir string) bool {
	return rel == dir || strings.HasPrefix(rel, dir+"/")
}

// lines counts the lines of a package's non-test Go files.
func lines(p pkg) (int, error) {
	n := 0
	for _, f := range slices.Concat(p.GoFiles, p.CgoFiles) {
		b, err := os.ReadFile(filepath.Join(p.Dir, f))
		if err != nil {
			return 0, fmt.Errorf("counting %s: %w", p.ImportPath, err)
		}
		n += bytes.Count(b, []byte("\n"))
	}
	return n, nil
}
