package exec

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/oracles"
)

func TestParseHello(t *testing.T) {
	for _, tc := range []struct {
		name, line, err string
	}{
		{"ok", `{"protocol":"legalfuzz-exec/1","name":"v","version":"1","domains":["kindword"]}`, ""},
		{"unknown fields ignored", `{"protocol":"legalfuzz-exec/1","name":"v","version":"1","domains":["kindword"],"extra":{"a":1}}`, ""},
		{"newer version", `{"protocol":"legalfuzz-exec/2","name":"v","version":"1","domains":["x"]}`,
			"protocol version mismatch: verifier speaks legalfuzz-exec/2, legalfuzz speaks legalfuzz-exec/1"},
		{"other protocol", `{"protocol":"lsp","name":"v","version":"1","domains":["x"]}`, `hello protocol "lsp"`},
		{"no protocol", `{"name":"v","version":"1","domains":["x"]}`, `hello protocol ""`},
		{"not JSON", `hello there`, "hello is not a JSON object"},
		{"array", `["legalfuzz-exec/1"]`, "hello is not a JSON object"},
		{"wrong type", `{"protocol":"legalfuzz-exec/1","name":"v","version":1,"domains":["x"]}`, "hello is not a JSON object"},
		{"no name", `{"protocol":"legalfuzz-exec/1","version":"1","domains":["x"]}`, "hello has no name"},
		{"no version", `{"protocol":"legalfuzz-exec/1","name":"v","domains":["x"]}`, "hello has no version"},
		{"no domains", `{"protocol":"legalfuzz-exec/1","name":"v","version":"1","domains":[]}`, "hello lists no domains"},
		{"empty domain", `{"protocol":"legalfuzz-exec/1","name":"v","version":"1","domains":[""]}`, "empty domain name"},
		{"unknown domain", `{"protocol":"legalfuzz-exec/1","name":"v","version":"1","domains":["kindword","nosuchdomain"]}`,
			`hello lists domain "nosuchdomain", which legalfuzz does not have`},
		{"path as domain", `{"protocol":"legalfuzz-exec/1","name":"v","version":"1","domains":["../../etc"]}`,
			`hello lists domain "../../etc", which legalfuzz does not have`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseHello([]byte(tc.line))
			if tc.err == "" && err != nil {
				t.Fatalf("parseHello: %v", err)
			}
			if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("parseHello = %v, want error containing %q", err, tc.err)
			}
		})
	}
}

func TestAttribute(t *testing.T) {
	ids := []string{"a", "b", "c", "d"}
	line := `{"batch":7,"future":true,"verdicts":[` +
		`{"id":"b","verdict":"reject","diagnostic":"no","value":"","rule":"r1"},` +
		`{"id":"a","verdict":"accept","value":"42"},` +
		`{"id":"c","verdict":"accept"},{"id":"c","verdict":"accept"},` +
		`{"id":"zz","verdict":"accept"}]}`
	got, problems, err := attribute("exec:t", []byte(line), 7, ids)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]outcome{
		"a": {kind: oracles.Accept, value: "42"},
		"b": {kind: oracles.Reject, diagnostic: "no"},
		"c": {kind: oracles.Error, diagnostic: "exec:t answered garbage: 2 verdicts for this case"},
		"d": {kind: oracles.Error, diagnostic: "exec:t answered garbage: no verdict for this case"},
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("case %s: %+v, want %+v", id, got[id], w)
		}
	}
	if len(problems) != 3 {
		t.Errorf("problems = %q, want unknown id zz, duplicate c, missing d", problems)
	}

	bad, _, err := attribute("exec:t", []byte(`{"batch":1,"verdicts":[{"id":"a","verdict":"maybe"}]}`), 1, []string{"a"})
	if err != nil || bad["a"].kind != oracles.Error || !strings.Contains(bad["a"].diagnostic, `unknown verdict "maybe"`) {
		t.Errorf("unknown verdict kind: %+v, %v", bad["a"], err)
	}
	for _, garbage := range []string{`not json`, `{"verdicts":[]}`, `{"batch":6,"verdicts":[]}`, `{"batch":"7"}`} {
		if _, _, err := attribute("exec:t", []byte(garbage), 7, ids); err == nil {
			t.Errorf("attribute(%s) = nil error, want garbage", garbage)
		}
	}
}

// TestRequestValuesParse: each value sent is the domain's JSON form, which
// its strict parser (what legalfuzz check reads) turns back into the value.
func TestRequestValuesParse(t *testing.T) {
	cases := append(randomCases(rand.New(rand.NewPCG(3, 4)), 200), kw(kindword.F16, 1, false), kw(kindword.F16, 1, false))
	line, err := Request(9, cases)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(line, []byte("\n")) != 1 || line[len(line)-1] != '\n' {
		t.Fatalf("request is not one line")
	}
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		t.Fatal(err)
	}
	if req.Batch != 9 || len(req.Cases) != 201 {
		t.Fatalf("batch %d with %d cases, want 9 with 201 (the duplicate sent once)", req.Batch, len(req.Cases))
	}
	for i, rc := range req.Cases {
		v, err := kindword.ParseJSON(rc.Value)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if got := domain.NewCase(rc.Domain, v); got.ID != rc.ID || !reflect.DeepEqual(v, cases[i].Value) {
			t.Errorf("case %d: %s parses to %+v (id %s), sent %+v (id %s)", i, rc.Value, v, got.ID, cases[i].Value, rc.ID)
		}
	}
}
