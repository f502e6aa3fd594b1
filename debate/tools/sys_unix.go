//go:build unix

package tools

import (
	"os"
	"syscall"
)

// nonBlock keeps an open of a named pipe from waiting for a writer.
const nonBlock = syscall.O_NONBLOCK

// linkCount is how many names (hard links) a file has.
func linkCount(st os.FileInfo) uint64 {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Nlink)
	}
	return 1
}
