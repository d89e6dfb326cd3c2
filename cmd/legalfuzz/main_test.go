package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs one command line in process and returns stdout, stderr and the
// exit code.
func runCLI(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), code
}

// checkLines runs `check --json` and decodes its verdict lines by oracle.
func checkLines(t *testing.T, domainName, input string) map[string]map[string]any {
	t.Helper()
	out, errOut, code := runCLI(t, input, "check", "--domain", domainName, "--json", "-")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	byOracle := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		for _, key := range []string{"oracle", "verdict", "rule", "diagnostic", "value"} {
			if _, ok := m[key]; !ok {
				t.Fatalf("line %q lacks key %q", line, key)
			}
		}
		byOracle[m["oracle"].(string)] = m
	}
	return byOracle
}

// TestCheckWorkedExamples runs seed 001's worked examples through the CLI.
func TestCheckWorkedExamples(t *testing.T) {
	for _, tc := range []struct {
		input, verdict, diag, value string
	}{
		{`{"raw": 66, "arch_conditional": false, "target": "sm_100"}`, "reject", "INT8 type is supported only on arch-conditional variants.", ""},
		{`{"raw": 66, "arch_conditional": true, "target": "sm_100"}`, "accept", "", "10522"},
		{`{"raw": 226, "arch_conditional": true, "target": "sm_100a"}`, "reject", "Block scale is not supported for f16, tf32, f8f6f4, and i8 types", ""},
	} {
		t.Run(tc.input, func(t *testing.T) {
			seed := checkLines(t, "kindword", tc.input)["spec/seed"]
			if seed == nil {
				t.Fatal("no spec/seed verdict")
			}
			if seed["verdict"] != tc.verdict || seed["diagnostic"] != tc.diag || seed["value"] != tc.value {
				t.Fatalf("spec/seed said %v %q %q, want %s %q %q", seed["verdict"], seed["diagnostic"], seed["value"], tc.verdict, tc.diag, tc.value)
			}
		})
	}
}

func TestCheckBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, domain, input, wantErr string
	}{
		{"unknown field", "kindword", `{"rax": 1}`, `unknown field "rax"`},
		{"out of range", "kindword", `{"raw": 966}`, `field "raw"`},
		{"not JSON", "kindword", `kindword please`, "bad JSON"},
		{"unknown domain", "nosuch", `{}`, `unknown domain "nosuch"`},
		{"unknown target", "kindword", `{"target": "sm_99"}`, `field "target"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, tc.input, "check", "--domain", tc.domain, "-")
			if code != exitError {
				t.Fatalf("exit %d, want %d", code, exitError)
			}
			if out != "" || !strings.Contains(errOut, tc.wantErr) || strings.Count(errOut, "\n") != 1 {
				t.Fatalf("stdout %q stderr %q, want one stderr line containing %q", out, errOut, tc.wantErr)
			}
		})
	}
}

func TestDomainsJSON(t *testing.T) {
	out, _, code := runCLI(t, "", "domains", "--json")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var infos []domainInfo
	if err := json.Unmarshal([]byte(out), &infos); err != nil {
		t.Fatal(err)
	}
	names := map[string]domainInfo{}
	for _, d := range infos {
		names[d.Name] = d
	}
	kw, ok := names["kindword"]
	if !ok || kw.Rules["seed"] != 13 || kw.FuzzTarget != "FuzzKindWord" {
		t.Fatalf("kindword entry %+v, want 13 seed rules and FuzzKindWord", kw)
	}
}

func TestOraclesJSON(t *testing.T) {
	out, _, code := runCLI(t, "", "oracles", "--json")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var statuses []struct {
		Name      string `json:"name"`
		Available bool   `json:"available"`
	}
	if err := json.Unmarshal([]byte(out), &statuses); err != nil {
		t.Fatal(err)
	}
	avail := map[string]bool{}
	for _, s := range statuses {
		avail[s.Name] = s.Available
	}
	if !avail["spec/seed"] || !avail["spec/ptxisa"] {
		t.Fatalf("spec oracles not available: %s", out)
	}
}

// TestCheckWithExecOracle runs the example verifier of docs/exec-oracle.md as
// a user oracle through --oracle exec:NAME=COMMAND.
func TestCheckWithExecOracle(t *testing.T) {
	bin := buildVerifier(t)
	out, errOut, code := runCLI(t, `{"raw": 66, "arch_conditional": true, "target": "sm_100a"}`,
		"--oracle", "exec:toy="+bin, "check", "--domain", "kindword", "--json", "-")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `"oracle":"exec:toy"`) {
		t.Fatalf("no exec:toy verdict in\n%s", out)
	}
	_, errOut, code = runCLI(t, "{}", "--oracle", "toy="+bin, "check", "--domain", "kindword", "-")
	if code != exitError || !strings.Contains(errOut, "exec:NAME=COMMAND") {
		t.Fatalf("malformed --oracle: exit %d, stderr %q", code, errOut)
	}
}

// buildVerifier builds the example verifier of docs/exec-oracle.md.
func buildVerifier(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "exampleverifier")
	build := exec.Command("go", "build", "-o", bin, "../../oracles/exec/testdata/exampleverifier")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build example verifier: %v\n%s", err, out)
	}
	return bin
}

// TestExecVerifierMakesFindings: a policy file (docs/policy.md) makes a
// user's verifier a judge of kindword, so where it accepts what the PTX ISA
// forbids (the toy checks only cta_group and .ws), the campaign makes
// findings of it, buckets them and exits 1. Without the file it judges but
// is compared with nothing.
func TestExecVerifierMakesFindings(t *testing.T) {
	if testing.Short() {
		t.Skip("campaign test takes seconds; skipped in -short")
	}
	bin := buildVerifier(t)
	pol := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(pol, []byte(`{"policies": [{"domain": "kindword", "judges": ["exec:toy"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	campaign := func(extra ...string) (string, int) {
		out := t.TempDir()
		args := append([]string{"--oracle", "exec:toy=" + bin}, extra...)
		args = append(args, "campaign", "--duration", "1s", "--out", out, "--quiet", "--no-minimize",
			"--domains", "kindword", "--oracles", "spec/ptxisa,spec/seed,exec:toy", "--fuzz-binary", filepath.Join(out, "none"))
		_, errOut, code := runCLI(t, "", args...)
		if code != exitOK && code != exitFindings {
			t.Fatalf("campaign exit %d: %s", code, errOut)
		}
		list, _, _ := runCLI(t, "", "triage", "--db", filepath.Join(out, "legalfuzz.db"))
		return list, code
	}
	list, code := campaign("--policy", pol)
	if code != exitFindings || !strings.Contains(list, "exec:toy accept") || !strings.Contains(list, "[spec/ptxisa: ptxisa.kindword.target") {
		t.Fatalf("with the policy file: exit %d, buckets:\n%s", code, list)
	}
	if list, code := campaign(); code != exitOK || strings.Contains(list, "exec:toy") {
		t.Fatalf("without it: exit %d, buckets:\n%s", code, list)
	}
	if _, errOut, code := runCLI(t, "", "--policy", filepath.Join(t.TempDir(), "none.json"), "domains"); code != exitError || !strings.Contains(errOut, "policy file") {
		t.Fatalf("missing policy file: exit %d, %q", code, errOut)
	}
}

// TestCampaignAndTriage runs a short embedded campaign, checks its exit
// status against its buckets, and exercises triage on the store it wrote.
func TestCampaignAndTriage(t *testing.T) {
	if testing.Short() {
		t.Skip("campaign test takes seconds; skipped in -short")
	}
	out := t.TempDir()
	stdout, errOut, campaignCode := runCLI(t, "", "campaign", "--duration", "2s", "--out", out, "--quiet",
		"--domains", "cpasync,mma", "--fuzz-binary", filepath.Join(out, "none"))
	if campaignCode != exitOK && campaignCode != exitFindings {
		t.Fatalf("campaign exit %d: %s", campaignCode, errOut)
	}
	db := filepath.Join(out, "legalfuzz.db")
	if !strings.Contains(stdout, "results: "+db) {
		t.Fatalf("campaign output does not say where the results are:\n%s", stdout)
	}
	list, _, code := runCLI(t, "", "triage", "--db", db, "--json")
	if code != exitOK {
		t.Fatalf("triage exit %d", code)
	}
	var entries []struct {
		Key    string `json:"key"`
		Status string `json:"status"`
	}
	if err := json.Unmarshal([]byte(list), &entries); err != nil {
		t.Fatal(err)
	}
	// A fresh store's buckets are all new and unsuppressed: exit 1 iff any.
	if (campaignCode == exitFindings) != (len(entries) > 0) {
		t.Fatalf("campaign exit %d but %d buckets", campaignCode, len(entries))
	}
	if len(entries) == 0 {
		t.Skip("no buckets with the oracles installed here; nothing to triage")
	}
	key := entries[0].Key
	if _, errOut, code := runCLI(t, "", "triage", "--db", db, "suppress", key); code != exitError || !strings.Contains(errOut, "reason") {
		t.Fatalf("suppress without a reason: exit %d, %q", code, errOut)
	}
	if _, errOut, code := runCLI(t, "", "triage", "--db", db, "suppress", key, "--reason", "test"); code != exitOK {
		t.Fatalf("suppress: exit %d, %q", code, errOut)
	}
	list, _, _ = runCLI(t, "", "triage", "--db", db)
	if !strings.Contains(list, "suppressed") || !strings.Contains(list, key) {
		t.Fatalf("suppressed bucket not listed as such:\n%s", list)
	}
	show, _, code := runCLI(t, "", "triage", "--db", db, "show", key)
	if code != exitOK || !strings.Contains(show, "replay with: legalfuzz check") {
		t.Fatalf("show: exit %d\n%s", code, show)
	}
}
