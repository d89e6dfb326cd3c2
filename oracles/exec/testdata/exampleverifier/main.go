// Command exampleverifier is a toy verifier speaking legalfuzz-exec/1, for
// the exec oracle's tests and docs/exec-oracle.md. It judges kindword cases
// by two toy rules (cta_group must be 1 or 2; .ws is rejected with
// cta_group::2) and answers "unsupported" for the reserved kind and for
// every other domain. Its flags make it misbehave on purpose.
//
// Its environment makes another release of it, for tests of nights with a
// tool upgrade (cmd/legalfuzz TestNightlyRecipe): EXAMPLEVERIFIER_VERSION
// replaces its version "0.1.0"; EXAMPLEVERIFIER_NO_WS=1 adds a rule: every
// .ws is rejected. That fixes one bug (it accepted .ws with kinds the PTX
// ISA forbids with .ws) and makes another (it rejects legal .ws).
//
// It uses only the standard library and its own view of the kindword JSON
// form, as a user's verifier would.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

// opts are the misbehaviours; a substring matches a case's value JSON.
type opts struct {
	hangOn, crashOn, garbageOn, dropOn, dupOn string
	badHello, extraID                         bool
	exitAfter                                 int
}

func main() {
	var o opts
	flag.StringVar(&o.hangOn, "hang-on", "", "sleep forever on a case whose JSON contains this")
	flag.StringVar(&o.crashOn, "crash-on", "", "exit 3 mid-batch on a case whose JSON contains this")
	flag.StringVar(&o.garbageOn, "garbage-on", "", "answer a non-JSON line for a batch with a case whose JSON contains this")
	flag.StringVar(&o.dropOn, "drop-on", "", "give no verdict for cases whose JSON contains this")
	flag.StringVar(&o.dupOn, "dup-on", "", "give two verdicts for cases whose JSON contains this")
	flag.BoolVar(&o.badHello, "bad-hello", false, "say hello in protocol legalfuzz-exec/0")
	flag.BoolVar(&o.extraID, "extra-id", false, "add a verdict for an id nobody asked about")
	flag.IntVar(&o.exitAfter, "exit-after", 0, "exit cleanly after answering this many batches (0: never)")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "exampleverifier:", err)
		os.Exit(1)
	}
}

type hello struct {
	Protocol string   `json:"protocol"`
	Name     string   `json:"name"`
	Version  string   `json:"version"`
	Domains  []string `json:"domains"`
}

// request and verdict follow docs/exec-oracle.md; unknown fields are
// ignored, as the protocol asks.
type request struct {
	Batch int64 `json:"batch"`
	Cases []struct {
		ID     string          `json:"id"`
		Domain string          `json:"domain"`
		Value  json.RawMessage `json:"value"`
	} `json:"cases"`
}

type verdict struct {
	ID         string `json:"id"`
	Verdict    string `json:"verdict"`
	Diagnostic string `json:"diagnostic,omitempty"`
	Value      string `json:"value,omitempty"`
}

type answer struct {
	Batch    int64     `json:"batch"`
	Verdicts []verdict `json:"verdicts"`
}

func run(o opts) error {
	out := json.NewEncoder(os.Stdout) // one object per line
	h := hello{Protocol: "legalfuzz-exec/1", Name: "exampleverifier", Version: "0.1.0", Domains: []string{"kindword"}}
	if v := os.Getenv("EXAMPLEVERIFIER_VERSION"); v != "" {
		h.Version = v
	}
	if o.badHello {
		h.Protocol = "legalfuzz-exec/0"
	}
	if err := out.Encode(h); err != nil {
		return err
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 64<<20)
	for n := 1; in.Scan(); n++ {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			return fmt.Errorf("bad request: %w", err)
		}
		fmt.Fprintf(os.Stderr, "exampleverifier: batch %d, %d cases\n", req.Batch, len(req.Cases))
		a, garbage := judge(o, req)
		if garbage {
			fmt.Println("this is not JSON")
		} else if err := out.Encode(a); err != nil {
			return err
		}
		if n == o.exitAfter {
			return nil
		}
	}
	return in.Err() // nil at EOF: legalfuzz ended the session
}

// judge answers one request, misbehaving as asked.
func judge(o opts, req request) (answer, bool) {
	a := answer{Batch: req.Batch, Verdicts: []verdict{}}
	garbage := false
	for _, c := range req.Cases {
		js := string(c.Value)
		switch {
		case hit(js, o.hangOn):
			fmt.Fprintf(os.Stderr, "exampleverifier: hanging on case %s as asked\n", c.ID)
			time.Sleep(24 * time.Hour)
		case hit(js, o.crashOn):
			fmt.Fprintf(os.Stderr, "exampleverifier: crashing on case %s as asked\n", c.ID)
			fmt.Print(`{"batch":`) // a partial line, then death
			os.Exit(3)
		case hit(js, o.garbageOn):
			garbage = true
		case hit(js, o.dropOn):
			continue
		}
		v := judgeCase(c.ID, c.Domain, c.Value)
		a.Verdicts = append(a.Verdicts, v)
		if hit(js, o.dupOn) {
			a.Verdicts = append(a.Verdicts, v)
		}
	}
	if o.extraID {
		a.Verdicts = append(a.Verdicts, verdict{ID: "ffffffffffffffff", Verdict: "accept"})
	}
	return a, garbage
}

func hit(js, sub string) bool { return sub != "" && strings.Contains(js, sub) }

// kindword is the part of the kindword JSON form the toy rules read.
type kindword struct {
	Kind     string `json:"kind"`
	CTAGroup int    `json:"cta_group"`
	WS       bool   `json:"ws"`
}

// noWS is the later release's rule (see the package comment).
var noWS = os.Getenv("EXAMPLEVERIFIER_NO_WS") == "1"

// judgeCase applies the toy rules.
func judgeCase(id, domainName string, value json.RawMessage) verdict {
	v := verdict{ID: id}
	if domainName != "kindword" {
		v.Verdict, v.Diagnostic = "unsupported", "exampleverifier judges kindword only"
		return v
	}
	var k kindword
	if err := json.Unmarshal(value, &k); err != nil {
		v.Verdict, v.Diagnostic = "error", "cannot read the case: "+err.Error()
		return v
	}
	switch {
	case k.Kind == "reserved6":
		v.Verdict, v.Diagnostic = "unsupported", "no instruction for the reserved kind"
	case k.CTAGroup != 1 && k.CTAGroup != 2:
		v.Verdict, v.Diagnostic = "reject", fmt.Sprintf("cta_group must be 1 or 2, got %d", k.CTAGroup)
	case k.CTAGroup == 2 && k.WS:
		v.Verdict, v.Diagnostic = "reject", ".ws is not allowed with cta_group::2"
	case noWS && k.WS:
		v.Verdict, v.Diagnostic = "reject", "this release refuses every .ws"
	default:
		v.Verdict = "accept"
		v.Value = fmt.Sprintf("tcgen05.mma.cta_group::%d.kind::%s", k.CTAGroup, k.Kind)
		if k.WS {
			v.Value = "tcgen05.mma.ws.cta_group::1.kind::" + k.Kind
		}
	}
	return v
}
