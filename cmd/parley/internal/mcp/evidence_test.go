package mcp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/mcp"
)

// parley mcp --tools fetch (serve.tools) lets the members read a page: the
// official Go SDK's client reads the call in the result's text and the
// session's ledger in the structured result (ledger: E1, its source,
// tool, member and digest, cleaned of the hostile title's controls).
// Without --tools the same question runs no tool.
func TestMCPResultsCarryToolCallsAndTheLedger(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = fmt.Fprint(w, "<html><head><title>Report \x1b]0;pwned\x07</title></head><body><p>The limit is 40 tonnes.</p></body></html>")
	}))
	t.Cleanup(site.Close)
	page := site.URL + "/report"
	ask := func(c *client) (mcp.AskOutput, string) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var out mcp.AskOutput
		res := c.call(t, ctx, "ask", map[string]any{"question": "@claude summarise " + page}, &out, nil)
		return out, textOf(res)
	}
	env := []string{"PARLEY_SERVE_ALLOW_PRIVATE_FETCH=true"} // the page is on loopback
	with := stdioClient(t, filepath.Join(t.TempDir(), "s.db"), env, "--demo", "--tools", "fetch")
	out, text := ask(with)
	if len(out.Ledger) != 1 {
		t.Fatalf("ledger %+v\ntext %s", out.Ledger, text)
	}
	r := out.Ledger[0]
	if r.ID != "E1" || r.Source != page || r.Tool != "fetch_url" || r.Agent != "claude" || !strings.HasPrefix(r.Digest, "sha256:") ||
		r.Text != "" || strings.ContainsAny(r.Title, "\x1b\x07") || !strings.HasPrefix(r.Title, "Report") {
		t.Errorf("record %+v", r)
	}
	if !strings.Contains(text, "[claude] fetch_url url="+page+" → E1") || !strings.Contains(out.Answers[0].Text, "[E1]") {
		t.Errorf("text %q, answer %q", text, out.Answers[0].Text)
	}
	without := stdioClient(t, filepath.Join(t.TempDir(), "s.db"), env, "--demo")
	if out, text := ask(without); len(out.Ledger) != 0 || strings.Contains(text, "fetch_url") {
		t.Errorf("a tool ran without serve.tools: ledger %+v, text %q", out.Ledger, text)
	}
}
