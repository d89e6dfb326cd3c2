//go:build !linux

package tool

import "syscall"

// ChildAttr starts a child in its own process group; only Linux can also
// have it killed when legalfuzz dies.
func ChildAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
