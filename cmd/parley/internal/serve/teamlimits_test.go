package serve

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/config"
)

// teamAnswer is one answer read by a real HTTP client: status,
// Retry-After, and the error's code and message when it is JSON.
type teamAnswer struct {
	status      int
	retryAfter  string
	contentType string
	code, msg   string
}

// postSession creates a session through a real client, as from user, with
// X-Forwarded-For set when xff is not empty.
func (ls *liveServer) postSession(t *testing.T, client *http.Client, user, xff string) teamAnswer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://"+ls.addr+"/api/v1/sessions",
		bytes.NewReader([]byte(`{"mode":"mention","user_id":"`+user+`"}`)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	return readTeamAnswer(t, client, req)
}

func readTeamAnswer(t *testing.T, client *http.Client, req *http.Request) teamAnswer {
	t.Helper()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	a := teamAnswer{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), contentType: resp.Header.Get("Content-Type")}
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil {
		a.code, a.msg = e.Error.Code, e.Error.Message
	}
	return a
}

// startTeam runs a live server whose rate comes from serve.rate_limit (not
// from Options, as the other tests set it).
func startTeam(t *testing.T, cfg config.ServeConfig) *liveServer {
	return startLive(t, cfg, func(o *Options) { o.Rate = Rate{} })
}

// serve.rate_limit sets the budget: with burst 2 the third request is
// refused 429 in JSON, and Retry-After is what 6 a minute gives (10 s).
func TestRateLimitIsConfigured(t *testing.T) {
	ls := startTeam(t, config.ServeConfig{RateLimit: config.ServeRateConfig{PerMinute: 6, Burst: 2}})
	client := &http.Client{Timeout: time.Minute}
	for i, user := range []string{"a", "b"} {
		if a := ls.postSession(t, client, user, ""); a.status != http.StatusCreated {
			t.Fatalf("request %d: %+v", i+1, a)
		}
	}
	a := ls.postSession(t, client, "c", "")
	secs, err := strconv.Atoi(a.retryAfter)
	if a.status != http.StatusTooManyRequests || a.code != "rate_limited" || !strings.HasPrefix(a.contentType, "application/json") ||
		err != nil || secs < 9 || secs > 11 {
		t.Fatalf("the third request: %+v (want 429 rate_limited in JSON, Retry-After about 10)", a)
	}
	if !strings.Contains(a.msg, "this client address (127.0.0.1)") {
		t.Fatalf("the refusal names %q", a.msg)
	}
}

// Behind a trusted proxy each client X-Forwarded-For names has its own
// budget; the address the proxy connects from is not the client.
func TestTrustedProxyNamesTheClient(t *testing.T) {
	ls := startTeam(t, config.ServeConfig{RateLimit: config.ServeRateConfig{PerMinute: 60, Burst: 1},
		TrustedProxies: []string{"127.0.0.0/8"}})
	client := &http.Client{Timeout: time.Minute}
	if a := ls.postSession(t, client, "a", "203.0.113.7"); a.status != http.StatusCreated {
		t.Fatalf("the first client: %+v", a)
	}
	// A client that writes its own X-Forwarded-For before the proxy's entry
	// is still counted as the address the proxy saw.
	a := ls.postSession(t, client, "b", "198.51.100.99, 203.0.113.7")
	if a.status != http.StatusTooManyRequests || !strings.Contains(a.msg, "(203.0.113.7)") || a.retryAfter == "" {
		t.Fatalf("the first client again, with a made-up entry: %+v", a)
	}
	if a := ls.postSession(t, client, "c", "203.0.113.8"); a.status != http.StatusCreated {
		t.Fatalf("a second client behind the proxy: %+v", a)
	}
}

// From a peer that is not a trusted proxy, X-Forwarded-For is ignored: a
// client cannot pose as many.
func TestForwardedForIsIgnoredFromOthers(t *testing.T) {
	ls := startTeam(t, config.ServeConfig{RateLimit: config.ServeRateConfig{PerMinute: 60, Burst: 1},
		TrustedProxies: []string{"192.0.2.0/24"}})
	client := &http.Client{Timeout: time.Minute}
	if a := ls.postSession(t, client, "a", "203.0.113.7"); a.status != http.StatusCreated {
		t.Fatalf("the first request: %+v", a)
	}
	a := ls.postSession(t, client, "b", "203.0.113.8")
	if a.status != http.StatusTooManyRequests || !strings.Contains(a.msg, "(127.0.0.1)") {
		t.Fatalf("a second 'client' named by a header of an untrusted peer: %+v", a)
	}
}

