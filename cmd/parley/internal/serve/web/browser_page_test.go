package web_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes/council"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
)

// demoAt puts every agent on the offline demo provider at pace.
func demoAt(pace time.Duration) func(*config.Config) []*debate.Agent {
	return func(cfg *config.Config) []*debate.Agent {
		var agents []*debate.Agent
		for _, spec := range cfg.Agents {
			agents = append(agents, &debate.Agent{AgentSpec: spec, Provider: demo.NewWithPace("demo", pace)})
		}
		return agents
	}
}

// shot saves a screenshot of the viewport as PARLEY_WEB_SHOTS/name.png
// when that variable names a folder (for a person to look at).
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("PARLEY_WEB_SHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// viewport sets the page's width (CSS pixels) and colour scheme.
func viewport(t *testing.T, ctx context.Context, width, height int64, scheme string) {
	t.Helper()
	do(t, ctx, "setting the viewport", chromedp.EmulateViewport(width, height),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
			return err
		}))
}

func TestBrowserCouncilPage(t *testing.T) {
	t.Parallel()
	base := startServer(t, demoAt(3*time.Millisecond))
	ctx := browser(t)
	viewport(t, ctx, 1280, 1000, "dark")
	createSession(t, ctx, base, "council")
	say(t, ctx, "Should we use queues or a database table?")
	waitJS(t, ctx, "the ranking table", `!document.querySelector("#ranking").hidden && document.querySelectorAll("#ranking tbody tr").length === 3`)
	waitJS(t, ctx, "the chairman's answer", `document.querySelector("#council .council-answer .markdown") !== null && !document.body.classList.contains("busy")`)
	do(t, ctx, "scrolling to the top", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	shot(t, ctx, "council-1280-dark")

	check := func(when string) string {
		t.Helper()
		// The council's answer comes first: above the table and the members.
		order := evalJS[[]float64](t, ctx, `[".council-answer", "#ranking", "#panels"].map(s => document.querySelector(s).getBoundingClientRect().top)`)
		if !(order[0] < order[1] && order[1] < order[2]) {
			t.Errorf("%s: council answer, ranking, members at %v: want that order", when, order)
		}
		if got := evalJS[string](t, ctx, `document.querySelector("#council .council-title").textContent`); got != "The council's answer" {
			t.Errorf("%s: the chairman's panel is titled %q", when, got)
		}
		if got := evalJS[string](t, ctx, `document.querySelector("#council .panel").dataset.agent`); got != council.ChairSeat {
			t.Errorf("%s: the council's answer is %q's panel", when, got)
		}
		// Members' panels hold their answers, never their rankings.
		members := evalJS[[]string](t, ctx, `[...document.querySelectorAll("#panels .panel .panel-body")].map(b => b.textContent)`)
		if len(members) != 3 {
			t.Errorf("%s: %d member panels, want 3", when, len(members))
		}
		for _, m := range members {
			if strings.Contains(m, "Ranking, best first") || strings.Contains(m, `"ranking"`) || strings.TrimSpace(m) == "" {
				t.Errorf("%s: a member panel shows %q, want its answer", when, m)
			}
		}
		head := evalJS[[]string](t, ctx, `[...document.querySelectorAll("#ranking thead th")].map(th => th.textContent)`)
		if len(head) != 6 || head[0] != "answer" || head[4] != "mean rank" || head[5] != "Borda" {
			t.Errorf("%s: ranking table head %v", when, head)
		}
		if n := evalJS[int](t, ctx, `document.querySelectorAll("#ranking .orders li").length`); n != 3 {
			t.Errorf("%s: %d rankers' orders listed, want 3", when, n)
		}
		return evalJS[string](t, ctx, `document.querySelector("#ranking").innerText`)
	}
	liveTable := check("live")
	do(t, ctx, "reloading", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#ranking")))
	if reloaded := check("reloaded"); reloaded != liveTable {
		t.Errorf("the reloaded ranking differs from the live one:\nlive:\n%s\nreloaded:\n%s", liveTable, reloaded)
	}
	if n := evalJS[int](t, ctx, `[...document.querySelectorAll("#ranking td")].filter(td => td.textContent === "✗").length`); n != 0 {
		t.Errorf("%d demo rankings are invalid:\n%s", n, liveTable)
	}
	viewport(t, ctx, 390, 844, "light")
	shot(t, ctx, "council-390-light")
	assertNoScriptRan(t, ctx)
}

// sentences is what the slow fake model streams, a word every 80 ms:
// Markdown in two blocks, so the first renders while the second streams.
const sentences = "**First sentence** holds the *point*.\n\nThen a second paragraph follows, word by word, until the very last word arrives here at the end."

// slowAgentsHeld streams sentences slowly, and stops after the tenth word
// (the first block and "Then a" are out) until hold closes.
func slowAgentsHeld(t *testing.T, hold <-chan struct{}) func(*config.Config) []*debate.Agent {
	reply := func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: sentences, ChunkDelay: 80 * time.Millisecond, Hold: hold, HoldAfter: 10}
	}
	gemini := providertest.Gemini(t, reply)
	return geminiAt(t, gemini.URL)
}

