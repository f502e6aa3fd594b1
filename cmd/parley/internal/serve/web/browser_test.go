package web_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
)

// chromiumPath is Debian's chromium, which .ci/run installs.
const chromiumPath = "/usr/bin/chromium"

// hostileAnswer is what the fake models answer: Markdown, a script that
// would set a window flag, and an image whose error handler would too.
const hostileAnswer = "**Monads** wrap values. <script>window.__pwned = 1</script> " +
	`<img src=x onerror="window.__pwned = 2"> and [click](javascript:window.__pwned=3) the end.`

// browser opens a tab for one test in a browser context of its own (its
// own cookies, storage and cache, disposed with the test) on the package's
// one headless Chromium (sharedChromium), and reports every uncaught page
// exception and console or browser-log error (a CSP violation is one) as a
// test failure, except those containing one of expected.
func browser(t *testing.T, expected ...string) context.Context {
	t.Helper()
	needChromium(t)
	root, err := sharedChromium()
	if err != nil {
		t.Fatalf("starting %s: %v", chromiumPath, err)
	}
	ctx, cancelCtx := chromedp.NewContext(root, chromedp.WithNewBrowserContext())
	return watchTab(t, ctx, cancelCtx, expected)
}

// browserWith starts a Chromium of the test's own with more options (a
// flag such as host-resolver-rules holds for a whole browser, not a tab).
func browserWith(t *testing.T, extra []chromedp.ExecAllocatorOption, expected ...string) context.Context {
	t.Helper()
	needChromium(t)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		append(chromiumOptions(t.TempDir()), extra...)...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	return watchTab(t, ctx, func() { cancelCtx(); cancelAlloc() }, expected)
}

// needChromium skips the test without Chromium, or fails it on CI.
func needChromium(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		msg := fmt.Sprintf("browser tests need Chromium at %s (apt-get install -y chromium; .ci/run installs it): %v", chromiumPath, err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg) // on CI a missing browser is a broken run, not a green one
		}
		t.Skip(msg)
	}
}

// chromiumOptions are the flags every test browser starts with.
func chromiumOptions(userDataDir string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(userDataDir),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1400, 1000),
		chromedp.Flag("disable-features", chromiumNoPreloadedUI),
	}
}

// chromiumNoPreloadedUI turns off the omnibox popups that Chromium 15x
// builds in WebUI and preloads for every window, headless ones included:
// two chrome://omnibox-popup.top-chrome renderers per browser context,
// about 0.9 core-s a tab that no test looks at (measured with Chromium 156
// from Debian: a tab opened, a page loaded and 2 s idle cost 1.2 core-s
// with them and 0.3 without). Puppeteer disables the same two features by
// default (puppeteer/puppeteer#15278).
const chromiumNoPreloadedUI = "WebUIOmniboxPopup,WebUIOmniboxAimPopup"

// watchTab opens the tab, collects its console errors for the end of the
// test, and gives the test 90 seconds; stop closes the tab (and the
// browser context or browser it alone used).
func watchTab(t *testing.T, ctx context.Context, stop func(), expected []string) context.Context {
	t.Helper()
	if err := chromedp.Do(ctx); err != nil { // opens the tab (and starts its browser)
		stop()
		t.Fatalf("opening a tab in %s: %v", chromiumPath, err)
	}
	messages := chromedp.Console(ctx)
	var problems []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if (m.Type == chromedp.ConsoleError || m.IsException()) &&
				!slices.ContainsFunc(expected, func(e string) bool { return strings.Contains(m.Text, e) }) {
				problems = append(problems, m.String()+" ("+m.URL+")")
			}
		}
	}()
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() {
		cancelTimeout()
		stop()
		<-done
		for _, p := range problems {
			t.Errorf("page: %s", p)
		}
	})
	return ctx
}

// do is chromedp.Do that fails the test with what it was doing and the page.
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		page, _ := chromedp.Run(context.WithoutCancel(ctx), chromedp.OuterHTML(chromedp.CSS("body")))
		t.Fatalf("%s: %v\npage body:\n%s", what, err, page)
	}
}

// waitJS polls a JavaScript condition until it is true.
func waitJS(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr,
		chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		page, _ := chromedp.Run(context.WithoutCancel(ctx), chromedp.OuterHTML(chromedp.CSS("body")))
		t.Fatalf("waiting for %s (%s): %v\npage body:\n%s", what, expr, err, page)
	}
}

