package corpus

import (
	"fmt"
	"io"
	"os"
)

// MaxFile bounds every case or corpus file legalfuzz reads: far above any
// real case, so /dev/zero or a runaway file is an error, not an
// out-of-memory crash.
const MaxFile = 16 << 20

// ReadFile reads a regular file of at most MaxFile bytes. Devices, FIFOs
// and sockets are refused before they are opened (a FIFO would block), also
// behind a symbolic link.
func ReadFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file but a %s", path, kind(st.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, path)
}

// ReadAll reads r to its end, refusing more than MaxFile bytes; name says
// what r is in the error.
func ReadAll(r io.Reader, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFile+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(data) > MaxFile {
		return nil, fmt.Errorf("%s: larger than %d MiB, not a case", name, MaxFile>>20)
	}
	return data, nil
}

// kind names what a file that is not a regular file is.
func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&os.ModeNamedPipe != 0:
		return "named pipe"
	case m&os.ModeSocket != 0:
		return "socket"
	case m&os.ModeDevice != 0:
		return "device"
	}
	return "special file"
}
