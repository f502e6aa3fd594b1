package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// BenchmarkServeSoak runs the real `parley serve` binary for a soak: 10,000
// OpenAI-door requests (model chatgpt, one agent, a new saved session
// each), then 1,000 API exchanges (a session, a message, its events until
// exchange_finished), from four clients at once, against the wire-level
// OpenAI fake on loopback. For each thousand it reports the server's RSS,
// its CPU per request (from /proc: the server process alone) and the
// slowest request; then requests every 250 ms while the thousands of
// sessions the soak left go idle and are unloaded (past serve's IdleAfter,
// a minute), the slowest of them; then the RSS after 60 s idle and the
// idle CPU over its last 30 s. The floor is the fake answering the same
// requests directly (the bench process's CPU per request: client and fake).
//
//	go test -run '^$' -bench BenchmarkServeSoak -benchtime 1x -timeout 30m ./cmd/parley/
//
// PARLEY_SOAK_DOOR and PARLEY_SOAK_API scale it (default 10000 and 1000),
// PARLEY_SOAK_UNLOAD the probing while sessions unload (default 75s) and
// PARLEY_SOAK_IDLE the idle wait (default 60s, at least 30s). What holds
// the memory and the CPU is profiled in-process (docs/benchmarks.md).
func BenchmarkServeSoak(b *testing.B) {
	doorN, apiN := envInt("PARLEY_SOAK_DOOR", 10000), envInt("PARLEY_SOAK_API", 1000)
	idle, unload := envDuration("PARLEY_SOAK_IDLE", time.Minute), envDuration("PARLEY_SOAK_UNLOAD", 75*time.Second)
	idle = max(idle, 30*time.Second)
	fake := providertest.OpenAI(b, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: "A short answer from the fake.", Usage: providers.Usage{InputTokens: 40, OutputTokens: 8}}
	})
	for range b.N {
		srv := startSoakServer(b, fake.URL)
		c := &soakClient{http: &http.Client{Timeout: 5 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 8}}, base: srv.base}

		floorCPU := selfCPU()
		c.run(b, 1000, func(i int) error { return c.direct(fake.URL, i) })
		floor := (selfCPU() - floorCPU) / 1000
		b.Logf("floor: the fake answering the door's request directly, %.3f ms CPU a request (client and fake)", ms(floor))

		// What the server read and wrote for each thousand (/proc/PID/io)
		// is counted, not timed: it shows what grows with the database
		// apart from the machine's load, which moves the CPU a request
		// costs by more than the 1.2× the goal allows.
		fmt.Printf("%-12s %8s %12s %9s %9s %10s\n", "requests", "RSS MB", "CPU ms/req", "read KB", "write KB", "slowest")
		var first, last time.Duration
		var firstRSS float64
		phase := func(what string, n int, send func(int) error) {
			for k := 0; k < n; k += 1000 {
				m := min(1000, n-k)
				cpu0, io0 := srv.cpu(b), srv.io(b)
				slowest := c.run(b, m, func(i int) error { return send(k + i) })
				per := (srv.cpu(b) - cpu0) / time.Duration(m)
				io := srv.io(b).minus(io0)
				rss := srv.rssMB(b)
				fmt.Printf("%-12s %8.1f %12.3f %9.1f %9.1f %10s\n", fmt.Sprintf("%s %d", what, k+m), rss, ms(per),
					float64(io.read)/1024/float64(m), float64(io.written)/1024/float64(m), slowest.Round(time.Millisecond))
				if first == 0 {
					first, firstRSS = per, rss
				}
				last = per
			}
		}
		phase("door", doorN, c.door)
		doorLast := last
		phase("api", apiN, c.exchange)

		// The soak's sessions go idle and are unloaded (IdleAfter, then the
		// idle sweep); a request every 250 ms meanwhile.
		var slowest time.Duration
		until := time.Now().Add(unload)
		for i := 0; time.Now().Before(until); i++ {
			t0 := time.Now()
			if err := c.door(doorN + apiN + i); err != nil {
				b.Fatal(err)
			}
			slowest = max(slowest, time.Since(t0))
			time.Sleep(250 * time.Millisecond) // the pace of the probe, not a synchronisation
		}
		rssUnloaded := srv.rssMB(b)
		b.Logf("while the idle sessions were unloaded (%s, a request every 250 ms): slowest %s, RSS after %.1f MB", unload, slowest.Round(time.Millisecond), rssUnloaded)

		time.Sleep(idle - 30*time.Second) // idle: nothing is sent
		cpu0 := srv.cpu(b)
		time.Sleep(30 * time.Second)
		idleCPU := float64(srv.cpu(b)-cpu0) / float64(30*time.Second) * 100
		rssIdle := srv.rssMB(b)
		t0 := time.Now()
		if err := c.door(-1); err != nil {
			b.Fatal(err)
		}
		after := time.Since(t0)
		b.Logf("after %s idle: RSS %.1f MB (first thousand %.1f MB, +%.1f), idle CPU %.2f %% of a core, then a request in %s",
			idle, rssIdle, firstRSS, rssIdle-firstRSS, idleCPU, after.Round(time.Millisecond))
		b.Logf("door CPU a request: first thousand %.3f ms, last %.3f ms (%.2f×); floor %.3f ms", ms(first), ms(doorLast), float64(doorLast)/float64(first), ms(floor))
		b.ReportMetric(ms(doorLast), "door-ms/req")
		b.ReportMetric(ms(floor), "floor-ms/req")
		b.ReportMetric(rssIdle, "idle-RSS-MB")
		b.ReportMetric(rssIdle-firstRSS, "RSS-growth-MB")
		b.ReportMetric(idleCPU, "idle-CPU-%")
		b.ReportMetric(float64(max(slowest, after))/1e6, "slowest-ms")
		srv.stop(b)
	}
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil && d > 0 {
		return d
	}
	return def
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// selfCPU is this process's CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// soakServer is a `parley serve` process.
type soakServer struct {
	cmd  *exec.Cmd
	base string
}

