package web_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/transcript"
)

// TestBrowserClosedTabLeavesTheExchangeRunning: every exchange the page
// starts is a line posted to …/messages, which docs/api.md documents as
// detached. A tab closed mid-answer (the fake Gemini holding after ten
// words) must not cut it: once the tab is gone the answer goes on, is saved
// complete with its whole text, and a page opened afterwards shows it.
func TestBrowserClosedTabLeavesTheExchangeRunning(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	release := sync.OnceFunc(func() { close(hold) })
	t.Cleanup(release)
	db := filepath.Join(t.TempDir(), "parley.db")
	base := startServerOn(t, db, slowAgentsHeld(t, hold), "")
	ctx := browser(t)
	tab, closeTab := chromedp.NewContext(ctx) // a second tab, closed below
	defer closeTab()
	createSession(t, tab, base, "mention")
	id := strings.TrimPrefix(evalJS[string](t, tab, `location.pathname`), "/s/")
	say(t, tab, "@gemini go slowly")
	waitJS(t, tab, "the answer streaming", `(() => { const s = document.querySelector(".panel .streaming"); return !!s && s.textContent.includes("Then a") })()`)

	st, err := store.Open(db) // beside the server's handle, as another process reads it
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	reply := func() (transcript.Entry, bool) {
		entries, err := st.Record().Since(context.Background(), id, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, en := range entries {
			if en.Kind == transcript.KindReply {
				return en, true
			}
		}
		return transcript.Entry{}, false
	}
	if en, ok := reply(); !ok || en.Status != transcript.StatusStreaming {
		t.Fatalf("before the tab closed the answer is saved as %+v, want streaming", en)
	}
	if err := chromedp.Cancel(tab); err != nil { // closes the tab and waits until it is gone
		t.Fatalf("closing the tab: %v", err)
	}
	release() // the rest of the answer comes only now, with no page open

	end := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		en, _ := reply()
		if en.Status != transcript.StatusStreaming && en.Status != "" {
			if en.Status != transcript.StatusComplete || en.Text != sentences {
				t.Fatalf("the answer of a closed tab saved %s with %q, want complete with the whole text", en.Status, en.Text)
			}
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the answer was not settled within 30s of the tab closing: %+v", en)
		}
	}
	do(t, ctx, "opening the session again",
		chromedp.Navigate(base+"/s/"+id),
		chromedp.WaitVisible(chromedp.CSS(`body[data-page="session"]`)),
	)
	waitJS(t, ctx, "the whole answer, complete", `(() => {
		const a = document.querySelector("#transcript .kind-reply.status-complete .entry-body");
		return !!a && a.textContent.includes("the very last word arrives here at the end.");
	})()`)
	// Leave before the server stops, so the page's stream does not log a
	// refused reconnection as a page error.
	do(t, ctx, "leaving the page", chromedp.Navigate("about:blank"))
}