// holdConns opens n raw connections and waits until the server counts them.
func (ls *liveServer) holdConns(t *testing.T, n int) {
	t.Helper()
	for range n {
		c, err := net.Dial("tcp", ls.addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
	}
	waitFor(t, "connections accepted", func() bool { return ls.srv.conns.Load() == int64(n) })
}

// Past max_conns_per_addr a real client's request (a POST with a body, and
// the OpenAI door's route) is answered 503 in JSON with Retry-After, not an
// error of the client (issue 50: Go's client read the old plain-text answer,
// written before the request, as an unsolicited response).
func TestConnectionCapAnswersJSON(t *testing.T) {
	ls := startLive(t, config.ServeConfig{MaxConnsPerAddr: 3, ReadHeaderTimeout: 10 * time.Minute, IdleTimeout: 10 * time.Minute})
	ls.holdConns(t, 3)
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{DisableKeepAlives: true}}
	for _, path := range []string{"/api/v1/sessions", "/v1/chat/completions"} {
		req, err := http.NewRequest(http.MethodPost, "http://"+ls.addr+path, strings.NewReader(`{"model":"chatgpt","messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		a := readTeamAnswer(t, client, req)
		if a.status != http.StatusServiceUnavailable || a.code != "too_many_connections" || a.retryAfter != "5" ||
			!strings.HasPrefix(a.contentType, "application/json") || !strings.Contains(a.msg, "at most 3") {
			t.Fatalf("%s over the cap: %+v", path, a)
		}
	}
}

// A trusted proxy's connections are not capped per address: it carries
// the whole team.
func TestTrustedProxyConnectionsAreNotCapped(t *testing.T) {
	ls := startLive(t, config.ServeConfig{MaxConnsPerAddr: 2, ReadHeaderTimeout: 10 * time.Minute, IdleTimeout: 10 * time.Minute,
		TrustedProxies: []string{"127.0.0.1"}})
	ls.holdConns(t, 4)
	client := &http.Client{Timeout: time.Minute}
	resp, err := client.Get("http://" + ls.addr + "/api/v1/sessions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a fifth connection from the proxy: %d", resp.StatusCode)
	}
}

// Who X-Forwarded-For names, walked from the right past the trusted hops.
func TestForwardedClient(t *testing.T) {
	p, err := parseProxies([]string{"10.0.0.0/8", "fd00::/8", "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		peer string
		xff  []string
		want string
	}{
		{"10.0.0.1:5000", []string{"203.0.113.7"}, "203.0.113.7"},
		{"10.0.0.1:5000", []string{"203.0.113.7, 10.0.0.2"}, "203.0.113.7"},
		{"10.0.0.1:5000", []string{"1.1.1.1, 203.0.113.7"}, "203.0.113.7"},             // the left one was made up
		{"10.0.0.1:5000", []string{"1.1.1.1", "203.0.113.7, 10.9.9.9"}, "203.0.113.7"}, // two header lines
		{"10.0.0.1:5000", []string{"junk, 10.0.0.2"}, "10.0.0.2"},                      // not an address: the last trusted hop
		{"10.0.0.1:5000", []string{"10.0.0.3, 10.0.0.2"}, "10.0.0.3"},                  // all trusted: the farthest
		{"10.0.0.1:5000", nil, "10.0.0.1"},
		{"10.0.0.1:5000", []string{"[2001:db8::1]:443"}, "2001:db8::1"},
		{"10.0.0.1:5000", []string{"2001:db8::1, fd00::5"}, "2001:db8::1"},
		{"10.0.0.1:5000", []string{"fe80::1%eth0"}, "10.0.0.1"}, // a zone names the proxy's interface
		{"10.0.0.1:5000", []string{"::ffff:203.0.113.9"}, "203.0.113.9"},
		{"[::ffff:192.0.2.1]:80", []string{"203.0.113.7"}, "203.0.113.7"},
		{"192.0.2.2:80", []string{"203.0.113.7"}, "192.0.2.2"},                                 // not trusted: the header is ignored
		{"10.0.0.1:5000", []string{strings.Repeat("10.0.0.4, ", 40) + "10.0.0.5"}, "10.0.0.4"}, // past 16 hops: the last trusted one
	}
	for _, c := range cases {
		r := &http.Request{RemoteAddr: c.peer, Header: http.Header{"X-Forwarded-For": c.xff}}
		if got := p.client(r); got != netip.MustParseAddr(c.want) {
			t.Errorf("peer %s, X-Forwarded-For %q: %v, want %s", c.peer, c.xff, got, c.want)
		}
	}
}

// Over HTTPS too the connection cap answers a real client's request 503 in
// JSON with Retry-After (it used to close the connection unanswered).
func TestConnectionCapAnswersJSONOverTLS(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t)
	ls := startLive(t, config.ServeConfig{MaxConnsPerAddr: 2, ReadHeaderTimeout: 10 * time.Minute, IdleTimeout: 10 * time.Minute},
		func(o *Options) { o.TLSCert, o.TLSKey = certFile, keyFile })
	ls.holdConns(t, 2)
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, DisableKeepAlives: true}}
	req, err := http.NewRequest(http.MethodGet, "https://"+ls.addr+"/api/v1/sessions", nil)
	if err != nil {
		t.Fatal(err)
	}
	a := readTeamAnswer(t, client, req)
	if a.status != http.StatusServiceUnavailable || a.code != "too_many_connections" || a.retryAfter != "5" {
		t.Fatalf("over the cap, over TLS: %+v", a)
	}
}