func startSoakServer(b *testing.B, fakeURL string) *soakServer {
	b.Helper()
	dir := b.TempDir()
	yaml := "providers:\n  openai: {type: openai, base_url: " + fakeURL + ", api_key_env: PARLEY_TEST_OPENAI_KEY, max_retries: 0}\n"
	if err := os.WriteFile(filepath.Join(dir, "parley.yaml"), []byte(yaml), 0o600); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(buildParley(b), "--db", filepath.Join(dir, "parley.db"), "serve", "--addr", "127.0.0.1:0", "--rate-limit", "1000000")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"PARLEY_CACHE_DIR="+filepath.Join(dir, "cache"), "PARLEY_TEST_OPENAI_KEY=k", "OPENAI_API_KEY=", "PARLEY_DB=")
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		_ = cmd.Process.Kill()
		b.Fatalf("parley serve: %q %v\n%s", line, err, errOut.String())
	}
	return &soakServer{cmd: cmd, base: addr}
}

func (s *soakServer) stop(b *testing.B) {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	if err := s.cmd.Wait(); err != nil {
		b.Logf("parley serve: %v", err)
	}
}

// cpu is the server's CPU time so far (user and system, all threads).
func (s *soakServer) cpu(b *testing.B) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ = 100
}

// ioCount is what a process read and wrote through system calls
// (/proc/PID/io's rchar and wchar: files, sockets and pipes alike).
type ioCount struct{ read, written int64 }

func (a ioCount) minus(b ioCount) ioCount { return ioCount{a.read - b.read, a.written - b.written} }

// io is what the server read and wrote so far.
func (s *soakServer) io(b *testing.B) ioCount {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", s.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	var c ioCount
	for line := range strings.Lines(string(data)) {
		name, value, _ := strings.Cut(strings.TrimSpace(line), ": ")
		n, _ := strconv.ParseInt(value, 10, 64)
		switch name {
		case "rchar":
			c.read = n
		case "wchar":
			c.written = n
		}
	}
	return c
}

// rssMB is the server's resident memory.
func (s *soakServer) rssMB(b *testing.B) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	b.Fatal("no VmRSS")
	return 0
}

// soakClient sends the soak's requests.
type soakClient struct {
	http *http.Client
	base string
}

// run sends n requests from four workers; it returns the slowest.
func (c *soakClient) run(b *testing.B, n int, send func(int) error) time.Duration {
	var mu sync.Mutex
	var slowest time.Duration
	var failed error
	next := make(chan int)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := range next {
				t0 := time.Now()
				err := send(i)
				d := time.Since(t0)
				mu.Lock()
				slowest = max(slowest, d)
				if err != nil && failed == nil {
					failed = err
				}
				mu.Unlock()
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	if failed != nil {
		b.Fatal(failed)
	}
	return slowest
}

func (c *soakClient) post(url string, body any, want int) ([]byte, error) {
	data, _ := json.Marshal(body)
	resp, err := c.http.Post(url, "application/json", bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != want {
		err = fmt.Errorf("POST %s: %d %s", url, resp.StatusCode, out)
	}
	return out, err
}

func doorBody(i int) map[string]any {
	return map[string]any{"model": "chatgpt", "messages": []map[string]string{{"role": "user", "content": "question " + strconv.Itoa(i)}}}
}

// door is one OpenAI-door completion: a new saved session.
func (c *soakClient) door(i int) error {
	_, err := c.post(c.base+"/v1/chat/completions", doorBody(i), http.StatusOK)
	return err
}

// direct is the same request sent to the fake itself (the floor).
func (c *soakClient) direct(fakeURL string, i int) error {
	body := doorBody(i)
	body["model"] = "gpt-6.1-sol"
	body["stream"] = true
	_, err := c.post(fakeURL+"/chat/completions", body, http.StatusOK)
	return err
}

// exchange is one API exchange: a session, its event stream, a message,
// and the events until exchange_finished.
func (c *soakClient) exchange(i int) error {
	out, err := c.post(c.base+"/api/v1/sessions", map[string]any{"mode": "mention"}, http.StatusCreated)
	if err != nil {
		return err
	}
	var created struct {
		Session struct{ ID string } `json:"session"`
	}
	if err := json.Unmarshal(out, &created); err != nil || created.Session.ID == "" {
		return fmt.Errorf("POST /api/v1/sessions: %s", out)
	}
	id := created.Session.ID
	resp, err := c.http.Get(c.base + "/api/v1/sessions/" + id + "/events")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := c.post(c.base+"/api/v1/sessions/"+id+"/messages", map[string]string{"text": "@chatgpt question " + strconv.Itoa(i)}, http.StatusAccepted); err != nil {
		return err
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if sc.Text() == "event: exchange_finished" {
			return nil
		}
	}
	return fmt.Errorf("session %s: the events ended before exchange_finished (%v)", id, sc.Err())
}
