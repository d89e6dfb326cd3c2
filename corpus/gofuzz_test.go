package corpus

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGoRoundTrip(t *testing.T) {
	for _, data := range [][]byte{nil, {0}, []byte("a\"b\\c\n"), {0xff, 0x00, 0x80}} {
		got, err := DecodeGo(EncodeGo(data))
		if err != nil {
			t.Fatalf("DecodeGo(EncodeGo(%q)): %v", data, err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("round trip %q -> %q", data, got)
		}
	}
}

func TestDecodeGoRejects(t *testing.T) {
	for name, file := range map[string]string{
		"no header":   "[]byte(\"x\")\n",
		"two values":  "go test fuzz v1\n[]byte(\"x\")\n[]byte(\"y\")\n",
		"wrong type":  "go test fuzz v1\nint(3)\n",
		"bad literal": "go test fuzz v1\n[]byte(\"x)\n",
		"empty":       "",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := DecodeGo([]byte(file)); err == nil {
				t.Fatalf("DecodeGo(%q) = nil error, want one", file)
			}
		})
	}
}

// TestReadGoDirKeepsGoing checks that a corrupt file is reported with its path
// and the good files are still read.
func TestReadGoDirKeepsGoing(t *testing.T) {
	dir := t.TempDir()
	if _, err := WriteGo(dir, "good", []byte{1, 2}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	inputs, err := ReadGoDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) != 2 {
		t.Fatalf("got %d inputs, want 2", len(inputs))
	}
	for _, in := range inputs {
		switch filepath.Base(in.Path) {
		case "bad":
			if in.Err == nil || !strings.Contains(in.Err.Error(), "bad") {
				t.Errorf("bad file: err = %v, want an error naming the file", in.Err)
			}
		case "good":
			if in.Err != nil || !bytes.Equal(in.Data, []byte{1, 2}) {
				t.Errorf("good file: %v %v", in.Data, in.Err)
			}
		}
	}
}