func evalJS[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	out, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return out
}

// testAgents puts gemini on a fake Gemini server and chatgpt on a fake
// OpenAI server, both streaming hostileAnswer a word every 40 ms, and every
// other agent (the MAGI members among them) on the offline demo provider.
func testAgents(t *testing.T) func(*config.Config) []*debate.Agent {
	reply := func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: hostileAnswer, ChunkDelay: 40 * time.Millisecond,
			Usage: providers.Usage{InputTokens: 10, OutputTokens: 20}}
	}
	gemini := providertest.Gemini(t, reply)
	openai := providertest.OpenAI(t, reply)
	getenv := func(string) string { return "test-key" }
	return func(cfg *config.Config) []*debate.Agent {
		var agents []*debate.Agent
		for _, spec := range cfg.Agents {
			var p providers.Provider
			var err error
			switch spec.Name {
			case "gemini":
				p, err = open.Open("gemini", providers.Spec{Type: "gemini", BaseURL: gemini.URL, APIKeyEnv: "K"}, getenv)
			case "chatgpt":
				p, err = open.Open("openai", providers.Spec{Type: "openai", BaseURL: openai.URL, APIKeyEnv: "K"}, getenv)
			default:
				p = demo.NewWithPace("demo", 2*time.Millisecond)
			}
			if err != nil {
				panic(fmt.Sprintf("opening a fake provider: %v", err))
			}
			agents = append(agents, &debate.Agent{AgentSpec: spec, Provider: p})
		}
		return agents
	}
}

// createSession uses the sessions page's form and returns once the
// browser is on the new session's page.
func createSession(t *testing.T, ctx context.Context, base, mode string) {
	t.Helper()
	do(t, ctx, "creating a "+mode+" session",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.CSS("#create button")),
		chromedp.WaitEnabled(chromedp.CSS("#create button")), // wired by the page's script
		chromedp.SetValue(chromedp.CSS("#mode"), mode),
		chromedp.SendKeys(chromedp.CSS("#title"), "browser "+mode),
		chromedp.Click(chromedp.CSS("#create button")),
		chromedp.WaitVisible(chromedp.CSS(`body[data-page="session"][data-mode="`+mode+`"] #input`)),
	)
	waitJS(t, ctx, "the event stream", `document.body.classList.contains("live")`)
}

func say(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	do(t, ctx, "sending "+text,
		chromedp.WaitEnabled(chromedp.CSS("#send")), // wired by the page's script
		chromedp.SendKeys(chromedp.CSS("#input"), text),
		chromedp.Click(chromedp.CSS("#send")),
	)
}

// assertNoScriptRan checks that the hostile answer never executed and is
// not in the page as markup: one script element (the page's own), no
// inline handlers anywhere, and the flag the payload would set is unset.
func assertNoScriptRan(t *testing.T, ctx context.Context) {
	t.Helper()
	if got := evalJS[string](t, ctx, `String(window.__pwned)`); got != "undefined" {
		t.Errorf("a model's script ran: window.__pwned = %s", got)
	}
	scripts := evalJS[[]string](t, ctx, `[...document.querySelectorAll("script")].map(s => s.getAttribute("src") || "inline")`)
	if strings.Join(scripts, " ") != "/static/live.js /static/boards.js /static/checkpoint.js /static/app.js" {
		t.Errorf("script elements %v, want only the page's own four", scripts)
	}
	if n := evalJS[int](t, ctx, `[...document.querySelectorAll("*")].filter(e => [...e.attributes].some(a => a.name.startsWith("on") || a.name === "style" || /^\s*javascript:/i.test(a.value))).length`); n != 0 {
		t.Errorf("%d elements carry event handlers, style or javascript: URLs", n)
	}
}

