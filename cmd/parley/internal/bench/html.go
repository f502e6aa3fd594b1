package bench

import (
	"fmt"
	"html"
	"html/template"
	"io"
	"math"
	"strings"
	"sync"

	"github.com/parleyhq/parley/internal/numfmt"
)

// WriteHTML writes a self-contained report: tables and inline SVG charts
// (accuracy with intervals per condition, flips per round, cost against
// accuracy), no script, no font, no CDN.
func WriteHTML(w io.Writer, rep Report) error {
	return htmlPage().Execute(w, struct {
		Report
		Accuracy, FlipChart, CostChart template.HTML
		AdaptiveStops, Spark, Final    string
	}{rep, accuracyChart(rep), flipChart(rep), costChart(rep), rep.Adaptive.stopLine(), rep.Sparkline(), finalRule(rep.Rounds)})
}

// htmlPage is the report's template, parsed on first use, not in every
// command's start-up.
var htmlPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("bench").Funcs(template.FuncMap{
		"pct":  func(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) },
		"usd":  func(f float64) string { return fmt.Sprintf("$%.4f", f) },
		"num":  func(f float64) string { return numfmt.Thousands(int(math.Round(f))) },
		"pts":  func(f float64) float64 { return 100 * f },
		"inc":  func(k int) int { return k + 1 },
		"perq": perQuestion,
	}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>parley bench {{.Run}}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:1em auto;padding:0 .8em;max-width:60em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{padding:.25em .7em;border-bottom:1px solid #ddd;text-align:right}
td:first-child,th:first-child{text-align:left}svg{display:block;margin:1em 0;width:100%;height:auto;max-width:640px}.note{color:#666}.sim{background:#fff3cd;padding:.5em .8em;border:1px solid #e0c060}
.wide{overflow-x:auto;max-width:100%}code{overflow-wrap:anywhere}h1{font-size:1.4em;overflow-wrap:anywhere}
details{border-bottom:1px solid #ddd;padding:.3em 0}summary{cursor:pointer}.ok{color:#275}.bad{color:#b22}.q{white-space:pre-wrap;overflow-wrap:anywhere;margin:.4em 0}
</style></head><body>
<h1>parley bench · {{.Set}}{{if .Simulation}} · simulation{{end}}</h1>
{{if .Simulation}}<p class="sim"><strong>{{.Simulation}}</strong></p>{{end}}
<p>Run <code>{{.Run}}</code> · {{.Questions}} of {{.Total}} questions scored · members {{range $i, $m := .Members}}{{if $i}}, {{end}}{{$m}}{{end}} · {{.Rounds}} rounds{{if .Partial}} · <strong>partial: {{.Stopped}}</strong>{{end}}</p>
<div class="wide"><table><tr><th>condition</th><th>correct</th><th>accuracy</th><th>95% CI</th><th>lost</th><th>calls/q</th><th>tokens/q</th><th>$/q</th></tr>
{{range .Conditions}}<tr><td>{{.Name}}</td><td>{{.Correct}}</td><td>{{pct .Accuracy}}</td><td>{{pct (index .CI95 0)}} – {{pct (index .CI95 1)}}</td><td>{{.Lost}}</td><td>{{perq .Calls $.Questions}}</td><td>{{num .TokensPerQuestion}}</td><td>{{usd .CostPerQuestion}}</td></tr>
{{end}}</table></div>
{{if .Spark}}<p>Accuracy per round: {{.Spark}}</p>{{end}}
<p class="note">lost: problems where a right answer was among the votes the condition chose from and it answered wrong; oracle: any member right in round 1. SPRT (Wald on agreement): stops early on {{.SPRT.Stopped}} problems, {{printf "%.2f" .SPRT.MeanCalls}} calls a problem, {{.SPRT.CallsSaved}} calls and {{usd .SPRT.CostSaved}} saved.</p>
<h2>Accuracy per condition (95 % Wilson interval)</h2>{{.Accuracy}}
<p>Debate delta ({{.Delta.To}} − {{.Delta.From}}): {{pct .Delta.Delta}} · right→wrong {{.Delta.RightToWrong}}, wrong→right {{.Delta.WrongToRight}} · exact McNemar p = {{printf "%.3f" .Delta.PValue}}</p>
<h2>Flips per round <small>(red: right→wrong, green: wrong→right)</small></h2>{{.FlipChart}}
<div class="wide"><table><tr><th>round</th><th>member</th><th>right→wrong</th><th>wrong→right</th><th>wrong→wrong</th><th>conformity</th></tr>
{{range .Flips.ByMember}}<tr><td>{{.Round}}</td><td>{{.Agent}}</td><td>{{.RightToWrong}}</td><td>{{.WrongToRight}}</td><td>{{.WrongToWrong}}</td><td>{{.Conformity}}</td></tr>
{{end}}</table></div>
<h2>Accuracy against cost, per rule (95 % interval)</h2>{{.CostChart}}
{{if gt .Rounds 1}}<p>Adaptive rounds (margin {{printf "%.2f" .Adaptive.Margin}}{{if .Adaptive.Ran}}, as the councils ran{{else}}, replayed on the full debates{{end}}): {{.AdaptiveStops}}; {{.Adaptive.CallsSaved}} calls saved, {{usd .Adaptive.CostSaved}}.
Guard: {{.Guard.Discounted}} final votes counted as before a change without a new argument, on {{.Guard.Questions}} questions; {{.Guard.Changed}} outcomes changed.</p>{{end}}
<h2>Which rule beat which</h2>
<p class="note">Row against column on the same questions: accuracy difference in points, questions only the row / only the column got right, exact McNemar p; bold when p &lt; 0.05.</p>
<div class="wide"><table>{{range .Comparisons}}<tr><td>{{.A}} vs {{.B}}</td><td>{{printf "%+.1f" (pts .Delta)}}</td><td>{{.AOnly}} / {{.BOnly}}</td><td>{{if lt .PValue 0.05}}<strong>p = {{printf "%.3f" .PValue}}</strong>{{else}}p = {{printf "%.3f" .PValue}}{{end}}</td></tr>
{{end}}</table></div>
<p>Unanimous and wrong: {{.Unanimity.WrongRound1}} in round 1, {{.Unanimity.WrongFinal}} at the end ({{.Unanimity.Collapsed}} collapsed into it). Early stop: {{.EarlyStop.Stopped}} unanimous rounds 1, saving {{.EarlyStop.CallsSaved}} calls and {{usd .EarlyStop.CostSaved}}, changing {{.EarlyStop.Changed}} outcomes. Invalid answers: {{.Invalid}}.</p>
<p class="note">{{.Calls}} calls · {{.Tokens}} tokens · {{usd .Cost}} · {{printf "%.1f" .WallSeconds}} s</p>
<h2>Problem by problem</h2>
<p class="note">Each problem: the final verdict ({{.Final}}) against the gold answer; open it for the question, every member's answer per round and every condition's.</p>
<div id="items">{{range $it := .Items}}<details id="item-{{.ID}}"><summary><code>{{.ID}}</code> gold {{.Gold}} · {{with index .Conditions $.Final}}{{if .Correct}}<span class="ok">✓ {{.Answer}}</span>{{else}}<span class="bad">✗ {{if .Answer}}{{.Answer}}{{else}}no answer{{end}}</span>{{end}}{{end}} · {{.Calls}} calls · {{usd .Cost}}</summary>
<div class="q">{{.Question}}</div>
<div class="wide"><table><tr><th>round</th><th>member</th><th>answer</th><th>confidence</th><th>changed by</th></tr>
{{range $k, $votes := .Rounds}}{{range $votes}}<tr><td>{{inc $k}}</td><td>{{.Agent}}</td><td>{{if .Valid}}{{.Answer}}{{else}}invalid{{end}}</td><td>{{printf "%.2f" .Confidence}}</td><td>{{.ChangedBy}}{{if .Conformity}} (conformity){{end}}</td></tr>
{{end}}{{end}}</table></div>
<div class="wide"><table><tr><th>condition</th><th>answer</th><th>right</th><th>calls</th></tr>
{{range $.Conditions}}{{$name := .Name}}{{with index $it.Conditions $name}}<tr><td>{{$name}}</td><td>{{.Answer}}</td><td>{{if .Correct}}✓{{else}}✗{{end}}</td><td>{{.Calls}}</td></tr>
{{end}}{{end}}</table></div></details>
{{end}}</div>
</body></html>
`))
})

// The charts are drawn 400 wide, so that on a 390-pixel phone they
// scale down only a little (their 12-pixel text stays readable), and up to
// 640 pixels on a wider screen.
const chartW, chartH = 400.0, 240.0

func svgOpen(h float64) string {
	return fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="12">`, chartW, h, chartW, h)
}

// accuracyChart draws one bar per condition with its interval as a whisker.
func accuracyChart(rep Report) template.HTML {
	n := len(rep.Conditions)
	if n == 0 {
		return ""
	}
	left, top, plotH := 128.0, 10.0, 18.0*float64(n)
	h := plotH + 40
	var b strings.Builder
	b.WriteString(svgOpen(h))
	x := func(f float64) float64 { return left + f*(chartW-left-20) }
	for _, t := range []float64{0, .25, .5, .75, 1} {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/><text x="%.1f" y="%.1f" text-anchor="middle">%.0f%%</text>`,
			x(t), top, x(t), top+plotH, x(t), top+plotH+14, 100*t)
	}
	for i, c := range rep.Conditions {
		y := top + 18*float64(i)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`, left-6, y+12, html.EscapeString(c.Name))
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="12" fill="%s"/>`, left, y+2, x(c.Accuracy)-left, barColour(c.Name))
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#222"/>`, x(c.CI95[0]), y+8, x(c.CI95[1]), y+8)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // every label is escaped above
}

