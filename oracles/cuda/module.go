package cuda

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"strings"
	"unsafe"
)

// CUjit_option values (cuda.h).
const (
	jitInfoLogBuffer      = 3
	jitInfoLogBufferSize  = 4
	jitErrorLogBuffer     = 5
	jitErrorLogBufferSize = 6
	jitLogVerbose         = 12
)

// jitLogBytes is the size of each JIT log buffer. A batch of a few hundred
// rejected entries writes a few dozen KiB; longer logs are cut, and the
// cases the cut hides are judged again in a smaller batch.
const jitLogBytes = 256 << 10

// loadModule JIT-compiles PTX text with cuModuleLoadDataEx (the context
// must be current) and returns the module and the JIT's logs: the error
// log, then the info log, as one text. A failed load returns its *Error
// with the logs, which say why.
func loadModule(drv *Driver, ptx string) (uintptr, string, error) {
	image := cbytes(len(ptx) + 1) // NUL-terminated
	copy(image, ptx)
	errLog, infoLog := cbytes(jitLogBytes), cbytes(jitLogBytes)
	opts := cbytes(4 * 4) // CUjit_option[4] (enum: 4 bytes each)
	vals := cbytes(8 * 4) // void*[4]
	for i, o := range []uint32{jitErrorLogBuffer, jitErrorLogBufferSize, jitInfoLogBuffer, jitInfoLogBufferSize} {
		binary.LittleEndian.PutUint32(opts[4*i:], o)
	}
	*(*uintptr)(unsafe.Pointer(&vals[0])) = uintptr(unsafe.Pointer(&errLog[0]))
	binary.LittleEndian.PutUint64(vals[8:], jitLogBytes)
	*(*uintptr)(unsafe.Pointer(&vals[16])) = uintptr(unsafe.Pointer(&infoLog[0]))
	binary.LittleEndian.PutUint64(vals[24:], jitLogBytes)
	var mod uintptr
	r := drv.moduleLoadDataEx(&mod, unsafe.Pointer(&image[0]), 4, unsafe.Pointer(&opts[0]), unsafe.Pointer(&vals[0]))
	runtime.KeepAlive(image)
	runtime.KeepAlive(errLog)
	runtime.KeepAlive(infoLog)
	logs := joinLogs(cString(errLog), cString(infoLog))
	if err := drv.check("cuModuleLoadDataEx", r); err != nil {
		return 0, logs, err
	}
	return mod, logs, nil
}

// cString is the text of b up to its first NUL.
func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return string(b[:i])
	}
	return string(b)
}

// joinLogs puts the error log before the info log, skipping empty ones.
func joinLogs(logs ...string) string {
	var parts []string
	for _, l := range logs {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "\n")
}
