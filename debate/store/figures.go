package store

import (
	"strings"

	"github.com/parleyhq/parley/debate/figures"
	"github.com/parleyhq/parley/debate/transcript"
)

// What the store keeps of a turn's figures. A cost is never stored,
// summed or printed unless finite: an old row may hold +Inf (a catalogue
// price of 1.7e308 was once accepted), which no JSON encoder can write,
// so every list, export and API answer of that session failed. Such a row
// reads as a turn whose price is unknown: cost 0 and price_unknown, so
// every door shows "$?" or "≥ $…" rather than a wrong exact figure.

// maxRowCost is the most one stored turn can honestly cost: figures.MaxTokens
// of each of four kinds at figures.MaxPriceUSD, with the long-context
// multiplier (at most 100), is 4e8. A figure past it is not a cost.
const maxRowCost = 1e9

// saneCostSQL is a row's cost as the sums count it (SQLite has no
// isfinite: +Inf and NaN fail the range, NULL too).
const saneCostSQL = `(CASE WHEN cost_usd >= 0 AND cost_usd <= 1e9 THEN cost_usd ELSE 0 END)`

// insaneCostSQL is 1 for a row whose cost is no amount (read as unknown);
// NULL is no row of a LEFT JOIN (SQLite keeps NaN as NULL, and the column
// refuses it).
const insaneCostSQL = `(CASE WHEN cost_usd IS NULL OR (cost_usd >= 0 AND cost_usd <= 1e9) THEN 0 ELSE 1 END)`

// saneLogCost and insaneLogCost are the same for queries naming the log
// "l".
var (
	saneLogCost   = strings.ReplaceAll(saneCostSQL, "cost_usd", "l.cost_usd")
	insaneLogCost = strings.ReplaceAll(insaneCostSQL, "cost_usd", "l.cost_usd")
)

// saneEntry is en with figures the store can keep and print: a cost that
// is no amount becomes unknown, token counts are clamped to
// 0..figures.MaxTokens (a provider once reported negative usage).
func saneEntry(en transcript.Entry) transcript.Entry {
	if !figures.Finite(en.Cost) || en.Cost > maxRowCost {
		en.Cost, en.Usage.PriceUnknown = 0, true
	}
	for _, n := range []*int{&en.Usage.InputTokens, &en.Usage.OutputTokens, &en.Usage.CachedTokens,
		&en.Usage.CacheWriteTokens, &en.Usage.ReasoningTokens} {
		*n, _ = figures.ClampTokens(*n)
	}
	return en
}
