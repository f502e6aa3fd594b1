package web_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/parleyhq/parley/debate/config"
)

// A member's call to a tool under ask, asked on the page, survives its
// server: the page shows Approve and Deny; the server stops while the
// call waits; a new server on the same database shows the same bar on the
// session's page, and Deny with a reason sent from it goes back to the
// member, who answers in a new turn. The page is never fetched.
func TestBrowserToolApprovalSurvivesTheServer(t *testing.T) {
	t.Parallel()
	var fetched atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fetched.Add(1)
		_, _ = io.WriteString(w, "the rate is 4.2%")
	}))
	t.Cleanup(site.Close)
	db := filepath.Join(t.TempDir(), "parley.db")
	withTools := func(c *config.Config) {
		c.Serve.Tools = []string{"fetch"}
		c.Serve.AllowPrivateFetch = true
		c.Tools.Policy = map[string]string{"fetch_url": "ask"}
	}
	start := func() (string, func()) {
		srv := newServerWith(t, db, demoAt(time.Millisecond), "", withTools)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- srv.Serve(ctx, ln, nil) }()
		var once atomic.Bool
		end := func() {
			if once.CompareAndSwap(false, true) {
				stop()
				<-done
				srv.Close()
			}
		}
		t.Cleanup(end)
		return "http://" + ln.Addr().String(), end
	}
	first, stopFirst := start()
	ctx := browser(t, "Failed to load resource", "net::ERR_CONNECTION_REFUSED", "EventSource")
	do(t, ctx, "creating a mention session with checkpoints",
		chromedp.Navigate(first+"/"),
		chromedp.WaitVisible(chromedp.CSS("#create button")),
		chromedp.WaitEnabled(chromedp.CSS("#create button")), // wired by the page's script
		chromedp.SetValue(chromedp.CSS("#mode"), "mention"),
		chromedp.SetValue(chromedp.CSS("#checkpoint"), "each_round"),
		chromedp.Click(chromedp.CSS("#create button")),
		chromedp.WaitVisible(chromedp.CSS(`body[data-page="session"] #input`)),
	)
	waitJS(t, ctx, "the event stream", `document.body.classList.contains("live")`)
	say(t, ctx, "@chatgpt what does "+site.URL+"/rates say?")
	bar := `!document.querySelector("#checkpoint").hidden &&
		document.querySelector("#checkpoint .checkpoint-what").textContent.includes("fetch_url")`
	waitJS(t, ctx, "the tool call's bar", bar)
	if got := evalJS[string](t, ctx, `[...document.querySelectorAll("#checkpoint button")].map(b => b.textContent).join("|")`); got != "Approve|Deny" {
		t.Fatalf("buttons %q", got)
	}
	path := evalJS[string](t, ctx, `location.pathname`)

	stopFirst()
	second, _ := start()
	do(t, ctx, "opening the session on the new server", chromedp.Navigate(second+path), chromedp.WaitVisible(chromedp.CSS("#checkpoint button")))
	waitJS(t, ctx, "the tool call's bar after the restart", bar)
	shot(t, ctx, "tool-approval-after-restart")
	do(t, ctx, "denying the call with a reason",
		chromedp.SendKeys(chromedp.CSS("#checkpoint-text"), "not that site"),
		chromedp.Click(chromedp.CSS(`#checkpoint button[data-action="deny"]`)),
	)
	waitJS(t, ctx, "the denial in the transcript", `[...document.querySelectorAll("#transcript")].some(e => e.textContent.includes("refused by the host: not that site"))`)
	waitJS(t, ctx, "the bar gone", `document.querySelector("#checkpoint").hidden`)
	waitJS(t, ctx, "the member's answer after the denial", `[...document.querySelectorAll("#transcript .kind-reply")].some(e => e.textContent.trim() !== "" && !e.classList.contains("streaming"))`)
	shot(t, ctx, "tool-approval-denied")
	if n := fetched.Load(); n != 0 {
		t.Errorf("the denied page was fetched %d times", n)
	}
	if text := evalJS[string](t, ctx, `document.querySelector("#transcript").textContent`); strings.Contains(text, "the rate is 4.2%") {
		t.Error("the denied page's text reached the transcript")
	}
}
