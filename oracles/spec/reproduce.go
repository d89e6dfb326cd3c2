package spec

import (
	"context"

	"github.com/legalfuzz/legalfuzz/oracles"
)

// Reproducer replays the rule sets' verdicts: they are judged in process,
// so legalfuzz check replays them; nothing is filed upstream.
type Reproducer struct{}

// Reproduce says so in commands.txt.
func (Reproducer) Reproduce(_ context.Context, r oracles.ReproRequest) oracles.Reproduction {
	return oracles.Reproduction{Commands: []string{"# " + r.Name + " is legalfuzz's own rule set (oracles/spec), judged in process: legalfuzz check above"}}
}

// Filing is legalfuzz's own.
func (Reproducer) Filing() oracles.Filing { return oracles.Filing{} }
