package startheap

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// Raise holds GOGC at 400 until a collection, then restores the value it
// found. (Not parallel: GOGC is the process's.)
func TestRaiseRestoresAfterTheFirstCollection(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	restored := make(chan struct{})
	Raise(func() { close(restored) })
	if got := debug.SetGCPercent(percent); got != percent {
		t.Fatalf("GOGC after Raise = %d, want %d", got, percent)
	}
	deadline := time.After(30 * time.Second)
	for {
		runtime.GC() // the finalizer is queued by a cycle and runs on its own goroutine
		select {
		case <-restored:
			if got := debug.SetGCPercent(100); got != 100 {
				t.Fatalf("GOGC after the first collection = %d, want 100 restored", got)
			}
			return
		case <-deadline:
			t.Fatal("GOGC was not restored within 30 s of collections")
		default:
			runtime.Gosched()
		}
	}
}

// GOGC=off, or one already higher, is the user's and stays.
func TestRaiseKeepsAnOffOrHigherGOGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	for _, gogc := range []int{-1, percent, 800} {
		debug.SetGCPercent(gogc)
		Raise(nil)
		if got := debug.SetGCPercent(100); got != gogc {
			t.Errorf("GOGC %d after Raise = %d, want it kept", gogc, got)
		}
	}
}
