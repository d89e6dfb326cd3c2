package corpus

import (
	"bytes"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// LoadFile reads one case file in any format legalfuzz knows: a Go native
// corpus file ("go test fuzz v1"), a JSON case (.json), or a go-fuzz raw
// input (anything else, decoded as fuzz bytes).
func LoadFile(d domain.Domain, path string) (domain.Case, error) {
	raw, err := ReadFile(path)
	if err != nil {
		return domain.Case{}, err
	}
	var v domain.Value
	switch {
	case bytes.HasPrefix(raw, []byte(goFuzzHeader)):
		data, derr := DecodeGo(raw)
		if derr != nil {
			return domain.Case{}, fmt.Errorf("%s: %w", path, derr)
		}
		v, err = d.Decode(data)
	case strings.HasSuffix(path, ".json"):
		v, err = d.ParseJSON(raw)
	default:
		v, err = d.Decode(raw)
	}
	if err != nil {
		return domain.Case{}, fmt.Errorf("%s: %w", path, err)
	}
	return domain.NewCase(d.Name, v), nil
}

// Loaded is what a load produced: unique cases in first-seen order, how many
// files were duplicates of a case already loaded, and one error per bad file.
type Loaded struct {
	Cases []domain.Case
	// Paths[i] is the file Cases[i] was read from.
	Paths      []string
	Duplicates int
	Problems   []error
}

// Load reads cases of domain d from files and folders (recursively). Bad files
// are reported in Problems and the load goes on; cases are deduplicated by ID.
func Load(d domain.Domain, paths []string) Loaded {
	var l Loaded
	seen := map[string]bool{}
	for _, root := range paths {
		err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				l.Problems = append(l.Problems, err)
				return nil
			}
			if e.IsDir() {
				return nil
			}
			c, err := LoadFile(d, path)
			if err != nil {
				l.Problems = append(l.Problems, err)
				return nil
			}
			if seen[c.ID] {
				l.Duplicates++
				return nil
			}
			seen[c.ID] = true
			l.Cases = append(l.Cases, c)
			l.Paths = append(l.Paths, path)
			return nil
		})
		if err != nil {
			l.Problems = append(l.Problems, err)
		}
	}
	return l
}
