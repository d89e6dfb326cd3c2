package main

import (
	"bufio"
	"encoding/json"
	"strings"

	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/oracles/exec"
)

// hostileOracle is the soak's hostile verifier as the campaign names it.
const hostileOracle = "exec:hostile"

// hostileLine is the length of the first line of each of the hostile
// verifier's diagnostics: over bbolt's 32 KiB key limit (a line like it
// once blocked a campaign for good) and ten times clip.Max, what the
// worker and the coordinator keep of it (40 KiB lines once held a
// gigabyte).
const hostileLine = 40 << 10

// newBenchHostileVerifierCmd is the soak's hostile verifier: an exec
// verifier (legalfuzz-exec/1 on stdin/stdout) that rejects every kindword
// case with a diagnostic whose first line is hostileLine bytes, a new line
// per case. Hidden: the soak runs it through --oracle.
func newBenchHostileVerifierCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "hostile-verifier",
		Short:  "An exec verifier whose diagnostics' first lines pass the store's key limit (bench soak runs it)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := json.NewEncoder(cmd.OutOrStdout())
			hello := exec.Hello{Protocol: exec.Protocol, Name: "hostile", Version: "1", Domains: []string{"kindword"}}
			if err := out.Encode(hello); err != nil {
				return err
			}
			in := bufio.NewScanner(cmd.InOrStdin())
			in.Buffer(make([]byte, 64<<10), 64<<20)
			for in.Scan() {
				if err := out.Encode(hostileAnswer(in.Bytes())); err != nil {
					return err
				}
			}
			return in.Err()
		},
	}
}

// hostileFirst is the first line of every hostile diagnostic: one line,
// as a tool printing it would, so one feature however many cases.
var hostileFirst = "error: refused because " + strings.Repeat("it is long ", (hostileLine-23)/11)

// hostileAnswer rejects every case of one request line with the long line.
func hostileAnswer(line []byte) map[string]any {
	var req struct {
		Batch int64 `json:"batch"`
		Cases []struct {
			ID string `json:"id"`
		} `json:"cases"`
	}
	_ = json.Unmarshal(line, &req) // a line it cannot read gets an empty answer: the oracle's harness error
	verdicts := []map[string]string{}
	for _, c := range req.Cases {
		verdicts = append(verdicts, map[string]string{"id": c.ID, "verdict": "reject", "diagnostic": hostileFirst + "\ncase " + c.ID})
	}
	return map[string]any{"batch": req.Batch, "verdicts": verdicts}
}
