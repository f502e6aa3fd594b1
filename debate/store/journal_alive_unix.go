//go:build unix

package store

import (
	"errors"
	"syscall"
)

// processAlive asks the kernel whether pid runs (signal 0 checks without
// sending): EPERM means it runs under another user.
func processAlive(pid int) (alive, known bool) {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM), true
}