func barColour(name string) string {
	switch {
	case strings.HasPrefix(name, "member:"):
		return "#9ab"
	case name == "majority_r1":
		return "#4a8"
	case name == "early_stop":
		return "#c93"
	case name == RuleWeighted || name == RuleBorda:
		return "#2a6"
	case name == RuleAdaptive:
		return "#d62"
	case name == RuleGuarded:
		return "#84c"
	}
	return "#47c"
}

// flipChart draws right→wrong and wrong→right per round, side by side.
func flipChart(rep Report) template.HTML {
	perRound := map[int][2]int{}
	maxV := 1
	for _, f := range rep.Flips.ByMember {
		v := perRound[f.Round]
		v[0] += f.RightToWrong
		v[1] += f.WrongToRight
		perRound[f.Round] = v
		maxV = max(maxV, v[0], v[1])
	}
	var b strings.Builder
	b.WriteString(svgOpen(chartH))
	base := chartH - 30
	for k := 2; k <= max(2, rep.Rounds); k++ {
		v := perRound[k]
		x0 := 30 + float64(k-2)*180
		for j, colour := range []string{"#c44", "#4a4"} {
			hgt := float64(v[j]) / float64(maxV) * (base - 20)
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="55" height="%.1f" fill="%s"/><text x="%.1f" y="%.1f" text-anchor="middle">%d</text>`,
				x0+float64(j)*65, base-hgt, hgt, colour, x0+float64(j)*65+27.5, base-hgt-4, v[j])
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">round %d</text>`, x0+60, base+16, k)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// costChart places each condition by its cost per question and accuracy,
// with its interval; the accuracy axis starts at the lowest interval's
// tenth, and labels that would overlap move down a line.
func costChart(rep Report) template.HTML {
	maxCost, floor := 0.0, 1.0
	for _, c := range rep.Conditions {
		maxCost = math.Max(maxCost, costOf(rep, c))
		floor = math.Min(floor, c.CI95[0])
	}
	if maxCost == 0 {
		maxCost = 1
	}
	floor = math.Floor(floor*10) / 10
	var b strings.Builder
	b.WriteString(svgOpen(chartH))
	left, base := 50.0, chartH-30
	y := func(acc float64) float64 { return base - (acc-floor)/math.Max(1-floor, 0.1)*(base-20) }
	fmt.Fprintf(&b, `<line x1="%.1f" y1="10" x2="%.1f" y2="%.1f" stroke="#999"/><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#999"/>`,
		left, left, base, left, base, chartW-10, base)
	for t := floor; t <= 1.0001; t += 0.1 {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%.0f%%</text>`, left-4, y(t)+4, 100*t)
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">cost per question (tokens when unpriced) →</text>`, (left+chartW)/2, base+22)
	var placed [][2]float64
	for _, c := range rep.Conditions {
		x := left + costOf(rep, c)/maxCost*(chartW-left-110)
		yc := y(c.Accuracy)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`, x, y(c.CI95[0]), x, y(c.CI95[1]), barColour(c.Name))
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s"/>`, x, yc, barColour(c.Name))
		// Labels sit on whole pixels, so each move is at least one pixel
		// down and the search ends: with fractional positions p[1]+11 could
		// round back to ly itself and the loop never ended (a 50-question
		// run's page was never written).
		ly := math.Round(yc + 4)
		for again := true; again; {
			again = false
			for _, p := range placed {
				if math.Abs(p[0]-x) < 90 && math.Abs(p[1]-ly) < 11 {
					ly, again = p[1]+11, true
				}
			}
		}
		placed = append(placed, [2]float64{x, ly})
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`, x+6, ly, html.EscapeString(c.Name))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// costOf is what the chart puts a condition at: dollars per question, or
// tokens when the run had no prices.
func costOf(rep Report, c Condition) float64 {
	if rep.Cost == 0 {
		return c.TokensPerQuestion
	}
	return c.CostPerQuestion
}
