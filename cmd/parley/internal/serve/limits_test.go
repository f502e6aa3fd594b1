package serve

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/store"
)

// liveServer is a Server run by Serve on a loopback port, with its
// timeouts and connection caps, as parley serve runs it.
type liveServer struct {
	srv  *Server
	addr string
}

func startLive(t *testing.T, serveCfg config.ServeConfig, adjust ...func(*Options)) *liveServer {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "live.db"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := builtinConfig(t)
	cfg.Offline = true
	cfg.Serve = serveCfg
	opts := Options{Config: cfg, Agents: demoAgents, Store: st, Rate: Rate{PerMinute: 100000, Burst: 100000},
		Pages: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("static")) })}
	for _, f := range adjust {
		f(&opts)
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln, nil) }()
	t.Cleanup(func() {
		cancel()
		<-done
		_ = st.Close()
	})
	return &liveServer{srv: srv, addr: ln.Addr().String()}
}

// waitFor polls cond until it holds or a deadline sized for a loaded
// machine passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline:
			t.Fatalf("%s: not within a minute", what)
		case <-tick.C:
		}
	}
}

// Idle connections that fetched a static file are closed after the idle
// timeout: none is held (issue 31: 1,000 were still open after 150 s).
func TestIdleConnectionsAreClosed(t *testing.T) {
	ls := startLive(t, config.ServeConfig{IdleTimeout: 300 * time.Millisecond, MaxConnsPerAddr: 1000})
	const n = 200
	var conns []net.Conn
	for range n {
		c, err := net.Dial("tcp", ls.addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		fmt.Fprintf(c, "GET /static/style.css HTTP/1.1\r\nHost: %s\r\n\r\n", ls.addr)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	waitFor(t, "idle connections closed", func() bool { return ls.srv.conns.Load() == 0 })
	t.Logf("%d kept-alive connections after a static file: %d held after the idle timeout", n, ls.srv.conns.Load())
}

// A body sent a byte at a time is cut at the read timeout.
func TestSlowBodyIsCutAtTheReadTimeout(t *testing.T) {
	ls := startLive(t, config.ServeConfig{ReadTimeout: 500 * time.Millisecond})
	c, err := net.Dial("tcp", ls.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /api/v1/sessions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{", ls.addr)
	closed := make(chan struct{})
	go func() { // a byte now and then, until the server gives up
		defer close(closed)
		for {
			if _, err := c.Write([]byte(" ")); err != nil {
				return
			}
			select {
			case <-time.After(100 * time.Millisecond):
			case <-closed:
				return
			}
		}
	}()
	_ = c.SetReadDeadline(time.Now().Add(60 * time.Second))
	fmt.Fprintf(c, "GET /api/v1/sessions HTTP/1.1\r\nHost: %s\r\n\r\n", ls.addr)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestTimeout {
			t.Fatalf("slow body: status %d, want 408 or a closed connection", resp.StatusCode)
		}
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the server held a body sent a byte at a time for a minute")
	}
	c.Close()
	<-closed
}

// Past max_conns_per_addr a connection's request gets 503 with
// Retry-After; a closed one frees its place.
func TestConnectionsPerAddressAreCapped(t *testing.T) {
	ls := startLive(t, config.ServeConfig{MaxConnsPerAddr: 5, ReadHeaderTimeout: 10 * time.Minute, IdleTimeout: 10 * time.Minute})
	var held []net.Conn
	for range 5 {
		c, err := net.Dial("tcp", ls.addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	waitFor(t, "5 connections accepted", func() bool { return ls.srv.conns.Load() == 5 })
	c, err := net.Dial("tcp", ls.addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(60 * time.Second))
	fmt.Fprintf(c, "GET /api/v1/sessions HTTP/1.1\r\nHost: %s\r\n\r\n", ls.addr)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("the 6th connection: %v", err)
	}
	resp.Body.Close()
	c.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("the 6th connection: %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	held[0].Close()
	waitFor(t, "a place freed", func() bool { return ls.srv.conns.Load() == 4 })
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	r, err := client.Get("http://" + ls.addr + "/api/v1/sessions")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != 200 {
		t.Fatalf("after a place was freed: %d", r.StatusCode)
	}
	for _, c := range held[1:] {
		c.Close()
	}
}

// Event streams are capped per token and in all; the refused get 503 with
// Retry-After (issue 31: 4,000 were accepted).
func TestEventStreamsAreCapped(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.Config.Serve = config.ServeConfig{MaxStreams: 6, MaxStreamsPerUser: 4} })
	id := f.createSession(map[string]any{"mode": "mention"})
	for range 4 {
		f.events(id, "", "")
	}
	waitFor(t, "4 streams open", func() bool { return f.srv.streams.count() == 4 })
	if code, retry := f.doStream(id); code != http.StatusServiceUnavailable || retry == "" {
		t.Fatalf("a 5th stream of one user: %d Retry-After %q, want 503 with Retry-After", code, retry)
	}
	t.Logf("event streams at the cap: %d open, the next refused with 503", f.srv.streams.count())

	all := newFixture(t, func(o *Options) { o.Config.Serve = config.ServeConfig{MaxStreams: 3, MaxStreamsPerUser: 100} })
	id = all.createSession(map[string]any{"mode": "mention"})
	for range 3 {
		all.events(id, "", "")
	}
	if code, retry := all.doStream(id); code != http.StatusServiceUnavailable || retry == "" {
		t.Fatalf("a stream past max_streams: %d Retry-After %q", code, retry)
	}
}

// doStream opens a stream and returns its status and Retry-After.
func (f *fixture) doStream(id string) (int, string) {
	ctx, cancel := context.WithTimeout(context.Background(), streamDeadline)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", f.ts.URL+"/api/v1/sessions/"+id+"/events", nil)
	if f.token != "" {
		req.Header.Set("Authorization", "Bearer "+f.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Retry-After")
}

// A stream opened with a login cookie ends at logout.
func TestLogoutEndsTheEventStream(t *testing.T) {
	f, _ := tokenFixture(t)
	client := noRedirects()
	postLogin(t, client, f.ts.URL, testToken)
	id := f.createSession(map[string]any{"mode": "mention"})
	ctx, cancel := context.WithTimeout(context.Background(), streamDeadline)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", f.ts.URL+"/api/v1/sessions/"+id+"/events", nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("stream with the login cookie: %d", resp.StatusCode)
	}
	lr, err := client.Post(f.ts.URL+"/logout", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	lr.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatalf("the stream did not end cleanly at logout: %v", err)
	}
}

// A stream ends when its login expires (checked at each keep-alive).
func TestLoginExpiryEndsTheEventStream(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.Token = testToken; o.PingEvery = 50 * time.Millisecond })
	clock := newFakeClock()
	f.srv.auth.now = clock.now
	client := noRedirects()
	postLogin(t, client, f.ts.URL, testToken)
	id := f.createSession(map[string]any{"mode": "mention"})
	ctx, cancel := context.WithTimeout(context.Background(), streamDeadline)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", f.ts.URL+"/api/v1/sessions/"+id+"/events", nil)
	resp, err := client.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("stream: %v %v", resp, err)
	}
	defer resp.Body.Close()
	clock.advance(sessionTTL + time.Second)
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatalf("the stream did not end at expiry: %v", err)
	}
}

