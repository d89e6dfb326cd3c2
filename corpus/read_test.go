package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFileRefusesWhatIsNotACase(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, MaxFile+1), 0o644); err != nil {
		t.Fatal(err)
	}
	ok := filepath.Join(dir, "ok.json")
	if err := os.WriteFile(ok, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{fifo, "named pipe"}, {zero, "device"}, {dir, "directory"}, {big, "larger than 16 MiB"},
	} {
		if _, err := ReadFile(tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadFile(%s) = %v, want an error saying %q", filepath.Base(tc.path), err, tc.want)
		}
	}
	if data, err := ReadFile(ok); err != nil || string(data) != "{}" {
		t.Errorf("ReadFile(ok.json) = %q, %v", data, err)
	}
}