func TestBrowserPageOpenedMidStream(t *testing.T) {
	t.Parallel()
	// The answer holds after its first words until the busy refusal is
	// seen: on a loaded machine it could otherwise end before the second
	// line is sent, and the line would be taken as a note.
	hold := make(chan struct{})
	release := sync.OnceFunc(func() { close(hold) })
	t.Cleanup(release)
	base := startServer(t, slowAgentsHeld(t, hold))
	ctx := browser(t, "status of 409 (Conflict)")
	createSession(t, ctx, base, "mention")
	say(t, ctx, "@gemini go slowly")
	// Live, the finished first block is rendered while the second streams.
	waitJS(t, ctx, "the first block rendered live", `(() => { const s = document.querySelector(".panel .streaming"); return s && s.querySelector("p strong") && s.textContent.includes("Then a") })()`)
	if got := evalJS[string](t, ctx, `document.querySelector(".panel .streaming strong").textContent`); got != "First sentence" {
		t.Errorf("live bold text %q", got)
	}
	shot(t, ctx, "midstream-1280-dark")
	// A page opened now shows the text so far at once, from the server.
	do(t, ctx, "reloading mid-stream", chromedp.Reload(), chromedp.WaitReady(chromedp.CSS("#transcript")))
	first := evalJS[string](t, ctx, `document.querySelector("#transcript .status-streaming .entry-body").textContent`)
	if !strings.HasPrefix(first, "First sentence holds the point.") {
		t.Fatalf("the page opened mid-stream starts with %q", first)
	}
	// A second line while the answer streams is refused, kept, and the
	// refusal says what it waits for.
	do(t, ctx, "sending while busy", chromedp.SendKeys(chromedp.CSS("#input"), "and another thing"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the busy refusal", `document.querySelector("#say-error").textContent !== ""`)
	if got := evalJS[string](t, ctx, `document.querySelector("#say-error").textContent`); !strings.Contains(got, "Gemini is still answering") || !strings.Contains(got, "when the exchange is over") {
		t.Errorf("busy refusal %q does not say what it waits for", got)
	}
	if got := evalJS[string](t, ctx, `document.querySelector("#input").value`); got != "and another thing" {
		t.Errorf("after the busy refusal the box holds %q", got)
	}
	// Scrolled to the end before the rest streams, the page must follow.
	viewport(t, ctx, 1280, 300, "dark")
	do(t, ctx, "scrolling to the end", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, document.documentElement.scrollHeight); window.__height = document.documentElement.scrollHeight`))
	release()
	waitJS(t, ctx, "the page to grow", `document.documentElement.scrollHeight > window.__height`)
	waitJS(t, ctx, "the answer finished", `document.querySelector("#transcript .kind-reply.status-complete .markdown") !== null`)
	if gap := evalJS[float64](t, ctx, `document.documentElement.scrollHeight - window.scrollY - window.innerHeight`); gap > 2 {
		t.Errorf("the page stopped following the text: %v px below the window", gap)
	}
	want := "First sentence holds the point.Then a second paragraph follows, word by word, until the very last word arrives here at the end."
	for _, sel := range []string{"#transcript .kind-reply .entry-body", ".panel .entry-body"} {
		if got := evalJS[string](t, ctx, `document.querySelector("`+sel+`").textContent.replace(/\n/g, "")`); got != want {
			t.Errorf("%s after the stream: %q, want %q (nothing repeated, nothing lost)", sel, got, want)
		}
	}
}

func TestBrowserRefusedMessageKeepsItsText(t *testing.T) {
	t.Parallel()
	base := startServer(t, testAgents(t))
	ctx := browser(t, "status of 400 (Bad Request)")
	createSession(t, ctx, base, "mention")
	const typed = "@bob please keep this long message I typed"
	do(t, ctx, "typing and pressing Enter", chromedp.SendKeys(chromedp.CSS("#input"), typed), pressEnter())
	waitJS(t, ctx, "the refusal under the input", `document.querySelector("#say-error").textContent.includes("bob")`)
	if got := evalJS[string](t, ctx, `document.querySelector("#input").value`); got != typed {
		t.Errorf("after the refusal the box holds %q, want %q", got, typed)
	}
	below := evalJS[bool](t, ctx, `document.querySelector("#say-error").getBoundingClientRect().top >= document.querySelector("#input").getBoundingClientRect().bottom`)
	if !below {
		t.Error("the refusal is not under the input")
	}
	if n := evalJS[int](t, ctx, `document.querySelectorAll("#transcript li").length`); n != 0 {
		t.Errorf("a refused line left %d transcript items", n)
	}
}

func TestBrowserNarrowLayout(t *testing.T) {
	t.Parallel()
	base := startServer(t, demoAt(2*time.Millisecond))
	ctx := browser(t)
	viewport(t, ctx, 390, 844, "light")
	createSession(t, ctx, base, "magi")
	say(t, ctx, "Should we ship on Friday?")
	waitJS(t, ctx, "the verdict", `document.querySelector("#magi .verdict.decided") !== null && !document.body.classList.contains("busy")`)
	// The board comes before the panels.
	if board, panel := evalJS[float64](t, ctx, `document.querySelector("#magi").getBoundingClientRect().top`),
		evalJS[float64](t, ctx, `document.querySelector(".panel").getBoundingClientRect().top`); board >= panel {
		t.Errorf("at 390 px the board is at %v, below the first panel at %v", board, panel)
	}
	if w := evalJS[int](t, ctx, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("the page is %d px wide at a 390 px viewport", w)
	}
	// Scrolled to the end, the last transcript item ends above the input.
	do(t, ctx, "scrolling to the end", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, document.documentElement.scrollHeight)`))
	last, form := evalJS[float64](t, ctx, `[...document.querySelectorAll("#transcript li")].pop().getBoundingClientRect().bottom`),
		evalJS[float64](t, ctx, `document.querySelector("#say").getBoundingClientRect().top`)
	if last > form {
		t.Errorf("the last transcript item ends at %v, behind the input from %v", last, form)
	}
	shot(t, ctx, "magi-390-light")
	do(t, ctx, "scrolling to the top", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	shot(t, ctx, "magi-390-light-top")
}

// The create form seats the mode's agents, a custom agent among them; the
// session page forks at a turn and deletes.
func TestBrowserCreateWithAgentsForkAndDelete(t *testing.T) {
	t.Parallel()
	base := startServer(t, demoAt(0))
	ctx := browser(t)
	do(t, ctx, "opening the sessions page", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#create")))
	do(t, ctx, "adding a custom agent", chromedp.Evaluate[chromedp.Void](`fetch("/api/v1/agents", {method: "POST", headers: {"Content-Type": "application/json"},
		body: JSON.stringify({name: "pirate", display: "Pirate", provider: "anthropic", model: "claude-haiku-4-5"})}).then(() => { window.__added = true })`))
	waitJS(t, ctx, "the custom agent", `window.__added === true`)
	do(t, ctx, "reloading", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#create")))
	do(t, ctx, "choosing alternate", chromedp.SetValue(chromedp.CSS("#mode"), "alternate"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#mode").dispatchEvent(new Event("change"))`))
	waitJS(t, ctx, "two seats", `document.querySelectorAll("#seats select").length === 2 && document.querySelectorAll("#seats select option[value=pirate]").length === 2`)
	shot(t, ctx, "create-1280")
	do(t, ctx, "seating pirate and claude",
		chromedp.SetValue(chromedp.CSS(`#seats select[aria-label="first 1"]`), "pirate"),
		chromedp.SetValue(chromedp.CSS(`#seats select[aria-label="second 2"]`), "claude"),
		chromedp.SendKeys(chromedp.CSS("#title"), "pirate vs claude"),
		chromedp.Click(chromedp.CSS("#create button")),
		chromedp.WaitVisible(chromedp.CSS(`body[data-mode="alternate"] #input`)))
	if got := evalJS[[]string](t, ctx, `[...document.querySelectorAll(".panel")].map(p => p.dataset.agent)`); strings.Join(got, ",") != "pirate,claude" {
		t.Errorf("panels %v, want pirate and claude", got)
	}
	if got := evalJS[string](t, ctx, `document.querySelector("#session-title").textContent`); got != "pirate vs claude" {
		t.Errorf("title %q", got)
	}
	waitJS(t, ctx, "the event stream", `document.body.classList.contains("live")`)
	say(t, ctx, "Tabs or spaces?")
	waitJS(t, ctx, "the exchange", `document.querySelectorAll("#transcript .status-complete").length >= 2 && !document.body.classList.contains("busy")`)
	parent := evalJS[string](t, ctx, `document.body.dataset.session`)
	do(t, ctx, "forking at turn 1", chromedp.Click(chromedp.CSS(`#turn-1 .fork-at`)),
		chromedp.WaitVisible(chromedp.CSS(`a.fork`)))
	if got := evalJS[string](t, ctx, `document.querySelector("a.fork").textContent`); got != "fork of "+parent+" at turn 1" {
		t.Errorf("fork link %q", got)
	}
	if n := evalJS[int](t, ctx, `document.querySelectorAll("#transcript li").length`); n != 1 {
		t.Errorf("the fork holds %d turns, want 1", n)
	}
	fork := evalJS[string](t, ctx, `document.body.dataset.session`)
	// The fork's page is parsed before its script has run: a click on
	// #delete before the script attached its handler is lost (seen under
	// load). The page is live once the script has wired every control and
	// its event stream opened.
	waitJS(t, ctx, "the fork's page wired and live", `document.body.classList.contains("live")`)
	do(t, ctx, "asking to delete the fork", chromedp.Click(chromedp.CSS("#delete")))
	waitJS(t, ctx, "the delete button asking once more", `document.querySelector("#delete").dataset.armed === "true"`)
	do(t, ctx, "deleting the fork", chromedp.Click(chromedp.CSS("#delete")))
	waitAcrossNavigation(t, ctx, "the sessions page", `document.body.dataset.page === "sessions"`)
	html := evalJS[string](t, ctx, `document.querySelector(".list").textContent`)
	if strings.Contains(html, fork) || !strings.Contains(html, parent) {
		t.Errorf("after deleting %s the list reads %q", fork, html)
	}
}

// geminiAt puts gemini on a fake Gemini server at url and the rest on the demo.
func geminiAt(t *testing.T, url string) func(*config.Config) []*debate.Agent {
	t.Helper()
	return func(cfg *config.Config) []*debate.Agent {
		var agents []*debate.Agent
		for _, spec := range cfg.Agents {
			var p providers.Provider = demo.NewWithPace("demo", 0)
			if spec.Name == "gemini" {
				var err error
				if p, err = openGemini(url); err != nil {
					t.Errorf("opening the fake gemini: %v", err)
				}
			}
			agents = append(agents, &debate.Agent{AgentSpec: spec, Provider: p})
		}
		return agents
	}
}

// pressEnter is the Enter key as a browser sends it to a page: a keydown
// the page may cancel (chromedp.KeyEvent adds a separate char event that
// types a line break whatever the page does).
func pressEnter() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
			if _, err := cdp.Call(ctx, tg, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: typ, Key: "Enter", Code: "Enter",
				WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13}); err != nil {
				return err
			}
		}
		return nil
	})
}

