//go:build !unix

package testbin

// lock is a no-op without flock: concurrent builders each write their own
// temporary file and the last rename wins, which is still a whole binary.
func lock(string) (func(), error) { return func() {}, nil }
