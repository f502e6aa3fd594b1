package tui

import (
	"github.com/parleyhq/parley/tui/prefs"

	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/evidence"
	"github.com/parleyhq/parley/debate/transcript"
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

// The transcript's line of a saved call is the panel's: the evidence id
// first, as the core words it (seen: "✓ fetch_url url=…", no id), and a
// hostile argument or error never drives the terminal.
func TestTranscriptToolLineCarriesTheEvidenceID(t *testing.T) {
	t.Parallel()
	tr := newTranscript(newMarkdown(newTheme(prefs.ThemeDark)), nil, func(time.Time) string { return "t" })
	tr.SetSize(100, 20)
	tr.Put(transcript.Entry{Turn: 1, Kind: transcript.KindToolCall, Speaker: "melchior", Status: transcript.StatusComplete,
		ToolCalls: []transcript.ToolCall{{Tool: "fetch_url", Parameters: map[string]string{"url": "http://x/r"}, Result: "page"}},
		Evidence:  []evidence.Record{{ID: "E1", Source: "http://x/r"}}})
	tr.Put(transcript.Entry{Turn: 2, Kind: transcript.KindToolCall, Speaker: "melchior", Status: transcript.StatusComplete,
		ToolCalls: []transcript.ToolCall{{Tool: "fetch_url", Parameters: map[string]string{"url": "http://10.0.0.1/\x1b[2J"},
			Error: "refused: \x1b]0;pwned\x07private"}}})
	var view []string
	for _, l := range tr.View() {
		view = append(view, strings.TrimSpace(ansi.Strip(l)))
	}
	got := strings.Join(view, "\n")
	panel := &panel{}
	panel.NativeToolFinished(debate.ToolFinished{CallID: "c", Tool: "fetch_url", Arguments: `{"url":"http://x/r"}`, Evidence: "E1"})
	if !strings.Contains(got, panel.tools[0]) || panel.tools[0] != "✓ E1 fetch_url x/r" || !strings.Contains(got, "✗ fetch_url refused: private · 10.0.0.1/") {
		t.Errorf("transcript:\n%s\nwant the panel's %q and the refusal", got, panel.tools[0])
	}
	if strings.ContainsAny(strings.Join(tr.View(), ""), "\x07") || strings.Contains(got, "pwned") {
		t.Errorf("control sequences reached the transcript: %q", got)
	}
}
