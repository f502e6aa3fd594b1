package bench

import (
	"fmt"
	"math/rand/v2"

	"github.com/parleyhq/parley/debate/verdict"
)

// GSM8KStyle generates n grade-school word problems in GSM8K's manner (two
// to four arithmetic steps over small whole numbers, a whole-number answer)
// from seed: the problems --demo simulates on when the real test set is not
// installed. Parley's own templates; none is taken from GSM8K.
func GSM8KStyle(n int, seed uint64) []Question {
	if n <= 0 {
		n = DefaultN
	}
	r := rand.New(rand.NewPCG(seed, 0x9517))
	out := make([]Question, n)
	for i := range out {
		text, answer := styleTemplates[r.IntN(len(styleTemplates))](r)
		out[i] = Question{ID: fmt.Sprintf("gsm8k-style-%04d", i+1), Type: verdict.AnswerNumber, Answer: fmt.Sprint(answer), Question: text}
	}
	return out
}

var (
	styleNames = []string{"Amara", "Bruno", "Chidi", "Dalia", "Emeka", "Farah", "Goran", "Hana", "Idris", "Jonas", "Keiko", "Lena", "Mateo", "Nadia", "Oskar", "Priya"}
	styleItems = []struct{ plural, pack string }{{"stickers", "sheet"}, {"pencils", "box"}, {"apples", "crate"}, {"marbles", "bag"},
		{"cupcakes", "tray"}, {"bottles", "case"}, {"seedlings", "flat"}, {"batteries", "pack"}}
)

func between(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }

func pick[T any](r *rand.Rand, from []T) T { return from[r.IntN(len(from))] }

// styleTemplates each draw one problem and its answer.
var styleTemplates = []func(r *rand.Rand) (string, int){
	func(r *rand.Rand) (string, int) { // packs, gifts, use
		name, it := pick(r, styleNames), pick(r, styleItems)
		packs, per := between(r, 3, 12), between(r, 6, 24)
		gave, used := between(r, 2, packs*per/4), between(r, 1, packs*per/4)
		return fmt.Sprintf("%s buys %d %ss of %s with %d %s in each %s. %s gives %d of them to a neighbour and uses %d for a school project. How many %s does %s have left?",
			name, packs, it.pack, it.plural, per, it.plural, it.pack, name, gave, used, it.plural, name), packs*per - gave - used
	},
	func(r *rand.Rand) (string, int) { // three days of sales
		it := pick(r, styleItems)
		price, mon, fewer := between(r, 2, 9), between(r, 10, 40), between(r, 1, 9)
		return fmt.Sprintf("A market stall sells %s for $%d each. It sells %d on Monday, twice as many on Tuesday, and %d fewer on Wednesday than on Tuesday. How many dollars does the stall take over the three days?",
			it.plural, price, mon, fewer), price * (mon + 2*mon + 2*mon - fewer)
	},
	func(r *rand.Rand) (string, int) { // reading plan
		name := pick(r, styleNames)
		a, d, b, e := between(r, 8, 30), between(r, 3, 7), between(r, 10, 40), between(r, 2, 6)
		total := a*d + b*e + between(r, 20, 150)
		return fmt.Sprintf("%s's book has %d pages. %s reads %d pages a day for %d days, then %d pages a day for the next %d days. How many pages are still unread?",
			name, total, name, a, d, b, e), total - a*d - b*e
	},
	func(r *rand.Rand) (string, int) { // wages and rent share
		name := pick(r, styleNames)
		pct := pick(r, []int{10, 20, 25, 50})
		hourly, hours, weeks := between(r, 8, 30), between(r, 10, 40), pick(r, []int{2, 4, 8})
		total := hourly * hours * weeks
		return fmt.Sprintf("%s earns $%d an hour and works %d hours a week. After %d weeks %s spends %d%% of the money on rent. How many dollars are left?",
			name, hourly, hours, weeks, name, pct), total - total*pct/100
	},
	func(r *rand.Rand) (string, int) { // chairs and guests
		rows, per := between(r, 5, 20), between(r, 8, 25)
		broken, extra := between(r, 1, 12), between(r, 3, 30)
		return fmt.Sprintf("A hall has %d rows of %d chairs. %d chairs are broken, and %d more guests arrive than there are chairs that work. How many guests arrive?",
			rows, per, broken, extra), rows*per - broken + extra
	},
	func(r *rand.Rand) (string, int) { // three collectors
		a, b, c := pick(r, styleNames), pick(r, styleNames), pick(r, styleNames)
		for b == a {
			b = pick(r, styleNames)
		}
		for c == a || c == b {
			c = pick(r, styleNames)
		}
		it := pick(r, styleItems)
		n, k, fewer := between(r, 5, 40), between(r, 2, 5), between(r, 1, 15)
		return fmt.Sprintf("%s has %d %s. %s has %d times as many as %s, and %s has %d fewer than %s. How many %s do the three have together?",
			a, n, it.plural, b, k, a, c, fewer, b, it.plural), n + k*n + k*n - fewer
	},
}
