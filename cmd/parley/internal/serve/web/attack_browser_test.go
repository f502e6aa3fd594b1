package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
)

// countingProvider counts the calls that reach a provider: a refused
// request must cost nothing.
type countingProvider struct {
	providers.Provider
	calls *atomic.Int32
}

func (c countingProvider) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	c.calls.Add(1)
	return c.Provider.Stream(ctx, req)
}

// seenRequest is one request the server answered.
type seenRequest struct {
	method, path, host string
	status             int
}

// statusRecorder notes the status a handler answers with.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) { r.status = code; r.ResponseWriter.WriteHeader(code) }

func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// attackPage posts to the server from another origin, the ways any page
// can without asking the server first: fetch with text/plain in no-cors
// mode, and forms (text/plain and urlencoded) into hidden frames.
var attackPage = template.Must(template.New("attack").Parse(`<!doctype html>
<html><body>
<iframe name="sink1"></iframe><iframe name="sink2"></iframe>
<form id="f1" method="post" action="{{.Base}}/api/v1/sessions" enctype="text/plain" target="sink1"><input name='{"mode":"mention","title":"pwned","x":"' value='"}'></form>
<form id="f2" method="post" action="{{.Base}}/api/v1/magi" target="sink2"><input name="question" value="pwned?"></form>
<script>
window.fetches = [];
(async () => {
  const base = {{.Base}};
  for (const [path, body] of [["/api/v1/magi", '{"question":"pwned?","single_round":true}'],
      ["/api/v1/sessions", '{"mode":"mention","title":"pwned"}'], ["/api/v1/debate/start", '{"instruction":"pwned"}']]) {
    try {
      await fetch(base + path, {method: "POST", mode: "no-cors", credentials: "include", headers: {"Content-Type": "text/plain"}, body});
      window.fetches.push("answered");
    } catch (e) { window.fetches.push("failed: " + e); }
  }
  document.getElementById("f1").submit();
  document.getElementById("f2").submit();
})();
</script>
</body></html>`))

// A page served from another origin — another port of 127.0.0.1, the
// same site — posts to the server with fetch (text/plain, no-cors) and
// with forms: every request reaches the server, is refused with 403, and
// nothing is created or run. A DNS-rebound name (evil.example resolving to
// 127.0.0.1) gets no page and no API either.
func TestBrowserOtherOriginCannotDrive(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := newServer(t, func(cfg *config.Config) []*debate.Agent {
		var out []*debate.Agent
		for _, spec := range cfg.Agents {
			out = append(out, &debate.Agent{AgentSpec: spec, Provider: countingProvider{demo.NewWithPace("demo", 0), &calls}})
		}
		return out
	}, "")
	seen := make(chan seenRequest, 64)
	parley := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		srv.Handler().ServeHTTP(rec, r)
		seen <- seenRequest{method: r.Method, path: r.URL.Path, host: r.Host, status: rec.status}
	}))
	// Closed after the browser (cleanups run last first): a request the
	// page still makes, its favicon, would otherwise find the server gone
	// and fail the test with a console error.
	t.Cleanup(parley.Close)
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = attackPage.Execute(w, map[string]string{"Base": parley.URL})
	}))
	t.Cleanup(attacker.Close)
	port := parley.Listener.Addr().String()[strings.LastIndex(parley.Listener.Addr().String(), ":")+1:]
	ctx := browserWith(t, []chromedp.ExecAllocatorOption{chromedp.Flag("host-resolver-rules", "MAP evil.example 127.0.0.1")},
		"403 (Forbidden)")

	do(t, ctx, "opening the attacker's page", chromedp.Navigate(attacker.URL))
	posts := waitPosts(t, seen, 5)
	for _, p := range posts {
		if p.status != http.StatusForbidden {
			t.Errorf("%s %s from another origin: %d, want 403", p.method, p.path, p.status)
		}
	}
	if sessions := apiSessions(t, parley.URL); len(sessions) != 0 || calls.Load() != 0 {
		t.Fatalf("after the attack: sessions %v, %d provider calls", sessions, calls.Load())
	}

	rebound := "http://evil.example:" + port
	do(t, ctx, "opening the server under a rebound name", chromedp.Navigate(rebound+"/"))
	if body := evalJS[string](t, ctx, `document.body.textContent`); !strings.Contains(body, "is not this server's") {
		t.Errorf("under evil.example the page says %q", body)
	}
	do(t, ctx, "the API under a rebound name", chromedp.Navigate(rebound+"/api/v1/sessions"))
	if body := evalJS[string](t, ctx, `document.body.textContent`); !strings.Contains(body, `"bad_host"`) {
		t.Errorf("under evil.example the API says %q", body)
	}
}

// waitPosts collects the first n POSTs the server answers (other requests
// skipped), within a deadline.
func waitPosts(t *testing.T, seen <-chan seenRequest, n int) []seenRequest {
	t.Helper()
	deadline := time.After(30 * time.Second)
	var posts []seenRequest
	for len(posts) < n {
		select {
		case r := <-seen:
			if r.method == http.MethodPost {
				posts = append(posts, r)
			}
		case <-deadline:
			t.Fatalf("the server saw %d of the %d POSTs: %+v", len(posts), n, posts)
		}
	}
	return posts
}

// apiSessions lists the sessions of the empty user, as the page sees them.
func apiSessions(t *testing.T, base string) []any {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/sessions")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Sessions []any }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(fmt.Errorf("listing sessions: %w", err))
	}
	return out.Sessions
}
