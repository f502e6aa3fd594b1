package store

import (
	"context"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/evidence"
	"github.com/parleyhq/parley/debate/transcript"
)

// A tool call's evidence record is saved with its entry and read back.
func TestEvidenceIsSavedWithItsEntry(t *testing.T) {
	t.Parallel()
	st := openTemp(t)
	ctx := context.Background()
	at := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	rec := evidence.Record{ID: "E1", Kind: evidence.KindURL, Source: "http://127.0.0.1:8080/page", Title: "Report", Tool: "fetch_url",
		Agent: "melchior", Turn: 2, Taken: at, Digest: evidence.Digest("text"), Text: "text"}
	entries := []transcript.Entry{
		{Turn: 1, Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: "q", Status: transcript.StatusComplete, Started: at},
		{Turn: 2, Kind: transcript.KindToolCall, Speaker: "melchior", Status: transcript.StatusComplete, Started: at,
			ToolCalls: []transcript.ToolCall{{Tool: "fetch_url", Parameters: map[string]string{"url": rec.Source}, Result: "text"}},
			Evidence:  []evidence.Record{rec}},
	}
	info, err := st.Import(ctx, debate.SessionInfo{ID: "ev1", Mode: "magi", Created: at}, entries, false)
	if err != nil {
		t.Fatal(err)
	}
	_, back, err := st.Load(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 2 || len(back[1].Evidence) != 1 || back[1].Evidence[0] != rec || len(back[0].Evidence) != 0 {
		t.Fatalf("loaded %+v", back)
	}
}
