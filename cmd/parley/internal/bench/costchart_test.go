package bench

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"
)

// The accuracy-against-cost chart is drawn for any run: accuracies are
// k/n, conditions share costs, and their labels never overlap. A 50-question
// simulated run once left the label search looping forever (positions a
// rounding error apart), so the page was never written.
func TestCostChartPlacesEveryLabelOfAnyRun(t *testing.T) {
	t.Parallel()
	label := regexp.MustCompile(`<text x="([0-9.-]+)" y="([0-9.-]+)">(cond[0-9]+)</text>`)
	rng := rand.New(rand.NewPCG(1, 2))
	for run := 0; run < 400; run++ {
		n := 1 + rng.IntN(60)
		var rep Report
		for i := 0; i < 3+rng.IntN(14); i++ {
			k := rng.IntN(n + 1)
			lo, hi := Wilson(k, n)
			rep.Conditions = append(rep.Conditions, Condition{
				Name:              fmt.Sprintf("cond%d", i),
				Accuracy:          float64(k) / float64(n),
				CI95:              [2]float64{lo, hi},
				TokensPerQuestion: float64(300 * (1 + rng.IntN(4))),
			})
		}
		svg := string(costChart(rep))
		found := label.FindAllStringSubmatch(svg, -1)
		if len(found) != len(rep.Conditions) {
			t.Fatalf("run %d: %d labels for %d conditions", run, len(found), len(rep.Conditions))
		}
		type pos struct{ x, y float64 }
		var seen []pos
		for _, m := range found {
			x, _ := strconv.ParseFloat(m[1], 64)
			y, _ := strconv.ParseFloat(m[2], 64)
			for _, p := range seen {
				if abs(p.x-x) < 90 && abs(p.y-y) < 11 {
					t.Fatalf("run %d: label %s at (%.1f, %.1f) overlaps one at (%.1f, %.1f)", run, m[3], x, y, p.x, p.y)
				}
			}
			seen = append(seen, pos{x, y})
		}
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
