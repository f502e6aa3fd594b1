package store

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
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
	turn := func(n int, u providers.Usage, cost float64, warning string) transcript.Entry {
		return transcript.Entry{Turn: n, Kind: transcript.KindReply, Speaker: "local", Display: "Local", Model: "m", Mode: "mention",
			Text: "answer", Status: transcript.StatusComplete, Usage: u, Cost: cost, Started: at, Finished: at, Warning: warning}
	}
	save := func(id string, entries ...transcript.Entry) {
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

// The JSON and Markdown exports of a session with an unpriced turn never
// write its cost as 0: the turn's and the session's cost_usd are null with
// price_unknown (the session's priced part as cost_usd_at_least), the
// Markdown shows "$?" and "≥ $…"; an export read back keeps it unknown.
func TestExportsNeverWriteAnUnknownCostAsZero(t *testing.T) {
	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	unpriced := providers.Usage{InputTokens: 10, OutputTokens: 5, PriceUnknown: true}
	entries := []transcript.Entry{
		{Turn: 1, Kind: transcript.KindReply, Speaker: "local", Display: "Local", Model: "m", Mode: "mention", Text: "a",
			Status: transcript.StatusComplete, Usage: unpriced, Started: at, Finished: at},
		{Turn: 2, Kind: transcript.KindReply, Speaker: "gpt", Display: "GPT", Model: "p", Mode: "mention", Text: "b",
			Status: transcript.StatusComplete, Usage: providers.Usage{InputTokens: 10, OutputTokens: 5}, Cost: 0.0123, Started: at, Finished: at},
	}
	info := debate.SessionInfo{ID: "unpriced-export", Mode: "mention", Title: "t", Created: at}
	var js strings.Builder
	if err := WriteJSON(&js, info, entries); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Usage       providers.Usage `json:"usage"`
		Cost        *float64        `json:"cost_usd"`
		CostAtLeast float64         `json:"cost_usd_at_least"`
		Messages    []struct {
			Cost  *float64        `json:"cost_usd"`
			Usage providers.Usage `json:"usage"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(js.String()), &got); err != nil {
		t.Fatal(err)
	}
	if got.Cost != nil || !got.Usage.PriceUnknown || got.CostAtLeast != 0.0123 || len(got.Messages) != 2 ||
		got.Messages[0].Cost != nil || !got.Messages[0].Usage.PriceUnknown || got.Messages[1].Cost == nil || *got.Messages[1].Cost != 0.0123 {
		t.Fatalf("JSON export:\n%s", js.String())
	}
	var md strings.Builder
	if err := WriteMarkdown(&md, info, entries); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "cost ≥ $0.0123") || !strings.Contains(md.String(), "$?") || strings.Contains(md.String(), "$0.0000") {
		t.Fatalf("Markdown export:\n%s", md.String())
	}
	_, back, err := ReadJSON(strings.NewReader(js.String()))
	if err != nil || len(back) != 2 || !back[0].Usage.PriceUnknown || back[0].Cost != 0 || back[1].Cost != 0.0123 {
		t.Fatalf("read back: %v %+v", err, back)
	}
}
