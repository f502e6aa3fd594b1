package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath is Debian's chromium, which .ci/run installs.
const chromiumPath = "/usr/bin/chromium"

// The HTML report in a real Chromium at a phone's 390 pixels: nothing
// loads from outside, nothing runs, nothing overflows the page sideways,
// the charts' text stays readable, and each problem opens to its rounds.
func TestHTMLReportInChromiumAt390Pixels(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		msg := fmt.Sprintf("the HTML report's browser test needs Chromium at %s (apt-get install -y chromium): %v", chromiumPath, err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	// A simulated run with both baselines on problems whose text would run
	// as HTML if the page did not escape it.
	qs := GSM8KStyle(6, 2)
	qs[0].Question = `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> ` + qs[0].Question
	qs[1].ID = `"><img src=x onerror="window.__pwned=3">`
	cfg, council := ruleCouncil(t)
	agents := Simulate(council, members, qs, 2)
	first, err := agentFor(agents, "melchior", "--same-model")
	if err != nil {
		t.Fatal(err)
	}
	out, err := Run(context.Background(), Setup{Config: cfg, Agents: agents, Rounds: 3, Workers: 2, SameModel: first, SelfConsistency: first}, qs, nil)
	if err != nil || len(out.Results) != 6 {
		t.Fatal(err, len(out.Results))
	}
	rep := Measure(out.Results, members, 3)
	rep.Run, rep.Set, rep.Total, rep.Simulation = "htmltest", BuiltinGSM8K, 6, describeSim(true)
	page := filepath.Join(t.TempDir(), "report.html")
	if err := WriteHTMLFile(page, rep); err != nil {
		t.Fatal(err)
	}

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), chromedp.ExecPath(chromiumPath), chromedp.Headless,
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(390, 844),
		// Chromium 15x preloads two WebUI omnibox popups a window (a
		// renderer each, ~0.9 core-s) that a headless test never shows.
		chromedp.Flag("disable-features", "WebUIOmniboxPopup,WebUIOmniboxAimPopup"))
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	defer cancelTimeout()

	type layoutOf struct {
		ViewportWidth, ScrollWidth float64
		SVGs                       int
		WidestSVG, SmallestText    float64
		Resources, Items           int
		Pwned                      any
		Title, Simulation          string
	}
	type openedOf struct {
		Open      bool
		Rows      int
		Question  string
		ScrollMax float64
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate("file://"+page), chromedp.WaitReady(chromedp.CSS("#items"))); err != nil {
		t.Fatal(err)
	}
	layout, err := chromedp.Run(ctx, chromedp.Evaluate[layoutOf](`(() => {
			const svgs = [...document.querySelectorAll('svg')];
			const texts = [...document.querySelectorAll('svg text')].map(t => t.getBoundingClientRect().height).filter(h => h > 0);
			return {
				ViewportWidth: window.innerWidth,
				ScrollWidth: document.documentElement.scrollWidth,
				SVGs: svgs.length,
				WidestSVG: Math.max(...svgs.map(s => s.getBoundingClientRect().width)),
				SmallestText: Math.min(...texts),
				Resources: performance.getEntriesByType('resource').length,
				Items: document.querySelectorAll('#items details').length,
				Pwned: window.__pwned === undefined ? null : window.__pwned,
				Title: document.querySelector('h1').textContent,
				Simulation: (document.querySelector('.sim') || {}).textContent || '',
			};
		})()`))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#items details:first-child summary"))); err != nil {
		t.Fatal(err)
	}
	opened, err := chromedp.Run(ctx, chromedp.Evaluate[openedOf](`(() => {
			const d = document.querySelector('#items details');
			return {Open: d.open, Rows: d.querySelectorAll('table')[0].querySelectorAll('tr').length - 1,
				Question: d.querySelector('.q').textContent, ScrollMax: document.documentElement.scrollWidth};
		})()`))
	if err != nil {
		t.Fatal(err)
	}
	if layout.ViewportWidth != 390 || layout.ScrollWidth > layout.ViewportWidth {
		t.Errorf("the page is %v pixels wide in a %v-pixel window: it scrolls sideways", layout.ScrollWidth, layout.ViewportWidth)
	}
	if layout.SVGs != 3 || layout.WidestSVG > layout.ViewportWidth || layout.SmallestText < 9 {
		t.Errorf("%d charts, the widest %v px, the smallest chart text %v px high", layout.SVGs, layout.WidestSVG, layout.SmallestText)
	}
	if layout.Resources != 0 || layout.Pwned != nil {
		t.Errorf("%d resources loaded; window.__pwned = %v", layout.Resources, layout.Pwned)
	}
	if layout.Items != 6 || !strings.Contains(layout.Title, "simulation") || !strings.HasPrefix(layout.Simulation, "SIMULATION") {
		t.Errorf("%d problems, title %q, simulation label %q", layout.Items, layout.Title, layout.Simulation)
	}
	if !opened.Open || opened.Rows != 9 || !strings.Contains(opened.Question, "<script>") || opened.ScrollMax > layout.ViewportWidth {
		t.Errorf("the first problem opened %v with %d vote rows (want 3 rounds × 3), question %q, page %v px wide", opened.Open, opened.Rows, opened.Question, opened.ScrollMax)
	}
}
