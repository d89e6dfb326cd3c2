//go:build linux

package exec

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// endMarked kills every process whose environment holds mark (markEnv=token,
// inherited from the verifier): its descendants, whatever session or
// process group they moved to and whoever adopted them, and it reports how
// many it killed. It scans /proc; a process it may not read is not ours.
func endMarked(mark string) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	want := []byte(mark + "\x00")
	n := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(append(env, 0), want) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}
