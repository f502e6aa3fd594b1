package tui

import (
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate"
)

// A native call shows as one line in its member's panel: in flight, then
// its outcome as the core words it; nothing from the tool drives the terminal.
func TestPanelShowsNativeToolCalls(t *testing.T) {
	t.Parallel()
	p := &panel{name: "melchior"}
	p.NativeToolStarted(debate.ToolStarted{Agent: "melchior", CallID: "c1", Tool: "fetch_url", Arguments: "{\"url\":\n\"http://x/r\"}"})
	p.NativeToolStarted(debate.ToolStarted{Agent: "melchior", CallID: "c2", Tool: "fetch_url", Arguments: `{"url":"http://10.0.0.1/"}`})
	if len(p.tools) != 2 || p.tools[0] != "⋯ fetch_url x/r" {
		t.Fatalf("in flight: %q", p.tools)
	}
	p.NativeToolFinished(debate.ToolFinished{Agent: "melchior", CallID: "c2", Tool: "fetch_url", Arguments: `{"url":"http://10.0.0.1/"}`,
		Result: "refused: \x1b]0;pwned\x07private", IsError: true})
	p.NativeToolFinished(debate.ToolFinished{Agent: "melchior", CallID: "c1", Tool: "fetch_url", Arguments: `{"url":"http://x/r"}`, Bytes: 10, Evidence: "E1", TookMS: 3})
	// The id first, the URL without its scheme: a panel's width cuts the
	// end (seen: "✓ fetch_url url=http://127.0…", the id lost).
	want := []string{"✓ E1 fetch_url x/r", "✗ fetch_url refused: private · 10.0.0.1/"}
	if strings.Join(p.tools, "|") != strings.Join(want, "|") {
		t.Errorf("done: %q, want %q", p.tools, want)
	}
}