func openGemini(url string) (providers.Provider, error) {
	return open.Open("gemini", providers.Spec{Type: "gemini", BaseURL: url, APIKeyEnv: "K"}, func(string) string { return "test-key" })
}

// When the chairman fails, the council's answer says so and shows the
// top-ranked member's answer in its place, live and after a reload.
func TestBrowserCouncilFallback(t *testing.T) {
	t.Parallel()
	claude := providertest.Anthropic(t, func(r providertest.Request) providertest.Reply {
		if strings.Contains(r.System, "chair Parley's council") {
			return providertest.Reply{Status: 400, Text: "the chairman's model is gone"}
		}
		return providertest.Reply{Text: "Claude says **use a queue**."}
	})
	agents := func(cfg *config.Config) []*debate.Agent {
		out := demoAt(2 * time.Millisecond)(cfg)
		for _, a := range out {
			if a.Name == "claude" {
				p, err := open.Open("anthropic", providers.Spec{Type: "anthropic", BaseURL: claude.URL, APIKeyEnv: "K"}, func(string) string { return "test-key" })
				if err != nil {
					t.Fatal(err)
				}
				a.Provider = p
			}
		}
		return out
	}
	base := startServer(t, agents)
	ctx := browser(t)
	createSession(t, ctx, base, "council")
	say(t, ctx, "Queue or table?")
	waitJS(t, ctx, "the fallback", `!document.querySelector("#fallback").hidden && document.querySelector("#fallback .markdown") !== null`)
	note := evalJS[string](t, ctx, `document.querySelector("#fallback .fallback-note").textContent`)
	if !strings.HasPrefix(note, "The chairman failed: ") || !strings.Contains(note, "not the chairman's answer: the top-ranked answer, by ") {
		t.Errorf("fallback note %q", note)
	}
	answer := evalJS[string](t, ctx, `document.querySelector("#fallback .fallback-body").textContent`)
	do(t, ctx, "reloading", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#council")))
	if got := evalJS[string](t, ctx, `document.querySelector("#fallback .fallback-note").textContent`); got != note {
		t.Errorf("reloaded note %q, live %q", got, note)
	}
	if got := evalJS[string](t, ctx, `document.querySelector("#fallback .fallback-body").textContent`); got != answer || strings.TrimSpace(got) == "" {
		t.Errorf("reloaded fallback %q, live %q", got, answer)
	}
	if hidden := evalJS[bool](t, ctx, `document.querySelector("#fallback").hidden`); hidden {
		t.Error("after a reload the fallback is hidden")
	}
}

// A talk's panels: the MC's head names it once, then its model.
func TestBrowserTalkPanels(t *testing.T) {
	t.Parallel()
	base := startServer(t, demoAt(time.Millisecond))
	ctx := browser(t)
	viewport(t, ctx, 1280, 900, "dark")
	createSession(t, ctx, base, "talk")
	say(t, ctx, "four-day weeks")
	waitJS(t, ctx, "the MC's first turn", `[...document.querySelectorAll("#transcript .kind-moderator")].some(li => li.dataset.status === "complete")`)
	heads := evalJS[[]string](t, ctx, `[...document.querySelectorAll(".panel-head")].map(h => h.querySelector(".panel-name").textContent + "|" + (h.querySelector(".role") ? h.querySelector(".role").textContent : ""))`)
	if len(heads) != 3 || !strings.HasSuffix(heads[0], "|guest A") || !strings.HasSuffix(heads[1], "|guest B") || heads[2] != "MC|" {
		t.Errorf("talk panel heads (name|role) %v, want the guests' roles and the MC named once", heads)
	}
	shot(t, ctx, "talk-1280-dark")
}

// waitAcrossNavigation is waitJS for a condition the page meets after it
// navigates: a poll cut short by the navigation is polled again in the new
// document (the test's context bounds the whole wait).
func waitAcrossNavigation(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	// The new page's body carries its data attributes as soon as its tag is
	// parsed, before the rest of the page: wait for the whole document (seen
	// in CI: the sessions list was not there yet).
	expr = `document.readyState !== "loading" && (` + expr + `)`
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr,
			chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(30*time.Second)))
		if err == nil {
			return
		}
		gone := false // the document polled went away with the navigation
		for _, m := range []string{"navigated or closed", "Cannot find context", "context was destroyed"} {
			gone = gone || strings.Contains(err.Error(), m)
		}
		if !gone || ctx.Err() != nil {
			t.Fatalf("waiting for %s (%s): %v", what, expr, err)
		}
	}
}

// The front page fits a 390 px phone: the mode menu (its options name each
// mode with its title), the forms and the session list never make the page
// wider than the window (issue 33: it was 883 px).
func TestBrowserFrontPageFitsAPhone(t *testing.T) {
	t.Parallel()
	base := startServer(t, demoAt(2*time.Millisecond))
	ctx := browser(t)
	createSession(t, ctx, base, "council")
	viewport(t, ctx, 390, 844, "light")
	do(t, ctx, "opening the front page", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#create button")))
	if n := evalJS[int](t, ctx, `document.querySelectorAll(".session-list tbody tr").length`); n != 1 {
		t.Fatalf("the session list holds %d rows, want the session just made", n)
	}
	if w := evalJS[int](t, ctx, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("the front page is %d px wide at a 390 px viewport (#mode %.0f px, the list %.0f px)", w,
			evalJS[float64](t, ctx, `document.querySelector("#mode").getBoundingClientRect().width`),
			evalJS[float64](t, ctx, `document.querySelector(".session-list").getBoundingClientRect().width`))
	}
	shot(t, ctx, "front-390-light")
}
