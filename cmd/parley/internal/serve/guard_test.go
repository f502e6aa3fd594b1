package serve

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/parleyhq/parley/providers/providertest"
)

// sessionCount is how many sessions the store holds.
func (f *fixture) sessionCount() int {
	f.t.Helper()
	list, err := f.st.List(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	return len(list)
}

// countedCalls binds the agents to a fake provider that counts the calls
// reaching it: a refused request must cost nothing.
func countedCalls(t *testing.T) (*atomic.Int32, func(*Options)) {
	calls := &atomic.Int32{}
	return calls, func(o *Options) {
		o.Agents = fakeAgents(t, func(providertest.Request) providertest.Reply {
			calls.Add(1)
			return providertest.Reply{Text: "VOTE: YES\nSUMMARY: fine"}
		})
	}
}

// DNS rebinding: a page of evil.example whose name now points at
// 127.0.0.1 sends Host: evil.example; nothing of the server answers it,
// token or not. Loopback names, the listed serve.hosts and the bound
// address do get through.
func TestHostMustNameThisServer(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(o *Options) {
		o.Config.Serve.Hosts = []string{"parley.lan", "proxy.example:8443"}
		o.Pages = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("page")) })
	})
	for _, host := range []string{"evil.example", "evil.example:80", "localhost.evil.example", "parley.lan.evil.example",
		"proxy.example", "proxy.example:80", "10.1.2.3", "[fe80::1]:80"} {
		msg := f.errorCode(403, "bad_host", "GET", "/api/v1/sessions", nil, "Host", host)
		if !strings.Contains(msg, "serve.hosts") {
			t.Errorf("Host %s: message %q does not say how to allow a name", host, msg)
		}
		if code, body := f.do("GET", "/", nil, "Host", host); code != 403 || !strings.Contains(string(body), "is not this server's") {
			t.Errorf("page with Host %s: %d %s", host, code, body)
		}
	}
	f.createSession(map[string]any{"user_id": "ada"})
	code, body := f.do("POST", "/api/v1/sessions", `{"user_id":"ada"}`, "Host", "evil.example")
	if code != 403 || f.sessionCount() != 1 {
		t.Errorf("POST with Host evil.example: %d %s, %d sessions", code, body, f.sessionCount())
	}
	port := f.ts.Listener.Addr().(*net.TCPAddr).Port
	for _, host := range []string{"localhost", "LOCALHOST:" + strconv.Itoa(port), "127.0.0.1", "127.0.0.2:9", "[::1]:" + strconv.Itoa(port),
		"parley.lan", "parley.lan:1234", "proxy.example:8443"} {
		if code, body := f.do("GET", "/api/v1/sessions", nil, "Host", host); code != 200 {
			t.Errorf("Host %s: %d %s", host, code, body)
		}
	}
}

// The address the server is bound to is its own name; bound to all
// interfaces, any address of the machine is (an IP literal cannot be
// rebound), names still are not.
func TestHostBoundAddress(t *testing.T) {
	t.Parallel()
	g, err := newGuard(nil, http.NotFoundHandler())
	if err != nil {
		t.Fatal(err)
	}
	g.bind(&net.TCPAddr{IP: net.ParseIP("192.168.1.20"), Port: 8080})
	if !g.hostAllowed("192.168.1.20:8080") || g.hostAllowed("192.168.1.21:8080") || g.hostAllowed("evil.example:8080") {
		t.Error("bound to 192.168.1.20: wrong hosts accepted or refused")
	}
	g.bind(&net.TCPAddr{IP: net.IPv4zero, Port: 8080})
	if !g.hostAllowed("192.168.1.21:8080") || !g.hostAllowed("[2001:db8::5]:8080") || g.hostAllowed("evil.example:8080") || g.hostAllowed("") {
		t.Error("bound to 0.0.0.0: wrong hosts accepted or refused")
	}
	if _, err := newGuard([]string{"https://x.example/"}, http.NotFoundHandler()); err == nil {
		t.Error("a URL in serve.hosts was accepted")
	}
}

