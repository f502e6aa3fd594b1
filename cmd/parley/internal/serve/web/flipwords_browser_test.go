package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/verdict"
)

// Issue 43, item 12: the live board words a flip's count of new words as
// the server does (verdict.NewWordsPhrase): "1 new word", never "1 new
// words". The board's own script (window.ParleyBoards) is handed a
// magi_decided event with the counts, in the page of a real MAGI session.
func TestBrowserFlipCountsNewWordsInTheSingular(t *testing.T) {
	t.Parallel()
	base := startServer(t, testAgents(t))
	ctx := browser(t)
	createSession(t, ctx, base, "magi")
	got := evalJS[[]string](t, ctx, `(() => {
		ParleyBoards.magi(function () {}).decided({flips: [
			{agent: "balthasar", from: "approve", to: "reject", from_round: 1, to_round: 2, new_words: 1, conformity: false},
			{agent: "casper", from: "reject", to: "approve", from_round: 2, to_round: 3, new_words: 4, conformity: false},
			{agent: "melchior", from: "reject", to: "approve", from_round: 1, to_round: 2, new_words: 1, conformity: true}]});
		return [...document.querySelectorAll("#magi .flips li")].map(li => li.textContent);
	})()`)
	want := []string{
		"BALTHASAR: approve → reject (round 1 → 2) argued, " + verdict.NewWordsPhrase(1),
		"CASPER: reject → approve (round 2 → 3) argued, " + verdict.NewWordsPhrase(4),
		"MELCHIOR: reject → approve (round 1 → 2) CONFORMITY",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the board lists\n%s\nwant\n%s", fmt.Sprint(got), fmt.Sprint(want))
	}
	if !strings.HasSuffix(want[0], "1 new word") {
		t.Errorf("the server's phrase for one word is %q", want[0])
	}
}
