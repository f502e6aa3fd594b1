package web_test

import (
	"context"
	"os"
	"sync"

	"github.com/chromedp/chromedp"
)

// The package's one headless Chromium. Starting a browser per test cost
// each test a second or more of CPU (a browser, a GPU, a network and a
// renderer process) and, with the tests parallel, ran up to a dozen
// browsers at once; now every test opens a tab in a browser context of its
// own on this one (browser), which isolates cookies, storage and cache as
// a browser of its own did. Started by the first test that asks, stopped
// by TestMain.
var chromium struct {
	once sync.Once
	root context.Context // the browser's first tab; tests open theirs beside it
	stop func()
	err  error
}

// sharedChromium is the root context of the package's browser, started on
// first use.
func sharedChromium() (context.Context, error) {
	chromium.once.Do(func() {
		dir, err := os.MkdirTemp("", "parley-web-chromium-")
		if err != nil {
			chromium.err = err
			return
		}
		allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), chromiumOptions(dir)...)
		root, cancelRoot := chromedp.NewContext(allocCtx)
		chromium.root = root
		chromium.stop = func() {
			cancelRoot()
			cancelAlloc()
			_ = os.RemoveAll(dir)
		}
		chromium.err = chromedp.Do(root) // starts the browser
	})
	return chromium.root, chromium.err
}

// stopSharedChromium stops the package's browser if a test started it.
func stopSharedChromium() {
	if chromium.stop != nil {
		chromium.stop()
	}
}
