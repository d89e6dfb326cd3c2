package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// oldStore is a store main wrote at 875c6d5, before the domains' codecs came
// from their descriptions (package desc): a 3 s structured campaign on
// wgmma, mma, cpasync and ldsm judged by spec/ptxisa, ptxas and
// mlir-nvvm@trunk, 24 buckets. Its .triage.txt and .report.md are what
// main's triage and report printed for it.
const oldStore = "testdata/store-main-875c6d5"

// TestOldStoreReadTriagedReported: every case the old store holds (corpus
// entries and bucket members) decodes with today's domains and re-encodes
// to its stored bytes and ID, and triage and report print what main printed.
func TestOldStoreReadTriagedReported(t *testing.T) {
	db := filepath.Join(t.TempDir(), "old.db")
	gunzipTo(t, oldStore+".db.gz", db)
	checkStoredCases(t, db)
	out, errOut, code := runCLI(t, "", "triage", "--db", db)
	if code != exitOK {
		t.Fatalf("triage: exit %d: %s", code, errOut)
	}
	sameAsFile(t, out, oldStore+".triage.txt")
	dir := t.TempDir()
	if _, errOut, code := runCLI(t, "", "report", "--db", db, "--out", dir, "--format", "md"); code != exitFindings {
		t.Fatalf("report: exit %d, want %d (new buckets): %s", code, exitFindings, errOut)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	sameAsFile(t, string(md), oldStore+".report.md")
}

// checkStoredCases decodes every stored case with its domain.
func checkStoredCases(t *testing.T, db string) {
	t.Helper()
	s, err := store.OpenStoreReadOnly(db, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	members, err := s.Members()
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 0, len(members))
	for id := range members {
		ids = append(ids, id)
	}
	recs, err := s.Cases(ids)
	if err != nil {
		t.Fatal(err)
	}
	type stored struct {
		id, dom, src string
		data         []byte
	}
	var all []stored
	for _, r := range recs {
		all = append(all, stored{r.ID, r.Domain, "member", r.Data})
	}
	camps, err := s.Campaigns()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range camps {
		corpus, err := s.Corpus(c.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range corpus {
			all = append(all, stored{e.Case, e.Domain, "corpus", e.Data})
		}
	}
	perDomain := map[string]int{}
	for _, c := range all {
		d, ok := fuzz.Lookup(c.dom)
		if !ok {
			t.Fatalf("%s case %s: unknown domain %q", c.src, c.id, c.dom)
		}
		v, err := d.Decode(c.data)
		if err != nil {
			t.Fatalf("%s case %s: %v", c.src, c.id, err)
		}
		if got := v.Encode(); !bytes.Equal(got, c.data) {
			t.Fatalf("%s case %s (%s): re-encodes to %x, stored %x", c.src, c.id, c.dom, got, c.data)
		}
		if got := domain.NewCase(c.dom, v).ID; got != c.id {
			t.Fatalf("%s case %s (%s): ID %s today", c.src, c.id, c.dom, got)
		}
		perDomain[c.dom]++
	}
	for _, name := range []string{"wgmma", "mma", "cpasync", "ldsm"} {
		if perDomain[name] == 0 {
			t.Errorf("the old store holds no %s case: %v", name, perDomain)
		}
	}
	t.Logf("cases checked by domain: %v", perDomain)
}

// sameAsFile compares got with the file's text.
func sameAsFile(t *testing.T, got, path string) {
	t.Helper()
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("output differs from %s (main's):\n got %.2000s\nwant %.2000s", path, got, want)
	}
}

// gunzipTo writes the gunzipped src to dst.
func gunzipTo(t *testing.T, src, dst string) {
	t.Helper()
	gz, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err == nil {
		var raw []byte
		if raw, err = io.ReadAll(zr); err == nil {
			err = os.WriteFile(dst, raw, 0o644)
		}
	}
	if err != nil {
		t.Fatalf("gunzip %s: %v", src, err)
	}
}
