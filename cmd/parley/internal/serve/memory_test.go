package serve

import (
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// aloneEnv marks the process alone runs a test in.
const aloneEnv = "PARLEY_SERVE_TEST_ALONE"

// alone runs t in a process of its own, this test binary run again for t
// only, and reports whether the caller is that process (it goes on with the
// test). Otherwise t is parallel: it waits for the other process, logs its
// output and fails with it. A test whose measure is the whole process's
// (the live heap) needs no other test running beside it, and none waits
// behind it.
func alone(t *testing.T) bool {
	t.Helper()
	if os.Getenv(aloneEnv) == t.Name() {
		return true
	}
	t.Parallel()
	args := []string{"-test.run=^" + regexp.QuoteMeta(t.Name()) + "$", "-test.count=1", "-test.v"}
	if d, ok := t.Deadline(); ok {
		args = append(args, "-test.timeout="+time.Until(d).Round(time.Second).String())
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), aloneEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	t.Logf("%s alone, in process %d:\n%s", t.Name(), cmd.Process.Pid, out)
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()+" ") {
		t.Fatalf("%s alone: %v (it did not pass)", t.Name(), err)
	}
	return false
}

// liveHeap is the heap that survives a collection.
func liveHeap() uint64 {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// doorRequest is one OpenAI-door completion: a new saved session each.
func doorRequest(f *fixture, i int) (int, []byte) {
	return f.do("POST", "/v1/chat/completions", map[string]any{"model": "chatgpt",
		"messages": []map[string]string{{"role": "user", "content": "question " + strconv.Itoa(i)}}})
}

// burst sends n requests from four clients at once; each reports its failure.
func burst(t *testing.T, n int, send func(i int) (int, []byte)) {
	t.Helper()
	var wg sync.WaitGroup
	next := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range next {
				if code, body := send(i); code != 200 && code != 202 {
					t.Errorf("request %d: %d %s", i, code, body)
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// A server's memory returns after a burst: 2,000 OpenAI-door requests and
// 200 API exchanges leave the live heap near where it was (each door
// request used to leave ~580 KB: a history block and an event ring
// allocated whole, never unloaded). The database holds the sessions; the
// sessions live afterwards are no more than MaxLive.
//
// The live heap is the whole process's: the test runs alone, in a process
// of its own (see alone), while the package's other tests run beside it.
func TestMemoryReturnsAfterABurst(t *testing.T) {
	if testing.Short() {
		t.Skip("2,200 requests")
	}
	if !alone(t) {
		return
	}
	const maxLive = 16
	f := newFixture(t, func(o *Options) { o.MaxLive, o.IdleAfter = maxLive, time.Nanosecond })
	exchange := func(i int) (int, []byte) {
		id := f.createSession(map[string]any{"mode": "mention"})
		code, body := f.do("POST", "/api/v1/sessions/"+id+"/messages", map[string]string{"text": "@chatgpt hi " + strconv.Itoa(i)})
		f.waitIdle(id)
		return code, body
	}
	send := func(i int) (int, []byte) { return doorRequest(f, i) }
	burst(t, 50, send) // warm: pools, caches, the first sessions
	burst(t, 20, exchange)
	f.srv.sessions.evict()
	base := liveHeap()

	burst(t, 2000, send)
	burst(t, 200, exchange)
	f.srv.sessions.evict()
	after := liveHeap()
	if path := os.Getenv("PARLEY_HEAP_PROFILE"); path != "" { // what holds it (docs/benchmarks.md)
		out, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := pprof.Lookup("heap").WriteTo(out, 0); err != nil {
			t.Fatal(err)
		}
		_ = out.Close()
	}

	f.srv.sessions.mu.Lock()
	live, loading := len(f.srv.sessions.live), len(f.srv.sessions.loading)
	f.srv.sessions.mu.Unlock()
	t.Logf("live heap %.1f MB before, %.1f MB after; %d sessions live", float64(base)/1e6, float64(after)/1e6, live)
	if live > maxLive || loading > maxLive {
		t.Errorf("%d sessions live, %d loading locks after the burst (MaxLive %d)", live, loading, maxLive)
	}
	if after > base+12<<20 {
		t.Errorf("the live heap grew from %.1f MB to %.1f MB over the burst (want within 12 MB)", float64(base)/1e6, float64(after)/1e6)
	}
}

// However fast sessions come, no more than hardLive × MaxLive stay in
// memory: past it recency protects none (issue 50: at 100 OpenAI-door
// requests a second a server held the 6,000 sessions of the last minute,
// 400 MB); the most recent stay, and nothing idle for IdleAfter is needed
// to unload them.
func TestLiveSessionsAreBoundedWhateverTheRate(t *testing.T) {
	const maxLive = 3
	f := newFixture(t, func(o *Options) { o.MaxLive, o.IdleAfter = maxLive, time.Hour })
	var last string
	for i := range 40 {
		code, body := doorRequest(f, i)
		if code != 200 {
			t.Fatalf("request %d: %d %s", i, code, body)
		}
		var resp struct {
			Parley struct {
				SessionID string `json:"session_id"`
			} `json:"parley"`
		}
		if err := json.Unmarshal(body, &resp); err != nil || resp.Parley.SessionID == "" {
			t.Fatalf("request %d: no session in %s", i, body)
		}
		last = resp.Parley.SessionID
	}
	f.srv.sessions.evict()
	f.srv.sessions.mu.Lock()
	live, kept := len(f.srv.sessions.live), f.srv.sessions.live[last] != nil
	f.srv.sessions.mu.Unlock()
	if live > hardLive*maxLive || live < maxLive || !kept {
		t.Fatalf("%d sessions live after 40 (MaxLive %d, at most %d), the latest kept: %v", live, maxLive, hardLive*maxLive, kept)
	}
}
