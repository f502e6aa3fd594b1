package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/serve/web"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// The web page's list and GET /api/v1/sessions never show an unpriced
// session as $0: "$?" on the page, cost_usd null with price_unknown in JSON.
func TestWebListShowsAnUnpricedSessionAsUnknown(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.ServeWebView(web.Options{})
	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	info := debate.SessionInfo{ID: "0123456789ab", Mode: "mention", Title: "unpriced", Created: at}
	turn := transcript.Entry{Turn: 1, Kind: transcript.KindReply, Speaker: "local", Display: "Local", Model: "m", Mode: "mention",
		Text: "answer", Status: transcript.StatusComplete, Started: at, Finished: at,
		Usage: providers.Usage{InputTokens: 10, OutputTokens: 5, PriceUnknown: true}}
	if _, err := f.st.Import(context.Background(), info, []transcript.Entry{turn}, false); err != nil {
		t.Fatal(err)
	}
	code, page := f.do("GET", "/", nil)
	if code != http.StatusOK || !strings.Contains(string(page), `<td class="num">$?</td>`) || strings.Contains(string(page), "$0.0000") {
		t.Fatalf("the page's list (%d):\n%s", code, page)
	}
	code, body := f.do("GET", "/api/v1/sessions", nil)
	var list struct {
		Sessions []map[string]any `json:"sessions"`
	}
	if err := json.Unmarshal(body, &list); err != nil || code != http.StatusOK || len(list.Sessions) != 1 ||
		list.Sessions[0]["cost_usd"] != nil || list.Sessions[0]["price_unknown"] != true {
		t.Fatalf("GET /api/v1/sessions (%d): %s", code, body)
	}
}
