package stress

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles/exec"
)

// HostileOracle is the soak's hostile verifier as the campaign names it.
const HostileOracle = "exec:hostile"

// hostileLine is the length of the first line of each of the hostile
// verifier's diagnostics: over bbolt's 32 KiB key limit (a line like it
// once blocked a campaign for good) and ten times clip.Max, what the
// worker and the coordinator keep of it (40 KiB lines once held a
// gigabyte).
const hostileLine = 40 << 10

// HostileVerifier is the soak's hostile verifier: an exec verifier
// (legalfuzz-exec/1, requests read from in, answers written to out) that
// rejects every kindword case with a diagnostic whose first line is
// hostileLine bytes, a new line per case.
func HostileVerifier(in io.Reader, out io.Writer) error {
	enc := json.NewEncoder(out)
	hello := exec.Hello{Protocol: exec.Protocol, Name: "hostile", Version: "1", Domains: []string{"kindword"}}
	if err := enc.Encode(hello); err != nil {
		return err
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		if err := enc.Encode(hostileAnswer(sc.Bytes())); err != nil {
			return err
		}
	}
	return sc.Err()
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
