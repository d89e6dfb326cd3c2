package repro

import (
	"path/filepath"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/replay"
)

// planStages replays a round trip by hand, so that the log shows each
// tool's own words: the first step writes what the others read (the sass
// oracle's cubin). A reader's failure is judged from its exit status and
// output; a disagreement or dropped work, which needs the outputs
// compared, from legalfuzz check's verdict.
func planStages(s *replay.Script, c replay.Case, steps []oracles.Step) {
	lines := make([]string, len(steps))
	for i, st := range steps {
		lines[i] = stepLine(s, st)
	}
	first := steps[0]
	what := strings.TrimPrefix(filepath.Ext(strings.Trim(first.Output, `"`)), ".")
	s.Add(lines[0], `[ "$rc" -eq 0 ] || fixed "`+first.Name+` no longer writes the `+what+`"`)
	st := oracles.ParseStage(c.Observed.Rule)
	for i := 1; i < len(steps); i++ {
		s.Add(lines[i])
		if steps[i].Name == st.Name {
			judgeReader(s, steps[i].Name, "the "+what+" "+first.Name+" wrote", st.Fault)
			s.Add(`fixed "` + steps[i].Name + ` read the ` + what + `"`)
			return
		}
	}
	replay.Check(s, c)
}

// judgeReader ends the script on a reader's run: the bug shows when it
// crashed, refused its input or printed an error.
func judgeReader(s *replay.Script, name, input string, fault oracles.Fault) {
	switch fault {
	case oracles.Refused:
		s.Add(`[ "$rc" -ne 0 ] && reproduces "` + name + ` refused ` + input + `"`)
	case oracles.ExitZero:
		s.Add(`grep -qiE '(error|fatal)' "$work/` + name + `.out" && reproduces "` + name + ` printed an error and exited 0"`)
	default:
		s.Add(`crashed ` + name + ` && reproduces "` + name + ` crashed, as it did in the campaign"`)
	}
}