// TestBrowserMentionStreamsBothPanels and TestBrowserMagiVerdictBanner run
// against the real server (package serve), the only back end the page
// has. They also ran against a stand-in API written for the tests, which
// doubled their cost (~2.7 s of CPU each, mostly Chromium's) and guarded
// nothing a user reaches (issue 44: the suite's wall time).
func TestBrowserMentionStreamsBothPanels(t *testing.T) {
	t.Parallel()
	base := startServer(t, testAgents(t)) // first, so it stops after the browser
	ctx := browser(t)
	createSession(t, ctx, base, "mention")
	if evalJS[bool](t, ctx, `document.querySelector("header .signout") !== null`) {
		t.Error("a server without a token offers to sign out")
	}

	say(t, ctx, "@all what is a monad?")
	// Both panels and both transcript items stream at the same time, as
	// text: the script in the answer is visible text, not markup.
	waitJS(t, ctx, "both panels streaming",
		`[...document.querySelectorAll(".panel")].filter(p => p.querySelector(".streaming") && p.querySelector(".streaming").textContent.length > 0).length === 2 &&
		 document.querySelectorAll("#transcript .kind-reply.status-streaming .streaming").length === 2`)
	waitJS(t, ctx, "the streamed script text", `[...document.querySelectorAll(".panel .entry-body")].some(s => s.textContent.includes("<script>"))`)
	assertNoScriptRan(t, ctx)

	// The transcript fills: the question, then both answers, each swapped
	// for the server's rendered Markdown once finished.
	waitJS(t, ctx, "both answers rendered",
		`document.querySelectorAll("#transcript .kind-reply.status-complete .markdown strong").length === 2 && document.querySelectorAll(".panel .markdown strong").length === 2`)
	if got := evalJS[string](t, ctx, `document.querySelector("#transcript .kind-user .entry-body").textContent`); got != "@all what is a monad?" {
		t.Errorf("user line in the transcript: %q", got)
	}
	speakers := evalJS[[]string](t, ctx, `[...document.querySelectorAll("#transcript .kind-reply")].map(li => li.dataset.speaker).sort()`)
	if strings.Join(speakers, ",") != "chatgpt,gemini" {
		t.Errorf("answers from %v, want chatgpt and gemini", speakers)
	}
	text := evalJS[string](t, ctx, `document.querySelector("#transcript .kind-reply .markdown").textContent`)
	if !strings.Contains(text, "<script>window.__pwned = 1</script>") || !strings.Contains(text, "Monads wrap values.") {
		t.Errorf("rendered answer text %q: want the bold text and the script shown as text", text)
	}
	if n := evalJS[int](t, ctx, `document.querySelectorAll(".markdown a[href^='javascript']").length`); n != 0 {
		t.Errorf("%d javascript: links survived", n)
	}
	assertNoScriptRan(t, ctx)

	// A reload renders the same from the server alone.
	do(t, ctx, "reloading", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#transcript")))
	if n := evalJS[int](t, ctx, `document.querySelectorAll("#transcript .kind-reply .markdown strong").length`); n != 2 {
		t.Errorf("after a reload, %d rendered answers, want 2", n)
	}
	assertNoScriptRan(t, ctx)

	// Switching to MAGI keeps the transcript and brings the council's panels
	// and vote board (session_updated reloads the page).
	waitJS(t, ctx, "the event stream", `document.body.classList.contains("live")`)
	// One script sets the value and fires change: the switch reloads the
	// page, so a second step could find the old document gone.
	do(t, ctx, "switching to magi",
		chromedp.Evaluate[chromedp.Void](`{ const s = document.querySelector("#mode-switch"); s.value = "magi"; s.dispatchEvent(new Event("change")) }`),
		chromedp.WaitVisible(chromedp.CSS(`body[data-mode="magi"] #magi .vote-board`))) // across the reload
	if n := evalJS[int](t, ctx, `document.querySelectorAll("#transcript .kind-reply").length`); n != 2 {
		t.Errorf("after the switch, %d answers in the transcript, want 2", n)
	}
	if n := evalJS[int](t, ctx, `document.querySelectorAll(".panel").length`); n != 3 {
		t.Errorf("after the switch, %d panels, want the 3 council members", n)
	}
}

func TestBrowserMagiVerdictBanner(t *testing.T) {
	t.Parallel()
	base := startServer(t, testAgents(t)) // first, so it stops after the browser
	ctx := browser(t)
	createSession(t, ctx, base, "magi")
	if n := evalJS[int](t, ctx, `document.querySelectorAll("#magi .vote-board tbody tr").length`); n != 3 {
		t.Fatalf("vote board has %d member rows before the question, want 3", n)
	}

	say(t, ctx, "Should we ship on Friday?")
	waitJS(t, ctx, "the verdict banner", `document.querySelector("#magi .verdict.decided") !== null`)
	shown := evalJS[string](t, ctx, `document.querySelector("#magi .verdict").dataset.verdict`)
	banner := evalJS[string](t, ctx, `document.querySelector("#magi .verdict").textContent`)
	switch shown {
	case "APPROVED", "REJECTED", "NO CONSENSUS", "INCOMPLETE":
	default:
		t.Errorf("verdict %q", shown)
	}
	if !strings.HasPrefix(banner, shown+" after round 3: ") {
		t.Errorf("banner %q", banner)
	}
	cells := evalJS[[]string](t, ctx, `[...document.querySelectorAll("#magi td.cell")].map(td => td.textContent)`)
	if len(cells) != 9 {
		t.Fatalf("%d board cells, want 3 members × 3 rounds: %v", len(cells), cells)
	}
	for _, c := range cells {
		v := strings.TrimSpace(strings.TrimSuffix(c, "↻"))
		if !verdict.Vote(v).Valid() && v != "invalid" {
			t.Errorf("board cell %q is not a vote", c)
		}
	}
	flips := evalJS[[]string](t, ctx, `[...document.querySelectorAll("#magi .flips li")].map(li => li.textContent)`)
	if changed := evalJS[int](t, ctx, `document.querySelectorAll("#magi td.changed").length`); changed != len(flips) {
		t.Errorf("%d changed cells but %d listed vote changes %v", changed, len(flips), flips)
	}
	if q := evalJS[string](t, ctx, `document.querySelector("#magi .question").textContent`); q != "Should we ship on Friday?" {
		t.Errorf("board question %q", q)
	}
	// The server's render of the finished council agrees with the live board.
	do(t, ctx, "reloading", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#magi")))
	if got := evalJS[string](t, ctx, `document.querySelector("#magi .verdict").dataset.verdict`); got != shown {
		t.Errorf("after a reload the verdict is %q, live it was %q", got, shown)
	}
	if got := evalJS[[]string](t, ctx, `[...document.querySelectorAll("#magi td.cell")].map(td => td.textContent)`); strings.Join(got, "|") != strings.Join(cells, "|") {
		t.Errorf("after a reload the board is %v, live it was %v", got, cells)
	}
	if got := evalJS[[]string](t, ctx, `[...document.querySelectorAll("#magi .flips li")].map(li => li.textContent)`); strings.Join(got, "|") != strings.Join(flips, "|") {
		t.Errorf("after a reload the vote changes are %v, live they were %v", got, flips)
	}
	assertNoScriptRan(t, ctx)
}

// With a token, the browser logs in once with the login form (a token in
// the address logs nobody in), which sets the server's session cookie; the
// page's fetches and its event stream then carry the cookie as same-origin
// requests, with no token in the page; logging out ends it.
func TestBrowserWithToken(t *testing.T) {
	t.Parallel()
	const token = "s3cret-token"
	base := startServerWithToken(t, testAgents(t), token)
	ctx := browser(t, "status of 401 (Unauthorized)") // the visits before the login

	do(t, ctx, "opening / without the token", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#login #token")))
	do(t, ctx, "a token in the address", chromedp.Navigate(base+"/login?token="+token), chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.CSS("#login #token")))
	do(t, ctx, "logging in",
		chromedp.SendKeys(chromedp.CSS("#token"), token),
		chromedp.Click(chromedp.CSS("#login button")),
		chromedp.WaitVisible(chromedp.CSS("#create button")))
	createSession(t, ctx, base, "mention")
	if html := evalJS[string](t, ctx, `document.documentElement.outerHTML`); strings.Contains(html, token) {
		t.Error("the page carries the token")
	}
	say(t, ctx, "@all hello?")
	waitJS(t, ctx, "both answers rendered", `document.querySelectorAll("#transcript .kind-reply.status-complete .markdown strong").length === 2`)
	assertNoScriptRan(t, ctx)
	// The page's own sign-out button ends the login session on the server.
	do(t, ctx, "signing out with the page's button",
		chromedp.Click(chromedp.CSS("header .signout button")),
		chromedp.WaitVisible(chromedp.CSS("#login #token")))
	do(t, ctx, "opening / after the logout", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#login #token")))
}
