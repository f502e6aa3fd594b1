//go:build unix

package tools

import "syscall"

// nonBlock keeps an open of a named pipe from waiting for a writer.
const nonBlock = syscall.O_NONBLOCK
