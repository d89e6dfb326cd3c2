package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/reports/reportstest"
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

// TestOraclesFitScreen: the oracles table was 584 columns wide (MLIR's
// version lists its passes, notes give install hints). It fits 120, names
// every oracle, and --wide still prints every version whole.
func TestOraclesFitScreen(t *testing.T) {
	out, _, code := runCLI(t, "", "oracles")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	checkFits(t, out, screenWidth)
	js, _, _ := runCLI(t, "", "oracles", "--json")
	var statuses []oracles.Status
	if err := json.Unmarshal([]byte(js), &statuses); err != nil {
		t.Fatal(err)
	}
	wide, _, _ := runCLI(t, "", "oracles", "--wide")
	for _, s := range statuses {
		if !strings.Contains(out, s.Name+" ") || !strings.Contains(wide, s.Version) {
			t.Errorf("oracle %s (version %q) missing from the table or from --wide", s.Name, s.Version)
		}
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

// buildVerifier returns the example verifier of docs/exec-oracle.md,
// built once for the package's tests.
func buildVerifier(t *testing.T) string {
	t.Helper()
	return built(t, verifierBinary)
}

// The binaries the package's tests run, each built at most once into
// sharedDir: four tests run the verifier, and linking takes seconds on a
// loaded machine.
var (
	verifierBinary  = sync.OnceValues(func() (string, error) { return goBuild("../../oracles/exec/testdata/exampleverifier") })
	legalfuzzBinary = sync.OnceValues(func() (string, error) { return goBuild(".") })
)

// sharedDir holds the binaries built once; TestMain removes it.
var sharedDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "legalfuzz-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	sharedDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// goBuild builds the main package pkg into sharedDir.
func goBuild(pkg string) (string, error) {
	abs, err := filepath.Abs(pkg)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(sharedDir, filepath.Base(abs))
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin, nil
}

// built returns a binary built once, failing the test where the build did.
func built(t *testing.T, build func() (string, error)) string {
	t.Helper()
	bin, err := build()
	if err != nil {
		t.Fatal(err)
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
	// Three seconds, not one: on a loaded machine the first second can pass
	// before a case is judged, and the campaign then has nothing to show.
	campaign := func(extra ...string) (string, int) {
		out := t.TempDir()
		args := append([]string{"--oracle", "exec:toy=" + bin}, extra...)
		args = append(args, "campaign", "--duration", "3s", "--out", out, "--quiet", "--no-minimize",
			"--domains", "kindword", "--oracles", "spec/ptxisa,spec/seed,exec:toy", "--fuzz-binary", filepath.Join(out, "none"))
		_, errOut, code := runCLI(t, "", args...)
		if code != exitOK && code != exitFindings {
			t.Fatalf("campaign exit %d: %s", code, errOut)
		}
		list, _, _ := runCLI(t, "", "triage", "--wide", "--db", filepath.Join(out, "legalfuzz.db"))
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
	// ptxas against the rules makes buckets in seconds; every oracle and
	// minimizing (TestTriageBundleReplays's) made it minutes on a loaded
	// machine, and this test is about the commands, not the oracles.
	stdout, errOut, campaignCode := runCLI(t, "", "campaign", "--duration", "2s", "--out", out, "--quiet",
		"--domains", "cpasync,mma", "--fuzz-binary", filepath.Join(out, "none"), "--no-minimize",
		"--oracles", "spec/ptxisa,spec/seed,ptxas")
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
	// A unique prefix names the bucket; the verb says what it did.
	if out, errOut, code := runCLI(t, "", "triage", "--db", db, "suppress", key[:8], "--reason", "test"); code != exitOK || !strings.Contains(out, "suppressed bucket "+key+" (test)") {
		t.Fatalf("suppress by prefix: exit %d, %q, %q", code, out, errOut)
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

// TestDamagedOrForeignStores: a truncated store, an empty file and a
// misspelled path are one-line errors (exit 2) for every reader; nothing is
// created; store check finds the damage and salvage recovers a sound store.
func TestDamagedOrForeignStores(t *testing.T) {
	dir := t.TempDir()
	good := reportStore(t, true)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	half := filepath.Join(dir, "half.db")
	empty := filepath.Join(dir, "empty.db")
	missing := filepath.Join(dir, "typo.db")
	if err := os.WriteFile(half, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, db := range []string{half, empty, missing} {
		for _, args := range [][]string{{"triage"}, {"report", "--out", filepath.Join(dir, "r")}, {"minimize"},
			{"corpus", "export", "--out", filepath.Join(dir, "x")}} {
			_, errOut, code := runCLI(t, "", append(args, "--db", db)...)
			if code != exitError || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Errorf("%v on %s: exit %d, stderr %q; want exit 2 and one line", args, filepath.Base(db), code, errOut)
			}
		}
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Fatalf("a reader created %s", missing)
	}
	if out, _, code := runCLI(t, "", "store", "check", "--db", good); code != exitOK || !strings.Contains(out, "no damage") {
		t.Fatalf("store check of a sound store: exit %d\n%s", code, out)
	}
	salvaged := filepath.Join(dir, "salvaged.db")
	if out, errOut, code := runCLI(t, "", "store", "salvage", "--db", half, "--out", salvaged); code != exitOK || !strings.Contains(out, "salvaged into") {
		t.Fatalf("salvage: exit %d\n%s%s", code, out, errOut)
	}
	if out, _, code := runCLI(t, "", "store", "check", "--db", salvaged); code != exitOK {
		t.Fatalf("store check of the salvaged store: exit %d\n%s", code, out)
	}
}

// TestCampaignArgumentsCheckedFirst: bad names and durations are refused
// before anything is created or saved, so they cannot poison a later run.
func TestCampaignArgumentsCheckedFirst(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	for _, args := range [][]string{{"--domains", "nope"}, {"--oracles", "nope"}, {"--duration", "0s"}, {"--duration=-5s"}} {
		_, errOut, code := runCLI(t, "", append([]string{"campaign", "--out", out, "--quiet"}, args...)...)
		if code != exitError || errOut == "" {
			t.Errorf("campaign %v: exit %d, stderr %q; want 2 and a reason", args, code, errOut)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a refused campaign created %s", out)
	}
}

// TestUnavailableUserOracleIsSaid: a user verifier that never says hello is
// one warning (and with --strict-oracles an error), never silently absent.
func TestUnavailableUserOracleIsSaid(t *testing.T) {
	args := []string{"--oracle", "exec:dead=/bin/true", "check", "--domain", "kindword", "-"}
	_, errOut, code := runCLI(t, "{}", args...)
	if code != exitOK || !strings.Contains(errOut, "exec:dead") || !strings.Contains(errOut, "hello") {
		t.Fatalf("exit %d, stderr %q: want a warning naming exec:dead and why", code, errOut)
	}
	_, errOut, code = runCLI(t, "{}", append([]string{"--strict-oracles"}, args...)...)
	if code != exitError || !strings.Contains(errOut, "exec:dead is unavailable") {
		t.Fatalf("--strict-oracles: exit %d, stderr %q", code, errOut)
	}
}

func TestVersion(t *testing.T) {
	out, _, code := runCLI(t, "", "version", "--json")
	var v versionInfo
	if code != exitOK || json.Unmarshal([]byte(out), &v) != nil || v.Legalfuzz == "" || v.Oracles["spec/ptxisa"] == "" {
		t.Fatalf("version --json: exit %d\n%s", code, out)
	}
	if out, _, code := runCLI(t, "", "--version"); code != exitOK || !strings.HasPrefix(out, "legalfuzz version ") {
		t.Fatalf("--version: exit %d, %q", code, out)
	}
}

// TestCheckSaysWhetherAFinding: check's table ends with the policy's
// answer; a policy file making the toy verifier a judge turns its
// disagreement with spec/ptxisa into a finding.
func TestCheckSaysWhetherAFinding(t *testing.T) {
	out, _, code := runCLI(t, `{"raw": 66, "arch_conditional": true, "target": "sm_100a"}`, "check", "--domain", "kindword", "-")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitOK || !strings.HasPrefix(lines[len(lines)-1], "no finding") && !strings.HasPrefix(lines[len(lines)-1], "finding") {
		t.Fatalf("exit %d, last line %q", code, lines[len(lines)-1])
	}
	bin := buildVerifier(t)
	pol := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(pol, []byte(`{"policies": [{"domain": "kindword", "judges": ["exec:toy"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// sm_80 cannot run tcgen05.mma: spec/ptxisa rejects, the toy accepts.
	out, errOut, code := runCLI(t, `{"raw": 66, "arch_conditional": true, "target": "sm_80"}`,
		"--oracle", "exec:toy="+bin, "--policy", pol, "check", "--domain", "kindword", "-")
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if code != exitOK || !strings.HasPrefix(lines[len(lines)-1], "finding: spec/ptxisa reject vs exec:toy accept") {
		t.Fatalf("exit %d (%s), last line %q", code, errOut, lines[len(lines)-1])
	}
}

// TestNightlyRecipe runs deploy/nightly.sh, the recipe of docs/nightly.md,
// for three nights on one store, with the toy verifier (exec:toy) upgraded
// between them. Night 1 (toy 0.1.0) finds new buckets (exit 1). Night 2
// adds a suppression file and toy 0.2.0, which refuses every .ws (a fix of
// its too permissive .ws, and a new too strict bug): its tonight section
// shows the fixed buckets, named by 0.2.0, the new ones, and every other
// bucket of night 1 still failing; all are suppressed, so it exits 0.
// Night 3 (toy 0.3.0, the old rules again, no suppressions) shows exactly
// night 2's fixed buckets
// regressed, its new ones fixed by 0.3.0 and its still failing ones still
// failing, exits 1 for the regressions, and its JUnit and HTML (in
// Chromium) say the same.
func TestNightlyRecipe(t *testing.T) {
	if testing.Short() {
		t.Skip("three campaigns take seconds; skipped in -short")
	}
	dir := t.TempDir()
	bin := built(t, legalfuzzBinary)
	toy := buildVerifier(t)
	pol := filepath.Join(dir, "policy.json")
	if err := os.WriteFile(pol, []byte(`{"policies": [{"domain": "kindword", "judges": ["exec:toy"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	night := func(date string, env ...string) (int, nightReport) {
		cmd := exec.Command("bash", "../../deploy/nightly.sh")
		cmd.Env = append(os.Environ(), append([]string{"STORE=" + filepath.Join(dir, "nightly.db"), "OUT=" + filepath.Join(dir, "out"),
			"PUBLISH=" + filepath.Join(dir, date), "DURATION=1s", "BIN=" + bin,
			"FLAGS=--oracle exec:toy=" + toy + " --policy " + pol,
			"CAMPAIGN_FLAGS=--domains kindword --oracles spec/ptxisa,spec/seed,exec:toy --no-minimize --fuzz-binary none"},
			env...)...)
		out, err := cmd.CombinedOutput()
		code := cmd.ProcessState.ExitCode()
		if err != nil && code != exitFindings {
			t.Fatalf("night %s: %v\n%s", date, err, out)
		}
		r := readNight(t, filepath.Join(dir, date))
		t.Logf("night %s: exit %d, totals %+v, tonight %+v", date, code, r.Totals, r.Tonight)
		return code, r
	}
	code, first := night("1", "EXAMPLEVERIFIER_VERSION=0.1.0")
	tn := first.Tonight
	if code != exitFindings || first.Totals.New == 0 || first.Totals.Known != 0 || tn.New != first.Totals.Buckets || tn.Still+tn.Fixed+tn.Regressed != 0 {
		t.Fatalf("first night: exit %d, totals %+v, tonight %+v; want only new buckets and exit 1", code, first.Totals, tn)
	}

	sup := filepath.Join(dir, "suppressions.json")
	if err := os.WriteFile(sup, []byte(`[{"oracle": "exec:toy", "reason": "the toy verifier knows no targets"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, second := night("2", "SUPPRESSIONS="+sup, "EXAMPLEVERIFIER_VERSION=0.2.0", "EXAMPLEVERIFIER_NO_WS=1")
	tn = second.Tonight
	if code != exitOK || second.Totals.New != 0 || second.Totals.Suppressed < first.Totals.New || second.Totals.Buckets < first.Totals.Buckets {
		t.Fatalf("second night: exit %d, totals %+v (first %+v); want every bucket suppressed and exit 0", code, second.Totals, first.Totals)
	}
	if tn.Fixed == 0 || tn.New == 0 || tn.Regressed != 0 || tn.Still+tn.Fixed != first.Totals.Buckets {
		t.Fatalf("second night: tonight %+v; want the %d buckets of night 1 still or fixed (some fixed) and some new", tn, first.Totals.Buckets)
	}
	if !slices.Contains(tn.Changed, versionChange{Oracle: "exec:toy", From: "0.1.0", To: "0.2.0"}) {
		t.Errorf("second night: changed versions %+v lack exec:toy 0.1.0 -> 0.2.0", tn.Changed)
	}
	for _, b := range second.with("fixed") {
		if !strings.Contains(b.FixedBy, "exec:toy 0.2.0") {
			t.Errorf("second night: fixed bucket %s is fixed by %q, want exec:toy 0.2.0", b.Key, b.FixedBy)
		}
	}

	code, third := night("3", "EXAMPLEVERIFIER_VERSION=0.3.0")
	if code != exitFindings {
		t.Errorf("third night: exit %d, want 1 for the regressions", code)
	}
	for _, c := range []struct{ now, then string }{{"regressed", "fixed"}, {"fixed", "new"}, {"still", "still"}} {
		if got, want := keys(third.with(c.now)), keys(second.with(c.then)); !slices.Equal(got, want) {
			t.Errorf("third night: %s buckets %v, want night 2's %s ones %v", c.now, got, c.then, want)
		}
	}
	for _, b := range third.with("fixed") {
		if !strings.Contains(b.FixedBy, "exec:toy 0.3.0") {
			t.Errorf("third night: fixed bucket %s is fixed by %q, want exec:toy 0.3.0", b.Key, b.FixedBy)
		}
	}
	checkNightJUnit(t, filepath.Join(dir, "3"), third)
	checkNightHTML(t, filepath.Join(dir, "3"), third)
}

// nightReport is the part of a report.json a night's test reads.
type nightReport struct {
	Totals struct {
		Buckets    int `json:"buckets"`
		New        int `json:"new_buckets"`
		Known      int `json:"known_buckets"`
		Suppressed int `json:"suppressed_buckets"`
	} `json:"totals"`
	Tonight struct {
		New       int             `json:"new"`
		Still     int             `json:"still"`
		Fixed     int             `json:"fixed"`
		Regressed int             `json:"regressed"`
		Changed   []versionChange `json:"changed_versions"`
	} `json:"tonight"`
	Buckets []nightBucket `json:"buckets"`
}

type versionChange struct {
	Oracle string `json:"oracle"`
	From   string `json:"from"`
	To     string `json:"to"`
}

// nightBucket is one bucket of a nightReport.
type nightBucket struct {
	Key     string `json:"key"`
	Status  string `json:"status"`
	Class   string `json:"class"`
	Tonight string `json:"tonight"`
	FixedBy string `json:"fixed_by"`
}

// with lists the buckets of a tonight status.
func (r nightReport) with(tonight string) []nightBucket {
	var out []nightBucket
	for _, b := range r.Buckets {
		if b.Tonight == tonight {
			out = append(out, b)
		}
	}
	return out
}

func keys(bs []nightBucket) []string {
	out := []string{}
	for _, b := range bs {
		out = append(out, b.Key)
	}
	slices.Sort(out)
	return out
}

// nightFile returns the one path of a file a night wrote under dir/<date>/.
func nightFile(t *testing.T, dir, name string) string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "*", name))
	if len(paths) != 1 {
		t.Fatalf("%d %s under %s, want 1", len(paths), name, dir)
	}
	return paths[0]
}

// readNight reads the one report a night wrote under dir/<date>/.
func readNight(t *testing.T, dir string) nightReport {
	t.Helper()
	data, err := os.ReadFile(nightFile(t, dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r nightReport
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

type junitTestCase struct {
	Name    string    `xml:"name,attr"`
	Failure *struct{} `xml:"failure"`
}

// checkNightJUnit checks the JUnit mapping: tool bugs new, still failing
// or regressed tonight fail, fixed ones pass.
func checkNightJUnit(t *testing.T, dir string, r nightReport) {
	t.Helper()
	data, err := os.ReadFile(nightFile(t, dir, "report.junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Fails int             `xml:"failures,attr"`
		Cases []junitTestCase `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	failing := 0
	for _, b := range r.Buckets {
		bug := b.Class != "limitation" && b.Class != "seed-evidence"
		if bug && b.Status != "suppressed" && (b.Tonight == "new" || b.Tonight == "still" || b.Tonight == "regressed") {
			failing++
		}
	}
	if doc.Fails != failing || len(doc.Cases) != len(r.Buckets) {
		t.Errorf("JUnit: %d failures of %d cases, want %d of %d (new, still and regressed tool bugs)", doc.Fails, len(doc.Cases), failing, len(r.Buckets))
	}
	for _, b := range r.with("fixed") {
		i := slices.IndexFunc(doc.Cases, func(c junitTestCase) bool { return strings.HasPrefix(c.Name, b.Key+" ") })
		if i < 0 || doc.Cases[i].Failure != nil {
			t.Errorf("JUnit: fixed bucket %s is missing or failing", b.Key)
		}
	}
}

// checkNightHTML opens the night's report.html in headless Chromium and
// checks its tonight section against the JSON.
func checkNightHTML(t *testing.T, dir string, r nightReport) {
	t.Helper()
	dom := reportstest.DumpDOM(t, nightFile(t, dir, "report.html"))
	sec := reportstest.Between(t, dom, `<section id="tonight"`, "</section>")
	for _, c := range []struct {
		status string
		n      int
	}{{"new", r.Tonight.New}, {"still", r.Tonight.Still}, {"fixed", r.Tonight.Fixed}, {"regressed", r.Tonight.Regressed}} {
		card := fmt.Sprintf(`id="tonight-%s">%d<`, c.status, c.n)
		rows := strings.Count(sec, `data-tonight="`+c.status+`"`)
		if !strings.Contains(sec, card) || rows != c.n {
			t.Errorf("HTML tonight: %s card or rows (%d) do not say %d", c.status, rows, c.n)
		}
	}
	for _, want := range []string{`id="tonight-versions"`, "0.2.0", "0.3.0", "exec:toy 0.3.0"} {
		if !strings.Contains(sec, want) {
			t.Errorf("HTML tonight section lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("tonight section:\n%s", sec)
	}
}
