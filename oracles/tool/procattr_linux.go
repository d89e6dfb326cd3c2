package tool

import "syscall"

// ChildAttr is how legalfuzz starts every tool, verifier and fuzz engine:
// in its own process group (so a timeout kills the whole tree), and killed
// by the kernel when legalfuzz dies, so a SIGKILLed worker leaves no
// orphaned ptxas or fuzz engine behind.
func ChildAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