// A page of another origin — another port of 127.0.0.1 is one — cannot
// create, run or delete anything, whatever it sends; the same requests
// from the server's own origin and from non-browser clients work.
func TestCrossOriginWritesRefused(t *testing.T) {
	t.Parallel()
	calls, counted := countedCalls(t)
	f := newFixture(t, counted)
	id := f.createSession(map[string]any{"mode": "mention"})
	foreign := [][]string{
		{"Origin", "http://127.0.0.1:1"},
		{"Origin", "http://evil.example"},
		{"Origin", "null"},
		{"Sec-Fetch-Site", "cross-site"},
		{"Sec-Fetch-Site", "same-site"}, // another port of the same host
		{"Sec-Fetch-Site", "same-site", "Origin", f.ts.URL},
	}
	for _, hdr := range foreign {
		for _, req := range [][2]string{
			{"POST", "/api/v1/sessions"}, {"POST", "/api/v1/magi"},
			{"POST", "/api/v1/sessions/" + id + "/messages"}, {"DELETE", "/api/v1/sessions/" + id},
		} {
			body := map[string]any{"question": "ship?", "text": "@all hi", "mode": "magi"}
			if req[0] == "DELETE" {
				body = nil
			}
			msg := f.errorCode(403, "cross_origin", req[0], req[1], body, hdr...)
			if !strings.Contains(msg, "cross-origin request refused") {
				t.Errorf("%v %s: message %q", hdr, req[1], msg)
			}
		}
	}
	if n := f.sessionCount(); n != 1 || calls.Load() != 0 {
		t.Fatalf("after refused requests: %d sessions, %d provider calls", n, calls.Load())
	}
	// Reading stays open to any origin: the browser keeps the answer from it.
	if code, _ := f.do("GET", "/api/v1/sessions", nil, "Sec-Fetch-Site", "cross-site"); code != 200 {
		t.Errorf("cross-site GET: %d", code)
	}
	f.must(201, "POST", "/api/v1/sessions", map[string]any{"mode": "mention"}) // no Origin: curl, a backend
	if code, body := f.do("POST", "/api/v1/sessions", map[string]any{"mode": "mention"}, "Origin", f.ts.URL, "Sec-Fetch-Site", "same-origin"); code != 201 {
		t.Errorf("same-origin POST: %d %s", code, body)
	}
}

// A body a page can send without a CORS preflight (text/plain, a form) is
// never read as a command: 415, and no paid call is made.
func TestAPIBodyMustBeJSON(t *testing.T) {
	t.Parallel()
	calls, counted := countedCalls(t)
	f := newFixture(t, counted)
	for _, ct := range []string{"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "", "application/jsonx"} {
		for _, path := range []string{"/api/v1/magi", "/api/v1/sessions", "/api/v1/debate/start", "/api/v1/agents"} {
			msg := f.errorCode(415, "unsupported_media_type", "POST", path, `{"question":"ship?","single_round":true,"instruction":"x","name":"p"}`, "Content-Type", ct)
			if !strings.Contains(msg, "application/json") {
				t.Errorf("%s %s: message %q", ct, path, msg)
			}
		}
	}
	if n := f.sessionCount(); n != 0 || calls.Load() != 0 {
		t.Fatalf("after 415s: %d sessions, %d provider calls", n, calls.Load())
	}
	if code, body := f.do("POST", "/api/v1/sessions", `{"mode":"mention"}`, "Content-Type", "application/json; charset=utf-8"); code != 201 {
		t.Errorf("JSON with a charset: %d %s", code, body)
	}
}

// The guard wraps every route mounted on the mux, present or future (the
// MCP endpoint relies on it).
func TestGuardWrapsEveryRoute(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.mux.HandleFunc("POST /mounted-later", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	for _, c := range []struct {
		hdr  []string
		want int
	}{
		{[]string{"Host", "evil.example"}, 403},
		{[]string{"Origin", "http://127.0.0.1:1"}, 403},
		{nil, 204},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "http://127.0.0.1/mounted-later", strings.NewReader("{}"))
		for i := 0; i+1 < len(c.hdr); i += 2 {
			if c.hdr[i] == "Host" {
				req.Host = c.hdr[i+1]
			} else {
				req.Header.Set(c.hdr[i], c.hdr[i+1])
			}
		}
		f.srv.Handler().ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("%v: %d, want %d", c.hdr, rec.Code, c.want)
		}
	}
}
