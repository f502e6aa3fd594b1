package web_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/parleyhq/parley/cmd/parley/internal/testbin"
	"github.com/parleyhq/parley/debate/store"
)

// TestBrowserFollowsAnotherProcess opens a session's page in Chromium and
// adds a question and its answer with `parley ask --session` (the built
// binary, another process on the same SQLite file): the open page shows
// both without a reload, each marked "via ask". The lag from the ask
// process's exit (its turns were committed before it) to the answer on the
// page is logged.
func TestBrowserFollowsAnotherProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel() // serial, it and the replicas' test held the package's other tests ~11 s
	ctx := browser(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "parley.db")
	env := append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", "GEMINI_API_KEY=", "GOOGLE_API_KEY=", "PARLEY_DB=")
	ask := func(args ...string) { testbin.Run(t, dir, env, append([]string{"--demo", "--db", db}, args...)...) }
	ask("ask", "@chatgpt first question")
	id := testbin.LatestSession(t, db)
	base := startServerOn(t, db, testAgents(t), "")
	do(t, ctx, "opening the session's page",
		chromedp.Navigate(base+"/s/"+id),
		chromedp.WaitVisible(chromedp.CSS(`body[data-page="session"]`)),
	)
	waitJS(t, ctx, "the event stream", `document.body.classList.contains("live")`)
	waitJS(t, ctx, "the first exchange", `document.querySelector("#turn-1") !== null && document.querySelector("#turn-2") !== null`)

	ask("ask", "--session", id, "@gemini second from ask")
	saved := time.Now()
	waitJS(t, ctx, "the other process's question and answer, marked via ask", `(() => {
		const q = document.querySelector("#turn-3"), a = document.querySelector("#turn-4");
		return !!q && !!a && q.textContent.includes("second from ask") && a.dataset.speaker === "gemini" &&
			a.dataset.status === "complete" && a.querySelector(".entry-body").textContent.trim() !== "" &&
			q.querySelector(".origin")?.textContent === "via ask" && a.querySelector(".origin")?.textContent === "via ask";
	})()`)
	lag := time.Since(saved)
	if evalJS[bool](t, ctx, `document.body.classList.contains("busy")`) {
		t.Error("another door's exchange left the page busy")
	}
	if evalJS[bool](t, ctx, `document.querySelector("#turn-1 .origin") === null`) {
		t.Error("turns saved before the page opened lost their origin mark (the first ask's turns came through ask too)")
	}
	t.Logf("lag from the ask process's exit to its answer on the open page: %v (PRAGMA data_version read every %v)",
		lag.Round(time.Millisecond), store.FollowEvery)
	// Leave the page before the server stops (cleanups run last-in first):
	// its event stream would otherwise reconnect to a closed port and log
	// the refusal as a page error.
	do(t, ctx, "leaving the page", chromedp.Navigate("about:blank"))
}
