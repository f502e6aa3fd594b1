package store

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/providers"
)

// An unpriced session never lists as $0: its cost is "$?" (JSON null with
// price_unknown), a total that includes an unpriced turn is a lower bound
// ("≥ $…"), and a session whose usage Parley counted itself (a cut stream)
// shows "~$…". Estimated usage and a turn's warning survive a reload.
func TestListNeverShowsAnUnknownCostAsZero(t *testing.T) {
	st := openTemp(t)
	ctx := context.Background()
	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	turn := func(n int, u providers.Usage, cost float64, warning string) debate.Entry {
		return debate.Entry{Turn: n, Kind: debate.KindReply, Speaker: "local", Display: "Local", Model: "m", Mode: "mention",
			Text: "answer", Status: debate.StatusComplete, Usage: u, Cost: cost, Started: at, Finished: at, Warning: warning}
	}
	save := func(id string, entries ...debate.Entry) {
		t.Helper()
		info := debate.SessionInfo{ID: id, Mode: "mention", Title: id, Created: at}
		if _, err := st.Import(ctx, info, entries, false); err != nil {
			t.Fatal(err)
		}
	}
	unpriced := providers.Usage{InputTokens: 10, OutputTokens: 5, PriceUnknown: true}
	save("unpriced", turn(1, unpriced, 0, ""))
	save("mixed", turn(1, unpriced, 0, ""), turn(2, providers.Usage{InputTokens: 10, OutputTokens: 5}, 0.0123, ""))
	save("cut", turn(1, providers.Usage{InputTokens: 10, OutputTokens: 5, Estimated: true}, 0.0123, "usage over the worst case: …"))
	list, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ text, json string }{
		"unpriced": {"$?", `"cost_usd":null`},
		"mixed":    {"≥ $0.0123", `"cost_usd":null`},
		"cut":      {"~$0.0123", `"cost_usd":0.0123`},
	}
	for _, sum := range list {
		w := want[sum.ID]
		if got := sum.CostText(); got != w.text {
			t.Errorf("%s: cost %q, want %q", sum.ID, got, w.text)
		}
		b, err := json.Marshal(sum)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), w.json) {
			t.Errorf("%s: JSON %s lacks %s", sum.ID, b, w.json)
		}
		if sum.PriceUnknown != strings.Contains(string(b), `"price_unknown":true`) {
			t.Errorf("%s: JSON %s and price_unknown %v disagree", sum.ID, b, sum.PriceUnknown)
		}
		if sum.ID == "mixed" && !strings.Contains(string(b), `"cost_usd_at_least":0.0123`) {
			t.Errorf("mixed: JSON %s lacks the lower bound", b)
		}
	}
	_, entries, err := st.Load(ctx, "cut")
	if err != nil {
		t.Fatal(err)
	}
	if !entries[0].Usage.Estimated || entries[0].Warning == "" {
		t.Fatalf("reloaded turn %+v lost its estimate mark or warning", entries[0])
	}
}
