package ptx

import (
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Reproduction is the replay input every PTX tool reads: the case as a
// one-entry module in oracles.PTXFile, or a note that PTX cannot spell it.
func Reproduction(c domain.Case) oracles.Reproduction {
	text, err := caseModule(c)
	if err != nil {
		return oracles.NotWritten(oracles.PTXFile, err.Error())
	}
	return oracles.Reproduction{Files: []oracles.ReproFile{{Name: oracles.PTXFile, Text: text}}, Input: oracles.PTXFile}
}

// caseModule renders the case as a one-entry PTX module for its target.
func caseModule(c domain.Case) (string, error) {
	if !Renders(c.Domain) {
		return "", fmt.Errorf("no PTX renderer for domain %s", c.Domain)
	}
	e, err := Render(c)
	if err != nil {
		return "", err
	}
	text, _, err := Module([]Entry{e})
	return text, err
}

// Subject is the opcode, with its qualifiers, of the first instruction of
// the bundle's PTX module that starts with prefix: what an issue about a
// PTX tool names.
func Subject(read func(string) string, _, prefix string) string {
	if prefix == "" {
		return ""
	}
	for _, line := range strings.Split(read(oracles.PTXFile), "\n") {
		fields := strings.Fields(line)
		if len(fields) > 1 && strings.HasPrefix(fields[0], "@") { // a guard predicate
			fields = fields[1:]
		}
		if len(fields) > 0 && strings.Contains(fields[0], prefix) && !strings.HasPrefix(fields[0], ".") {
			return strings.TrimSuffix(fields[0], ";")
		}
	}
	return ""
}
