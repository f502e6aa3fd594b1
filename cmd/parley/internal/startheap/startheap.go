// Package startheap lets a process grow its heap to 16 MB before the
// garbage collector's first cycle, then collects as configured.
//
// The collector's first goal is 4 MB of heap. The package initialisers
// allocate ~2 MB before main, and one `parley ask` a little over 3 MB in
// all, so nearly every command paid one collection (~1.5 ms of CPU, a fifth
// of what it spent after start-up) for a heap that is dropped at exit
// anyway. The Go compiler does the same for the same reason
// (cmd/compile/internal/base.AdjustStartingHeap). A long-running command
// (serve, the console, mcp) collects as usual after its first 16 MB.
package startheap

import (
	"runtime"
	"runtime/debug"
)

// percent is the GOGC that holds the first cycle until 16 MB: the runtime
// scales its 4 MB minimum heap with it.
const percent = 400

// sentinel is an object whose finalizer runs after the first collection;
// it has a pointer so that it is not a tiny allocation (whose finalizer may
// never run).
type sentinel struct{ _ *int }

// Raise sets GOGC to 400 until the first collection, then back to what it
// was (GOGC from the environment, 100 by default). A GOGC already at or
// above 400, or off, is left as it is. done, when not nil, is called once
// GOGC is restored (tests wait for it).
func Raise(done func()) {
	prev := debug.SetGCPercent(percent)
	if prev < 0 || prev >= percent {
		debug.SetGCPercent(prev)
		return
	}
	runtime.SetFinalizer(new(sentinel), func(*sentinel) {
		debug.SetGCPercent(prev)
		if done != nil {
			done()
		}
	})
}
