package wiring

import (
	"fmt"
	"io"
	"sync"
)

// SaveStatus is how a run learns that its session could not be saved (a
// locked or full database): the failure is printed once, when it first
// happens, and the process then exits non-zero whatever the command's
// own outcome, so a script never takes a lost session for a saved one.
type SaveStatus struct {
	once   sync.Once
	mu     sync.Mutex
	failed error
}

// fail records err and prints it on w the first time only.
func (s *SaveStatus) fail(w io.Writer, err error) {
	s.once.Do(func() {
		s.mu.Lock()
		s.failed = err
		s.mu.Unlock()
		fmt.Fprintln(w, "parley: saving the session failed:", err)
	})
}

// Err is the first save failure, nil when every save went through.
func (s *SaveStatus) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}
