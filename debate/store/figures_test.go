package store

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// Break 4 of issue 42: a turn stored with cost_usd = +Inf made every
// later `sessions list --json` fail (json: unsupported value: +Inf), MCP
// sessions_list answer -32603 and GET /api/v1/sessions answer an empty
// 200, until the rows were deleted by hand. No such cost is written now,
// and a row an older version wrote reads as a turn whose price is unknown.
func TestACostThatIsNoAmountIsNeitherStoredNorRead(t *testing.T) {
	st := openTemp(t)
	ctx := context.Background()
	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	turn := func(n int, u providers.Usage, cost float64) transcript.Entry {
		return transcript.Entry{Turn: n, Kind: transcript.KindReply, Speaker: "local", Display: "Local", Model: "m", Mode: "mention",
			Text: "answer", Status: transcript.StatusComplete, Usage: u, Cost: cost, Started: at, Finished: at}
	}
	save := func(id string, entries ...transcript.Entry) {
		t.Helper()
		if _, err := st.Import(ctx, debate.SessionInfo{ID: id, Mode: "mention", Title: id, Created: at}, entries, false); err != nil {
			t.Fatal(err)
		}
	}
	priced := providers.Usage{InputTokens: 10, OutputTokens: 5}
	// Written now: +Inf and negative tokens never reach the file.
	save("written", turn(1, providers.Usage{InputTokens: -5, OutputTokens: 1 << 40}, math.Inf(1)), turn(2, priced, 0.5))
	// Written by an older version: the row holds +Inf (SQLite's 9e999).
	save("old", turn(1, priced, 0.25), turn(2, priced, 0.5))
	save("clean", turn(1, priced, 0.25))
	inf := "9e999" // SQLite's +Inf
	if st.IsPostgres() {
		inf = "'Infinity'"
	}
	if _, err := st.w.ExecContext(ctx, `UPDATE conversation_log SET cost_usd = `+inf+`, tokens_in = -7
		WHERE conversation_id = 'old' AND turn_number = 1`); err != nil {
		t.Fatal(err)
	}
	var stored float64
	if err := st.r.QueryRowContext(ctx, `SELECT cost_usd FROM conversation_log WHERE conversation_id = 'old' AND turn_number = 1`).Scan(&stored); err != nil || !math.IsInf(stored, 1) {
		t.Fatalf("the old row should hold +Inf: %v, %v", stored, err)
	}
	if err := st.r.QueryRowContext(ctx, `SELECT MIN(cost_usd) FROM conversation_log WHERE conversation_id = 'written'`).Scan(&stored); err != nil || stored != 0 {
		t.Errorf("an infinite cost was written as %v (%v), want 0", stored, err)
	}

	list, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(list)
	if err != nil {
		t.Fatalf("sessions list --json fails: %v", err)
	}
	for _, sum := range list {
		want := map[string]string{"written": "≥ $0.5000", "old": "≥ $0.5000", "clean": "$0.2500"}[sum.ID]
		if got := sum.CostText(); got != want {
			t.Errorf("%s lists at %q, want %q (a cost that is no amount is unknown)", sum.ID, got, want)
		}
		if sum.TokensIn < 0 {
			t.Errorf("%s lists %d input tokens", sum.ID, sum.TokensIn)
		}
	}
	if strings.Contains(string(b), "Inf") {
		t.Errorf("the list carries Inf: %s", b)
	}
	for _, id := range []string{"old", "written"} {
		_, entries, err := st.Load(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		first := entries[0]
		if first.Cost != 0 || !first.Usage.PriceUnknown || first.Usage.InputTokens < 0 || first.Usage.OutputTokens > 100_000_000 {
			t.Errorf("%s turn 1 reads back as cost %v, usage %+v; want cost unknown and tokens within 0..1e8", id, first.Cost, first.Usage)
		}
		var out bytes.Buffer
		if err := st.Export(ctx, &out, id, "json"); err != nil || !json.Valid(out.Bytes()) {
			t.Errorf("%s: export --format json: %v", id, err)
		}
	}
	if _, cost, err := st.Totals(ctx, "old"); err != nil || cost != 0.5 {
		t.Errorf("Totals of old: %v, %v; want 0.5 (the +Inf row counts as unknown)", cost, err)
	}
}
