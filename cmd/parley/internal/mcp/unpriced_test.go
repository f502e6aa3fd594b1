package mcp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// sessions_list never shows an unpriced session as $0: its text says "$?"
// and its structured content has cost_usd null with price_unknown.
func TestSessionsListShowsAnUnpricedSessionAsUnknown(t *testing.T) {
	t.Parallel()
	ts, st := httpServerWithToken(t, filepath.Join(t.TempDir(), "u.db"), demoAgents, true, "")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	info := debate.SessionInfo{ID: "0123456789ab", Mode: "mention", Title: "unpriced", Created: at}
	turn := transcript.Entry{Turn: 1, Kind: transcript.KindReply, Speaker: "local", Display: "Local", Model: "m", Mode: "mention",
		Text: "answer", Status: transcript.StatusComplete, Started: at, Finished: at,
		Usage: providers.Usage{InputTokens: 10, OutputTokens: 5, PriceUnknown: true}}
	if _, err := st.Import(ctx, info, []transcript.Entry{turn}, false); err != nil {
		t.Fatal(err)
	}
	c := httpClient(t, ts)
	res := c.call(t, ctx, "sessions_list", map[string]any{}, nil, nil)
	text := textOf(res)
	structured, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(text, "$?") || strings.Contains(text, "$0.0000") ||
		!strings.Contains(string(structured), `"cost_usd":null`) || !strings.Contains(string(structured), `"price_unknown":true`) {
		t.Fatalf("sessions_list:\n%s\n%s", text, structured)
	}
}
