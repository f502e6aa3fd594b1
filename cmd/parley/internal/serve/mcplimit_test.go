package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/parleyhq/parley/debate/config"
)

// /mcp tool calls and the API's session creations draw from one budget per
// client address and token: 150 parallel tools/call no longer all run, and
// a client that spent its budget on the API is refused on /mcp too (429
// with Retry-After naming the limit). Messages that start no work pass.
func TestMCPToolCallsShareTheAPIRateLimit(t *testing.T) {
	t.Parallel()
	var reached atomic.Int64
	mcpDoor := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		w.WriteHeader(http.StatusOK)
	})
	const token = "a-token-long-enough-for-tests"
	f := newFixture(t, func(o *Options) {
		o.Rate = Rate{PerMinute: 1, Burst: 3}
		o.Token = token
		o.MCP = mcpDoor
	})
	send := func(path, body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "http://127.0.0.1"+path, strings.NewReader(body))
		req.RemoteAddr = "192.0.2.7:5000"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		f.srv.Handler().ServeHTTP(rec, req)
		return rec
	}
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"question":"hi"}}}`
	const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`

	if rec := send("/api/v1/sessions", `{"user_id":"ada"}`); rec.Code != http.StatusCreated {
		t.Fatalf("first API request: %d %s", rec.Code, rec.Body)
	}
	for i := range 2 {
		if rec := send("/mcp", call); rec.Code != http.StatusOK {
			t.Fatalf("tool call %d within the budget: %d %s", i+1, rec.Code, rec.Body)
		}
	}
	rec := send("/mcp", call)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("fourth request that starts work: want 429 with Retry-After, got %d %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	if !strings.Contains(rec.Body.String(), "too many requests") {
		t.Errorf("the refusal does not say which limit: %s", rec.Body)
	}
	if rec := send("/api/v1/sessions", `{"user_id":"bob"}`); rec.Code != http.StatusTooManyRequests {
		t.Errorf("the API after MCP spent the budget: want 429, got %d %s", rec.Code, rec.Body)
	}
	if rec := send("/mcp", list); rec.Code != http.StatusOK {
		t.Errorf("tools/list starts no work and must pass: %d %s", rec.Code, rec.Body)
	}
	if got := reached.Load(); got != 3 {
		t.Errorf("the MCP door saw %d messages, want 3 (two calls within the budget and the list)", got)
	}
}

func FuzzStartsWork(f *testing.F) {
	for _, seed := range []string{`{"method":"tools/call"}`, `{"method":"tools/list"}`, `not json`, `[]`, `{"method":1}`, ``} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if startsWork(body) && !strings.Contains(string(body), "tools/call") && !strings.Contains(string(body), `\u`) {
			t.Fatalf("a message without tools/call counted as work: %q", body)
		}
	})
}

// Streams held over /mcp (the SDK's GET stream, a running tool call) count
// among the event streams: past the cap per token the next gets 503 with
// Retry-After, and a place comes back when a stream ends.
func TestMCPStreamsCountAmongTheEventStreams(t *testing.T) {
	t.Parallel()
	held := make(chan struct{})
	mcpDoor := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-held:
		case <-r.Context().Done():
		}
	})
	f := newFixture(t, func(o *Options) {
		o.MCP = mcpDoor
		o.Config.Serve = config.ServeConfig{MaxStreams: 10, MaxStreamsPerUser: 2}
	})
	ctx, cancel := context.WithTimeout(context.Background(), streamDeadline)
	defer cancel()
	open := func(method, body string) *http.Response {
		req, _ := http.NewRequestWithContext(ctx, method, f.ts.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	get := open("GET", "")
	defer get.Body.Close()
	call := open("POST", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`)
	defer call.Body.Close()
	waitFor(t, "2 MCP streams open", func() bool { return f.srv.streams.count() == 2 })
	third := open("GET", "")
	third.Body.Close()
	if third.StatusCode != http.StatusServiceUnavailable || third.Header.Get("Retry-After") == "" {
		t.Fatalf("a third stream of one client: %d Retry-After %q, want 503 with Retry-After", third.StatusCode, third.Header.Get("Retry-After"))
	}
	list := open("POST", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	list.Body.Close()
	if list.StatusCode != http.StatusOK {
		t.Errorf("tools/list holds no stream and must pass at the cap: %d", list.StatusCode)
	}
	close(held)
	waitFor(t, "the places given back", func() bool { return f.srv.streams.count() == 0 })
}
