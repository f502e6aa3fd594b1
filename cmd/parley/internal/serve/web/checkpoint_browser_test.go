package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// A MAGI session created on the page with checkpoints waits after round 1:
// the page shows the choices as buttons and a text box; the note written
// there and sent with its button reaches the transcript as the host's
// words; after round 2 the bar comes back, also on a reloaded page (the
// server renders it), and Stop ends the council with the outcome saying so.
func TestBrowserCheckpointButtons(t *testing.T) {
	t.Parallel()
	base := startServer(t, demoAt(time.Millisecond))
	ctx := browser(t)
	do(t, ctx, "creating a magi session with checkpoints",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.CSS("#create button")),
		chromedp.WaitEnabled(chromedp.CSS("#create button")), // wired by the page's script
		chromedp.SetValue(chromedp.CSS("#mode"), "magi"),
		chromedp.SetValue(chromedp.CSS("#checkpoint"), "each_round"),
		chromedp.Click(chromedp.CSS("#create button")),
		chromedp.WaitVisible(chromedp.CSS(`body[data-page="session"][data-mode="magi"] #input`)),
	)
	waitJS(t, ctx, "the event stream", `document.body.classList.contains("live")`)
	if evalJS[bool](t, ctx, `!document.querySelector("#checkpoint").hidden`) {
		t.Fatal("the checkpoint bar shows before anything waits")
	}
	say(t, ctx, "Should we ship on Friday?")
	waitJS(t, ctx, "the checkpoint after round 1", `!document.querySelector("#checkpoint").hidden &&
		document.querySelector("#checkpoint .checkpoint-what").textContent.startsWith("CHECKPOINT after round 1 of 3: ")`)
	buttons := evalJS[[]string](t, ctx, `[...document.querySelectorAll("#checkpoint button")].map(b => b.textContent)`)
	if strings.Join(buttons, "|") != "Continue|Add the note|Drop MELCHIOR|Drop BALTHASAR|Drop CASPER|Stop|Swap" &&
		strings.Join(buttons, "|") != "Continue|Add the note|Drop melchior|Drop balthasar|Drop casper|Stop|Swap" {
		t.Fatalf("buttons %q", buttons)
	}
	// The note's button without a note says so and sends nothing.
	do(t, ctx, "adding an empty note", chromedp.Click(chromedp.CSS(`#checkpoint button[data-action="note"]`)))
	if msg := evalJS[string](t, ctx, `document.querySelector("#checkpoint .checkpoint-error").textContent`); !strings.Contains(msg, "note") {
		t.Errorf("an empty note: %q", msg)
	}
	do(t, ctx, "writing the note",
		chromedp.SendKeys(chromedp.CSS("#checkpoint-text"), "The budget was cut by half."),
		chromedp.Click(chromedp.CSS(`#checkpoint button[data-action="note"]`)),
	)
	waitJS(t, ctx, "the checkpoint after round 2", `!document.querySelector("#checkpoint").hidden &&
		document.querySelector("#checkpoint .checkpoint-what").textContent.startsWith("CHECKPOINT after round 2 of 3: ")`)
	if !evalJS[bool](t, ctx, `[...document.querySelectorAll("#transcript .kind-user")].some(e => e.textContent.includes("The budget was cut by half."))`) {
		t.Error("the note is not in the transcript as the host's words")
	}
	do(t, ctx, "reloading while it waits", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#checkpoint button")))
	waitJS(t, ctx, "the event stream", `document.body.classList.contains("live")`)
	if got := evalJS[string](t, ctx, `document.querySelector("#checkpoint .checkpoint-what").textContent`); !strings.HasPrefix(got, "CHECKPOINT after round 2 of 3: ") {
		t.Fatalf("the reloaded page's bar says %q", got)
	}
	do(t, ctx, "stopping", chromedp.Click(chromedp.CSS(`#checkpoint button[data-action="stop"]`)))
	waitJS(t, ctx, "the stopped outcome", `[...document.querySelectorAll("#transcript .kind-verdict")].some(e => e.textContent.includes("STOPPED by the host after round 2: "))`)
	waitJS(t, ctx, "the bar gone", `document.querySelector("#checkpoint").hidden`)
}
