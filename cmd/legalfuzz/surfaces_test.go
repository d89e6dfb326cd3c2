package main

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/oracles/surface"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// TestDomainsListsSurfaces: `legalfuzz domains` shows, for each
// installation and dialect, its ops, those instantiable and why not the
// rest, or that it has no TableGen sources.
func TestDomainsListsSurfaces(t *testing.T) {
	found, _, err := toolchain.Discover(context.Background(), toolchain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) == 0 {
		t.Skip("no LLVM installation (make oracles)")
	}
	out, errOut, code := runCLI(t, "", "domains")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	_, listing, ok := strings.Cut(out, "OP SURFACES")
	if !ok {
		t.Fatalf("no OP SURFACES section in:\n%s", out)
	}
	for _, in := range found {
		_, err := surface.Read(context.Background(), in, surface.Sources[0])
		row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(in.Label) + `\s+nvvm\s+\d+\s+\d+\s+\d+\s+\d+ \(\d+%\)$`)
		switch {
		case errors.Is(err, surface.ErrNoSources):
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(in.Label) + `\s+nvvm\s+-.*no TableGen sources`).MatchString(listing) {
				t.Errorf("LLVM %s has no sources; the listing does not say so:\n%s", in.Label, listing)
			}
		case err != nil:
			t.Fatal(err)
		case !row.MatchString(listing):
			t.Errorf("no nvvm row for LLVM %s in:\n%s", in.Label, listing)
		}
	}
}
