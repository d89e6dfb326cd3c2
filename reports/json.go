package reports

import (
	"encoding/json"
	"io"
)

// WriteJSON writes the report as one indented JSON object (schema
// "legalfuzz-report/1"). Its top-level fields:
//
//	schema            "legalfuzz-report/1"
//	generated         RFC 3339 time the report was made
//	store             the bbolt file it was read from
//	campaign          the reported campaign; its buckets have status "new"
//	campaigns         every campaign, newest first: id, state, created, duration,
//	                  elapsed, domains, oracles, cases, verdicts, findings,
//	                  new_buckets, dead_letters, outstanding, versions {oracle: version}
//	tonight           the reported run against the one before: campaign, since (the
//	                  run compared with), versions {oracle: version} (tonight's),
//	                  changed_versions [{oracle, from, to}] (none without since),
//	                  new, still, fixed, regressed (bucket counts, suppressed included)
//	totals            cases, verdicts, buckets, new_buckets, known_buckets,
//	                  suppressed_buckets, dead_letters (whole store)
//	buckets           as triage orders them (new, known, suppressed): key, title, domain,
//	                  status, tonight (new | still | fixed | regressed, or absent: not
//	                  looked at tonight), fixed_by (a fixed bucket's replay versions),
//	                  suppression_reason, cases, campaign, first_seen,
//	                  last_seen, signature, reproducer {case (the minimized
//	                  case, else the example), domain, source, value (the
//	                  case's JSON form), minimized, example, reliable,
//	                  rechecks, minimize_note, disagreeing [A, B], verdicts
//	                  (the stored ones, the pair's first), command, problem}
//	claims            one row per seed rule and per domain accept path: rule,
//	                  domain, accept_path, message, source, doubtful, verdict
//	                  (confirmed | contradicted | unverified), decided, judged,
//	                  confirming, contradicting, tools [{tool, agree,
//	                  contradict}], ptxisa_agree, ptxisa_differ, witness {case,
//	                  value, seed, tools}, unjudged [{tool, why}]
//	claim_counts      rules, confirmed, contradicted, unverified (accept paths excluded)
//	agreement_matrix  oracle_columns, rows [{rule, cases, oracles {name: {kind: n}}}]
//	rule_coverage     every spec rule: rule, set, domain, fired, passed
//	throughput        per oracle over all campaigns: oracle, judged, seconds, per_second
//	timeline          cases and buckets: cumulative [{time, count}]
//	dead_letters      campaign, subject, reason, time
//
// See tally.ClaimsDefinition for how a claim's verdict is computed.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
