package repro

import (
	"context"
	"fmt"
	"github.com/legalfuzz/legalfuzz/corpus"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/mlir"
)

// planPasses replays a pass judge's verdict: the pipelines before the pass,
// then the pass alone with the verifier off, judged by how it failed in
// the campaign (a crash, output the verifier rejects, an error printed at
// exit status 0, or its own words).
func planPasses(ctx context.Context, s *script, bd Bundle) {
	obs := bd.Observed
	st := oracles.ParseStage(obs.Rule)
	r, ok := mlir.ReplayOf(obs.Oracle, strings.TrimPrefix(st.Name, "pass:"))
	if !ok {
		planCheck(s, bd)
		return
	}
	inst, _ := toolchain.Of(ctx, r.Release)
	opt := s.need("MLIR_OPT", mlir.ToolsOf(inst).Opt)
	in := MLIRFile
	for i, p := range r.Before {
		out := fmt.Sprintf(`"$work/before%d.mlir"`, i)
		s.add(fmt.Sprintf(`step before%d %s --pass-pipeline='%s' %s -o %s`, i, opt, p, in, out),
			fmt.Sprintf(`clean before%d || cannot "a pipeline before the pass under test failed"`, i))
		in = out
	}
	s.add(fmt.Sprintf(`step pass %s --verify-each=false --pass-pipeline='%s' %s -o "$work/pass.mlir"`, opt, r.Pass, in))
	switch st.Fault {
	case oracles.InvalidIR:
		s.add(`clean pass || fixed "the pass failed instead of writing IR"`,
			`step verify `+opt+` "$work/pass.mlir" -o /dev/null`,
			`clean verify || reproduces "the verifier rejects what the pass wrote"`,
			`fixed "the verifier accepts what the pass wrote"`)
	case oracles.ExitZero:
		if w := words(obs.Diagnostic); w != "" {
			s.add(fmt.Sprintf(`[ "$rc" -eq 0 ] && said pass %s && reproduces "the pass said: %s, and exited 0"`, corpus.ShellQuote(w), shEsc(w)))
		}
		s.add(`fixed "the pass no longer prints an error with exit status 0"`)
	default:
		judgeLast(s, "pass", obs, "")
	}
}
