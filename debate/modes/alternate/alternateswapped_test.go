package alternate

import (
	"context"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/transcript"
)

// A run whose host swapped claude for chatgpt ended with chatgpt's turn
// next (its state names chatgpt). The next process seats the configured
// pair again (a swap lasts its run): the turn is claude's, the seat's own
// agent, not codex's a second time in a row.
func TestAlternateTurnAfterASwappedRunGoesToTheSeatsOwnAgent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		saved   []transcript.Entry
		next    string
		nextNow string
	}{
		{"the swapped seat's turn", []transcript.Entry{savedHost("q"), savedAnswer("codex", 0), savedAnswer("claude", 0), savedAnswer("codex", 1)}, "chatgpt", "claude"},
		{"after the newcomer answered", []transcript.Entry{savedHost("q"), savedAnswer("codex", 0), savedAnswer("claude", 0), savedAnswer("chatgpt", 1)}, "codex", "codex"},
		{"the first seat swapped, its turn", []transcript.Entry{savedHost("q"), savedAnswer("codex", 0), savedAnswer("claude", 0), savedAnswer("chatgpt", 1), savedAnswer("claude", 2)}, "chatgpt", "codex"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, log, _ := debatetest.NewModeEngine(t, debatetest.ModeConfig(known), "mention", nil)
			info := debate.SessionInfo{ID: "saved", Mode: "alternate", State: map[string]string{"alternate.next": tc.next, "alternate.step": "2"}}
			if err := e.Restore(info, tc.saved); err != nil {
				t.Fatal(err)
			}
			if err := e.Submit(context.Background(), ""); err != nil {
				t.Fatal(err)
			}
			debatetest.Settle(t, e)
			if got := strings.Join(log.Order(), ","); got != tc.nextNow {
				t.Fatalf("the next step called %s, want %s", got, tc.nextNow)
			}
		})
	}
}
