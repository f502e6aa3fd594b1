package headless

import (
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/evidence"
	"github.com/parleyhq/parley/debate/transcript"
)

// Native tool calls print one line each on stderr, cleaned, in text and
// JSON; --jsonl carries the three events on stdout.
func TestNativeToolCallsAreShown(t *testing.T) {
	t.Parallel()
	events := []debate.Event{
		debate.ToolStarted{Turn: 2, Agent: "melchior", CallID: "c1", Tool: "fetch_url", Arguments: `{"url":"http://x/r"}`},
		debate.EvidenceAdded{Turn: 2, Record: evidence.Record{ID: "E1", Kind: "url", Source: "http://x/r", Title: "R"}},
		debate.ToolFinished{Turn: 2, Agent: "melchior", CallID: "c1", Tool: "fetch_url", Arguments: `{"url":"http://x/r"}`, Result: "page", Bytes: 2048, Evidence: "E1", TookMS: 35},
		debate.ToolFinished{Turn: 2, Agent: "casper", CallID: "c2", Tool: "fetch_url", Arguments: `{"url":"http://10.0.0.1/\u001b[2J"}`, Result: "refused: 10.0.0.1 is a private address", IsError: true},
	}
	for _, format := range []Format{Text, JSON} {
		var out, errs strings.Builder
		p := New(Options{Out: &out, Err: &errs, Format: format, Style: Conversation})
		for _, ev := range events {
			p.Sink(ev)
		}
		want := "[melchior] fetch_url url=http://x/r → E1 (2.0 KB, 35 ms)\n[casper] fetch_url url=http://10.0.0.1/ → refused: 10.0.0.1 is a private address\n"
		if errs.String() != want {
			t.Errorf("format %d: stderr %q, want %q", format, errs.String(), want)
		}
		if strings.Contains(out.String(), "fetch_url") {
			t.Errorf("format %d: stdout got a tool line: %q", format, out.String())
		}
	}
	var out, errs strings.Builder
	p := New(Options{Out: &out, Err: &errs, Format: JSONL, Style: Conversation})
	for _, ev := range events {
		p.Sink(ev)
	}
	for _, typ := range []string{`"type":"tool_started"`, `"type":"evidence_added"`, `"type":"tool_finished"`, `"id":"E1"`} {
		if !strings.Contains(out.String(), typ) {
			t.Errorf("jsonl lacks %s: %s", typ, out.String())
		}
	}
}

// sessions show lists the ledger after the transcript, cleaned.
func TestTranscriptListsTheLedger(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	entries := []transcript.Entry{
		{Turn: 1, Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: "q", Status: transcript.StatusComplete},
		{Turn: 3, Kind: transcript.KindToolCall, Speaker: "melchior", Status: transcript.StatusComplete,
			ToolCalls: []transcript.ToolCall{{Tool: "fetch_url", Parameters: map[string]string{"url": "http://x/r"}}},
			Evidence: []evidence.Record{{ID: "E1", Source: "http://x/r", Title: "Report\x1b[2J", Tool: "fetch_url", Agent: "melchior", Turn: 2, Taken: at,
				Digest: evidence.Digest("page")}}},
	}
	var out strings.Builder
	Transcript(&out, debate.SessionInfo{ID: "s1"}, entries)
	want := "\nevidence:\n  E1  http://x/r — Report · fetch_url by melchior, turn 2, 2026-11-28T10:00:00Z · sha256:"
	if !strings.Contains(out.String(), want) {
		t.Errorf("transcript:\n%s\nwant %q", out.String(), want)
	}
	// The call's line is the console's: its evidence id first.
	if line := "   tool ✓ E1 fetch_url x/r\n"; !strings.Contains(out.String(), line) {
		t.Errorf("transcript:\n%s\nwant %q", out.String(), line)
	}
}
