package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The MAGI members' structured answers stream as prose: no panel or
// transcript item ever shows a brace-quote, a key or an escaped quote. A
// MutationObserver checks the page at every change while the council runs.
func TestBrowserMagiNeverShowsJSON(t *testing.T) {
	t.Parallel()
	base := startServer(t, demoAt(3*time.Millisecond))
	ctx := browser(t)
	createSession(t, ctx, base, "magi")
	do(t, ctx, "watching the page", chromedp.Evaluate[chromedp.Void](`
		window.__raw = [];
		window.__checks = 0;
		new MutationObserver(() => {
			window.__checks++;
			document.querySelectorAll(".panel-body, #transcript .entry-body").forEach(b => {
				const t = b.textContent;
				if (/\{\s*"|\\"|"(vote|reasoning|summary)"\s*:/.test(t)) window.__raw.push(t.slice(0, 200));
			});
		}).observe(document.body, { subtree: true, childList: true, characterData: true });`))
	say(t, ctx, "Should we ship on Friday?")
	waitJS(t, ctx, "the verdict", `document.querySelector("#magi .verdict.decided") !== null && !document.body.classList.contains("busy")`)
	if n := evalJS[int](t, ctx, `window.__checks`); n < 20 {
		t.Fatalf("only %d page changes observed: the run was not watched while it streamed", n)
	}
	if raw := evalJS[[]string](t, ctx, `window.__raw`); len(raw) > 0 {
		t.Errorf("%d moments showed raw JSON, first: %q", len(raw), raw[0])
	}
	// The tally reads in approve, reject, abstain, invalid order, live and reloaded.
	live := evalJS[string](t, ctx, `document.querySelector("#magi .verdict").textContent`)
	do(t, ctx, "reloading", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#magi")))
	if got := evalJS[string](t, ctx, `document.querySelector("#magi .verdict").textContent`); got != live {
		t.Errorf("tally live %q, reloaded %q", live, got)
	}
	if i := strings.Index(live, ": "); i < 0 || !strings.Contains(live[i:], " approve, ") || strings.Index(live, "approve") > strings.Index(live, "reject") ||
		strings.Index(live, "reject") > strings.Index(live, "abstain") || strings.Index(live, "abstain") > strings.Index(live, "invalid") {
		t.Errorf("tally %q is not in approve, reject, abstain, invalid order", live)
	}
	// Each vote is said once: one vote label per transcript item and per panel.
	if labels := evalJS[[]int](t, ctx, `[...document.querySelectorAll("#transcript .kind-vote, .panel")].map(n => n.querySelectorAll(".vote, .ballot-vote").length)`); len(labels) != 12 {
		t.Errorf("%d vote items and panels, want 9 + 3", len(labels))
	} else {
		for i, n := range labels {
			if n != 1 {
				t.Errorf("item %d says its vote %d times", i, n)
			}
		}
	}
}
