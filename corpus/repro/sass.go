package repro

import (
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/ptxas"
	"github.com/legalfuzz/legalfuzz/oracles/sass"
)

// cubinFile is where a sass reproducer has ptxas write the cubin.
const cubinFile = `"$work/case.cubin"`

// renderSASS writes the module the sass oracle assembles and its three
// command lines.
func renderSASS(w *writer, c domain.Case) []string {
	if notes := renderPTX(w, c); notes != nil {
		return notes
	}
	return []string{"# CUDA 12.4's ptxas, then both disassemblers on its cubin",
		"ptxas " + strings.Join(sass.AssembleArgs(c.Value.Target().Arch.String(), "case.cubin", PTXFile), " "),
		"nvdisasm " + strings.Join(sass.NVDisasmArgs("case.cubin"), " "),
		"cuobjdump " + strings.Join(sass.CUObjdumpArgs("case.cubin"), " ")}
}

// planSASS replays the round trip by hand, so that the log shows each
// tool's own words. A disassembler's failure is judged from its exit
// status and output; a disagreement or dropped work, which needs the
// listings compared, from legalfuzz check's verdict.
func planSASS(s *script, bd Bundle) {
	obs := bd.Observed
	arch := bd.Case.Value.Target().Arch.String()
	s.add(`step ptxas `+s.need("PTXAS", ptxas.PTXAS124.Spec)+" "+strings.Join(sass.AssembleArgs(arch, cubinFile, PTXFile), " "),
		`[ "$rc" -eq 0 ] || fixed "ptxas no longer writes the cubin"`)
	dis := `step nvdisasm ` + s.need("NVDISASM", sass.NVDisasm) + " " + strings.Join(sass.NVDisasmArgs(cubinFile), " ")
	dump := `step cuobjdump ` + s.need("CUOBJDUMP", sass.CUObjdump) + " " + strings.Join(sass.CUObjdumpArgs(cubinFile), " ")
	st := oracles.ParseStage(obs.Rule)
	switch st.Name {
	case "nvdisasm":
		s.add(dis)
		judgeDisassembler(s, "nvdisasm", st.Fault)
	case "cuobjdump":
		s.add(dis, dump)
		judgeDisassembler(s, "cuobjdump", st.Fault)
	default:
		s.add(dis, dump)
		planCheck(s, bd)
	}
}

// judgeDisassembler ends the script on a disassembler's run: the bug
// shows when it crashed, refused the cubin or printed an error.
func judgeDisassembler(s *script, name string, fault oracles.Fault) {
	switch fault {
	case oracles.Refused:
		s.add(`[ "$rc" -ne 0 ] && reproduces "` + name + ` refused the cubin ptxas wrote"`)
	case oracles.ExitZero:
		s.add(`grep -qiE '(error|fatal)' "$work/` + name + `.out" && reproduces "` + name + ` printed an error and exited 0"`)
	default:
		s.add(`crashed ` + name + ` && reproduces "` + name + ` crashed, as it did in the campaign"`)
	}
	s.add(`fixed "` + name + ` read the cubin"`)
}
