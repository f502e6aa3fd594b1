//go:build !unix

package tools

// nonBlock: pipes cannot be opened by name this way on other systems.
const nonBlock = 0
