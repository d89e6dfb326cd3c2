package exec

import (
	"context"
	"fmt"

	"github.com/legalfuzz/legalfuzz/oracles"
)

// Reproducer replays a user's verifier: legalfuzz sends it the case again
// over the exec protocol; nothing is filed upstream.
type Reproducer struct{}

// Reproduce gives the command that replays the verifier.
func (Reproducer) Reproduce(_ context.Context, r oracles.ReproRequest) oracles.Reproduction {
	return oracles.Reproduction{Commands: []string{
		fmt.Sprintf("# %s is your verifier: it gets %s's value over legalfuzz-exec/1; replay with", r.Name, oracles.CaseFile),
		fmt.Sprintf("legalfuzz --oracle %s=COMMAND check --domain %s %s", r.Name, r.Case.Domain, oracles.CaseFile)}}
}

// Filing is the user's own.
func (Reproducer) Filing() oracles.Filing { return oracles.Filing{} }
