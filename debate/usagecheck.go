package debate

import (
	"fmt"

	"github.com/parleyhq/parley/debate/figures"
	"github.com/parleyhq/parley/providers"
)

// KindBadUsage is the ErrorOccurred kind of a call whose provider
// reported token counts no call can have (negative, or past
// figures.MaxTokens): they were clamped before pricing and storing.
const KindBadUsage = "bad_usage"

// checkedUsage is a provider's usage made safe to price, sum and store:
// each count clamped to 0..figures.MaxTokens and, when one was, marked
// Estimated (the figures are no longer the provider's). warning says what
// was clamped, "" when nothing was.
func checkedUsage(label, model string, u providers.Usage) (providers.Usage, string) {
	clamped := false
	for _, n := range []*int{&u.InputTokens, &u.OutputTokens, &u.CachedTokens, &u.CacheWriteTokens, &u.ReasoningTokens} {
		var c bool
		*n, c = figures.ClampTokens(*n)
		clamped = clamped || c
	}
	if !clamped {
		return u, ""
	}
	u.Estimated = true
	return u, fmt.Sprintf("provider usage: %s on %s reported token counts outside 0..%d; they were clamped (now %d input, %d output tokens)",
		label, model, figures.MaxTokens, u.InputTokens, u.OutputTokens)
}

// checkedCost is a call's cost when it is a finite amount; otherwise the
// call counts as unpriced (cost 0, price unknown), never as +Inf or NaN.
func checkedCost(cost float64, priced bool) (float64, bool) {
	if !figures.Finite(cost) {
		return 0, false
	}
	return cost, priced
}
