package web_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
)

// A member reads a hostile page (serve.tools: [fetch]): the record
// arrives live in the page's evidence list and the call's line in the
// transcript, the source a link with rel="noopener noreferrer", the title
// as text; nothing of it runs. After a reload the server's render agrees.
func TestBrowserEvidenceLinksAreInert(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = fmt.Fprint(w, `<html><head><title><img src=x onerror="window.pwned=1">Report</title></head><body><p>The limit is 40 tonnes.</p></body></html>`)
	}))
	t.Cleanup(site.Close)
	page := site.URL + "/report"
	demo := demoAt(0)
	base := startServer(t, func(cfg *config.Config) []*debate.Agent {
		// The server's configuration: serve.tools [fetch], the page on loopback.
		cfg.Serve.Tools, cfg.Serve.AllowPrivateFetch = []string{"fetch"}, true
		return demo(cfg)
	})
	ctx := browser(t)
	createSession(t, ctx, base, "mention")
	if evalJS[bool](t, ctx, `!document.querySelector("#evidence").hidden`) {
		t.Error("an empty ledger is shown")
	}
	say(t, ctx, "@claude summarise "+page)
	waitJS(t, ctx, "the record, live", `document.querySelector("#evidence-E1 a.source") !== null`)
	waitJS(t, ctx, "the call's line, live", `[...document.querySelectorAll("#transcript .tool-call code")].some(c => c.textContent.startsWith("✓ E1 fetch_url "))`)
	check := func(when string) {
		t.Helper()
		a := `document.querySelector("#evidence-E1 a.source")`
		if href := evalJS[string](t, ctx, a+`.href`); href != page {
			t.Errorf("%s: href %q, want %q", when, href, page)
		}
		if rel := evalJS[string](t, ctx, a+`.rel`); rel != "noopener noreferrer" {
			t.Errorf("%s: rel %q", when, rel)
		}
		if text := evalJS[string](t, ctx, a+`.textContent`); !strings.Contains(text, `<img src=x onerror="window.pwned=1">Report`) {
			t.Errorf("%s: the title shows as %q", when, text)
		}
		if evalJS[bool](t, ctx, `window.pwned === 1 || document.querySelector("#evidence img, #transcript img") !== null`) {
			t.Errorf("%s: the hostile title ran or made an element", when)
		}
		if n := evalJS[int](t, ctx, `document.querySelectorAll("#transcript .tool-call a.source[rel='noopener noreferrer']").length`); n != 1 {
			t.Errorf("%s: %d source links in the transcript", when, n)
		}
	}
	waitJS(t, ctx, "the call's link, live", `document.querySelector("#transcript .tool-call a.source") !== null`)
	check("live")
	do(t, ctx, "reloading", chromedp.Reload())
	waitJS(t, ctx, "the event stream", `document.body.classList.contains("live")`)
	check("rendered")
}
