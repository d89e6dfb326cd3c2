package exec

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
)

// Spec is one user-configured verifier: the oracle is named "exec:"+Name and
// runs Argv. Specs come from the user's own configuration only, never from
// job content, because they name programs to run.
type Spec struct {
	// Name is the user's handle for the verifier, e.g. "mycheck".
	Name string
	// Argv is the program and its arguments; Argv[0] is looked up on PATH
	// when it has no slash.
	Argv []string
}

// OracleName is "exec:"+Name.
func (s Spec) OracleName() string { return oracles.ExecPrefix + s.Name }

// validName keeps names usable as one token of a NATS subject
// (jobs.<oracle>.<domain>) and a file name: no dots, spaces or wildcards.
var validName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// ParseSpec parses "NAME=COMMAND", e.g. "mycheck=/path/to/verifier --flag".
// COMMAND is split into arguments without a shell: whitespace separates
// arguments, single quotes keep text literally, double quotes keep text with
// \" and \\ escapes, and a backslash outside quotes escapes the next
// character. Nothing is expanded ($VAR, ~, globs), so a spec runs exactly
// the program it names.
func ParseSpec(s string) (Spec, error) {
	name, command, ok := strings.Cut(s, "=")
	if !ok {
		return Spec{}, fmt.Errorf("exec spec %q: want NAME=COMMAND", s)
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return Spec{}, fmt.Errorf("exec spec %q: empty name", s)
	}
	if !validName.MatchString(name) {
		return Spec{}, fmt.Errorf("exec spec %q: name %q: use only letters, digits, _ and -", s, name)
	}
	argv, err := splitArgs(command)
	if err != nil {
		return Spec{}, fmt.Errorf("exec spec %q: %w", s, err)
	}
	if len(argv) == 0 {
		return Spec{}, fmt.Errorf("exec spec %q: empty command", s)
	}
	return Spec{Name: name, Argv: argv}, nil
}

// errUnterminated reports a quote left open.
var errUnterminated = errors.New("unterminated quote in command")

// splitArgs splits a command line into arguments as ParseSpec documents.
func splitArgs(s string) ([]string, error) {
	var (
		args  []string
		cur   strings.Builder
		inArg bool // an argument has started (possibly empty: '')
		quote rune // the open quote, or 0
	)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			if r == '\\' && i+1 < len(rs) && (rs[i+1] == '"' || rs[i+1] == '\\') {
				i++
				cur.WriteRune(rs[i])
			} else if r == '"' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inArg = r, true
		case r == '\\' && i+1 < len(rs):
			i++
			cur.WriteRune(rs[i])
			inArg = true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteRune(r)
			inArg = true
		}
	}
	if quote != 0 {
		return nil, errUnterminated
	}
	if inArg {
		args = append(args, cur.String())
	}
	return args, nil
}