// 150 wrong tokens at once get exactly the checks one after another would
// (issue 31: 11 where 1 was due).
func TestParallelWrongTokensGetTheAllowedChecks(t *testing.T) {
	f, _ := tokenFixture(t)
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 150 {
		wg.Go(func() {
			<-start
			resp, err := http.PostForm(f.ts.URL+"/login", url.Values{"token": {"wrong"}})
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			mu.Lock()
			codes[resp.StatusCode]++
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	if codes[http.StatusUnauthorized] != freeFailures+1 || codes[http.StatusTooManyRequests] != 150-freeFailures-1 {
		t.Fatalf("150 parallel wrong tokens: %v, want %d checked (401) and the rest 429", codes, freeFailures+1)
	}
}

// Titles are bounded: a long one is refused before a session is made.
func TestLongTitlesAreRefused(t *testing.T) {
	f := newFixture(t)
	f.errorCode(http.StatusBadRequest, "bad_field", "POST", "/api/v1/sessions", map[string]any{"mode": "mention", "title": strings.Repeat("t", 1_000_000)})
	f.errorCode(http.StatusBadRequest, "bad_field", "POST", "/api/v1/sessions", map[string]any{"mode": "mention", "title": strings.Repeat("é", config.MaxTitleRunes+1)})
	f.createSession(map[string]any{"mode": "mention", "title": strings.Repeat("é", config.MaxTitleRunes)})
	list := f.must(200, "GET", "/api/v1/sessions", nil)
	if n := len(list["sessions"].([]any)); n != 1 {
		t.Fatalf("%d sessions after one refused and one accepted title", n)
	}
}
