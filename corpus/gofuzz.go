// Package corpus reads and writes fuzz corpora: Go's native "go test fuzz v1"
// files and the go-fuzz convention (a folder of raw inputs, one file each).
package corpus

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// goFuzzHeader is the first line of every Go native corpus file.
const goFuzzHeader = "go test fuzz v1"

// EncodeGo renders one []byte input as a Go native corpus file.
func EncodeGo(data []byte) []byte {
	return fmt.Appendf(nil, "%s\n[]byte(%s)\n", goFuzzHeader, strconv.Quote(string(data)))
}

// DecodeGo parses a Go native corpus file holding exactly one []byte value,
// the shape of every legalfuzz fuzz target.
func DecodeGo(file []byte) ([]byte, error) {
	lines := strings.Split(strings.TrimRight(string(file), "\n"), "\n")
	if len(lines) == 0 || lines[0] != goFuzzHeader {
		return nil, fmt.Errorf("not a Go fuzz corpus file: first line must be %q", goFuzzHeader)
	}
	if len(lines) != 2 {
		return nil, fmt.Errorf("want one []byte value, got %d lines of values", len(lines)-1)
	}
	arg := strings.TrimSpace(lines[1])
	inner, ok := strings.CutPrefix(arg, "[]byte(")
	if !ok || !strings.HasSuffix(inner, ")") {
		return nil, fmt.Errorf("want a []byte(...) value, got %.40q", arg)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(inner, ")"))
	if err != nil {
		return nil, fmt.Errorf("bad []byte literal: %w", err)
	}
	return []byte(s), nil
}

// Input is one corpus entry: its file path and decoded bytes, or the error
// that made it unreadable.
type Input struct {
	Path string
	Data []byte
	Err  error
}

// ReadGoDir reads every file of a Go native corpus folder. A bad file is an
// Input with Err set; the rest are still read. A missing folder is no inputs.
func ReadGoDir(dir string) ([]Input, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read corpus %s: %w", dir, err)
	}
	var inputs []Input
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		in := Input{Path: path}
		raw, err := ReadFile(path)
		if err == nil {
			in.Data, err = DecodeGo(raw)
		}
		if err != nil {
			in.Err = fmt.Errorf("%s: %w", path, err)
		}
		inputs = append(inputs, in)
	}
	return inputs, nil
}

// WriteGo writes data as a Go native corpus file named name in dir, and
// reports whether the file changed.
func WriteGo(dir, name string, data []byte) (bool, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	path := filepath.Join(dir, name)
	want := EncodeGo(data)
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, want) {
		return false, nil
	}
	return true, os.WriteFile(path, want, 0o644)
}
