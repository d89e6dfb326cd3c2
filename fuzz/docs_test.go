package fuzz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// docsPath is the user's page on every domain's JSON form.
const docsPath = "../docs/domains.md"

// TestDomainDocsUpToDate keeps docs/domains.md in step with the domains: it
// is written from each domain's Doc, its ParseJSON doc comment (the
// defaults) and its field table: the described one (package desc) where the
// domain has one, else the JSON fields and values its seeds use. Run with -update
// after changing a domain.
func TestDomainDocsUpToDate(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("# Domains and their JSON forms\n\n" +
		"Written by `go test ./fuzz -run TestDomainDocsUpToDate -update` from each domain's doc, its `ParseJSON` doc\n" +
		"comment and its seed values; do not edit by hand. Every field is optional on input: an absent field takes the\n" +
		"default the domain states; an unknown field or an out-of-range value is an error naming the field.\n" +
		"`legalfuzz check --domain D --json FILE` judges one case; `target` and `ptx` name the architecture and the\n" +
		"PTX ISA version in every domain.\n")
	for _, d := range Domains() {
		parseDoc, err := parseJSONDoc(filepath.Join(d.Name))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n%s\n\n", d.Name, d.Doc, parseDoc)
		if described, ok := desc.Lookup(reflect.TypeOf(d.Seeds()[0])); ok {
			b.WriteString(described.Markdown()) // the fields as the parser knows them
			continue
		}
		b.WriteString(fieldTable(t, d))
	}
	if *update {
		if err := os.WriteFile(docsPath, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile(docsPath)
	if err != nil || !bytes.Equal(old, b.Bytes()) {
		t.Fatalf("%s is out of date (%v); run go test ./fuzz -run TestDomainDocsUpToDate -update", docsPath, err)
	}
}

// parseJSONDoc returns the doc comment of the package's ParseJSON, folded
// into one paragraph.
func parseJSONDoc(dir string) (string, error) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	if err != nil {
		return "", err
	}
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, decl := range f.Decls {
				if fn, ok := decl.(*ast.FuncDecl); ok && fn.Name.Name == "ParseJSON" && fn.Recv == nil && fn.Doc != nil {
					return strings.Join(strings.Fields(fn.Doc.Text()), " "), nil
				}
			}
		}
	}
	return "", fmt.Errorf("%s: no documented ParseJSON", dir)
}

// fieldTable lists the JSON fields of the domain's seeds with the values
// they take there, as examples of what each field accepts.
func fieldTable(t *testing.T, d domain.Domain) string {
	t.Helper()
	values := map[string][]string{}
	for _, v := range d.Seeds() {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		for k, raw := range m {
			if s := string(raw); !slices.Contains(values[k], s) {
				values[k] = append(values[k], s)
			}
		}
	}
	keys := slices.Sorted(maps.Keys(values))
	var b strings.Builder
	b.WriteString("| field | values in the seeds |\n|---|---|\n")
	for _, k := range keys {
		vs := values[k]
		slices.Sort(vs)
		more := ""
		if len(vs) > 8 {
			vs, more = vs[:8], fmt.Sprintf(" (and %d more)", len(values[k])-8)
		}
		for i, v := range vs {
			if len(v) > 60 {
				v = v[:57] + "..."
			}
			vs[i] = "`" + strings.ReplaceAll(v, "|", `\|`) + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s%s |\n", k, strings.Join(vs, ", "), more)
	}
	return b.String()
}
