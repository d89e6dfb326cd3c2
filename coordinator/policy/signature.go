package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
)

// Signature is a finding's dedup key: one bug, one bucket, however many
// cases hit it. It names the domain, the disagreeing oracle pair, their
// verdict kinds, the spec rule involved and the normalized tool diagnostics.
type Signature struct {
	Domain string       `json:"domain"`
	Pair   Pair         `json:"pair"`
	KindA  oracles.Kind `json:"kind_a"`
	KindB  oracles.Kind `json:"kind_b"`
	RuleA  string       `json:"rule_a,omitempty"`
	RuleB  string       `json:"rule_b,omitempty"`
	DiagA  string       `json:"diag_a,omitempty"`
	DiagB  string       `json:"diag_b,omitempty"`
}

// signatureDiag reduces a diagnostic to what identifies the bug: spec
// verdicts are identified by their rule alone, a tool's by the title of
// its diagnostic.
func signatureDiag(v oracles.Verdict) string {
	if strings.HasPrefix(v.Oracle, "spec/") {
		return ""
	}
	return diag.Title(v.Diagnostic)
}

// SignatureOf computes a disagreement's signature.
func SignatureOf(d Disagreement) Signature {
	return Signature{
		Domain: d.Domain, Pair: d.Pair, KindA: d.A.Kind, KindB: d.B.Kind,
		RuleA: d.A.Rule, RuleB: d.B.Rule, DiagA: signatureDiag(d.A), DiagB: signatureDiag(d.B),
	}
}

// Key is the signature's stable 16-hex-digit hash.
func (s Signature) Key() string {
	h := sha256.Sum256([]byte(strings.Join([]string{s.Domain, s.Pair.String(), string(s.KindA), string(s.KindB), s.RuleA, s.RuleB, s.DiagA, s.DiagB}, "\x00")))
	return hex.EncodeToString(h[:8])
}

// Title is a one-line human name for the bucket.
func (s Signature) Title() string {
	t := s.Domain + ": " + s.Pair.A + " " + string(s.KindA)
	if s.RuleA != "" {
		t += " (" + s.RuleA + ")"
	}
	t += ", " + s.Pair.B + " " + string(s.KindB)
	if s.DiagB != "" {
		t += ": " + s.DiagB
	} else if s.RuleB != "" {
		t += " (" + s.RuleB + ")"
	}
	return t
}
