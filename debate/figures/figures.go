// Package figures is the one checked way in for numbers that come from
// outside the program: money caps and spend limits, prices per million
// tokens, token counts and other counts, whether they arrive in a flag, an
// environment variable, a configuration file, a downloaded catalogue, an
// API or MCP argument, or a provider's usage report.
//
// Each kind has one function that refuses NaN, ±Inf, negatives and
// magnitudes no real use reaches, with an error naming where the value
// came from ("--max-cost: NaN is not a finite amount"). NaN is the reason
// this package exists: every comparison with NaN is false, so a cap of NaN
// passed every "spent > cap" check and turned the cap off, and a price of
// 1.7e308 made the next cost +Inf, which no JSON encoder can write.
package figures

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The largest figures accepted. Each is far above real use and far below
// what a typo or a hostile source needs to poison a sum.
const (
	// MaxMoneyUSD bounds a cap, budget or spend limit.
	MaxMoneyUSD = 100_000.0
	// MaxPriceUSD bounds a price in USD per 1M tokens (the dearest real
	// model is near $600).
	MaxPriceUSD = 10_000.0
	// MaxTokens bounds one call's token count (input, output or cached):
	// no model's context comes near, and MaxTokens × MaxPriceUSD stays a
	// finite cost.
	MaxTokens = 100_000_000
	// MaxCount bounds a generic count or limit (requests per minute,
	// tokens per minute, list sizes) that has no tighter bound of its own.
	MaxCount = 1_000_000_000
)

// Error is a figure refused: where it came from and what is wrong.
type Error struct {
	// Where names the source: "--max-cost", "PARLEY_BUDGET_USD",
	// "config.yaml:12 budget_usd", `catalogue entry "gpt-x" input price`,
	// "MCP argument max_cost", "provider usage". Empty when the caller
	// places the problem itself (a configuration check names file and key).
	Where   string
	Problem string
}

func (e *Error) Error() string {
	if e.Where == "" {
		return e.Problem
	}
	return e.Where + ": " + e.Problem
}

func refuse(where, format string, args ...any) error {
	return &Error{Where: where, Problem: fmt.Sprintf(format, args...)}
}

// show writes a figure as a reader typed it: NaN, +Inf, -1, 1.7e+308.
func show(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Money checks an amount in USD used as a cap, budget or spend limit: a
// finite number from 0 (none) to MaxMoneyUSD.
func Money(where string, usd float64) (float64, error) {
	return amount(where, usd, MaxMoneyUSD, "amount", "$100,000")
}

// Price checks a price in USD per 1M tokens: a finite number from 0 to
// MaxPriceUSD.
func Price(where string, perMTok float64) (float64, error) {
	return amount(where, perMTok, MaxPriceUSD, "price", "$10,000 per 1M tokens")
}

func amount(where string, v, most float64, what, mostText string) (float64, error) {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, refuse(where, "%s is not a finite %s", show(v), what)
	case v < 0:
		return 0, refuse(where, "%s is negative; a %s is 0 or more", show(v), what)
	case v > most:
		return 0, refuse(where, "%s is over %s, more than any real use", show(v), mostText)
	case v == 0:
		return 0, nil // not -0, which prints as "-0"
	}
	return v, nil
}

// Tokens checks a token count: a whole number from 0 to MaxTokens.
func Tokens(where string, n int64) (int, error) {
	v, err := Count(where, n, MaxTokens)
	return int(v), err
}

// Count checks a count or limit: a whole number from 0 to most (MaxCount
// when most is 0 or past it).
func Count(where string, n, most int64) (int64, error) {
	if most <= 0 || most > MaxCount {
		most = MaxCount
	}
	switch {
	case n < 0:
		return 0, refuse(where, "%d is negative; a count is 0 or more", n)
	case n > most:
		return 0, refuse(where, "%d is over %d, more than any real use", n, most)
	}
	return n, nil
}

// ParseMoney reads an amount in USD as Money checks it; a leading "$" is
// allowed.
func ParseMoney(where, s string) (float64, error) {
	v, err := parseFloat(where, strings.TrimPrefix(strings.TrimSpace(s), "$"), "an amount in USD")
	if err != nil {
		return 0, err
	}
	return Money(where, v)
}

// ParsePrice reads a price in USD per 1M tokens as Price checks it.
func ParsePrice(where, s string) (float64, error) {
	v, err := parseFloat(where, strings.TrimPrefix(strings.TrimSpace(s), "$"), "a price in USD per 1M tokens")
	if err != nil {
		return 0, err
	}
	return Price(where, v)
}

// ParseTokens reads a token count as Tokens checks it.
func ParseTokens(where, s string) (int, error) {
	n, err := ParseCount(where, s, MaxTokens)
	return int(n), err
}

// ParseCount reads a count as Count checks it.
func ParseCount(where, s string, most int64) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, refuse(where, "%s is out of range, more than any real use", quote(s))
		}
		return 0, refuse(where, "%s is not a whole number", quote(s))
	}
	return Count(where, n, most)
}

func parseFloat(where, s, what string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, refuse(where, "%s is out of range, not a finite number", quote(s))
		}
		return 0, refuse(where, "%s is not %s", quote(s), what)
	}
	return v, nil
}

// quote shows at most 40 bytes of an outside string, Go-quoted: a
// number's error is no way to get text onto a terminal.
func quote(s string) string {
	if len(s) > 40 {
		return strconv.Quote(s[:40]) + "…"
	}
	return strconv.Quote(s)
}

// Finite reports whether a computed cost can be stored, summed and
// printed: a finite number, not negative.
func Finite(usd float64) bool {
	return !math.IsNaN(usd) && !math.IsInf(usd, 0) && usd >= 0
}

// ClampTokens is a provider's token count made safe to store and price:
// negative counts are 0, counts past MaxTokens are MaxTokens; clamped
// reports that it changed the figure (the caller says so). A provider's
// usage is not refused: the call happened and its answer is kept.
func ClampTokens(n int) (v int, clamped bool) {
	switch {
	case n < 0:
		return 0, true
	case n > MaxTokens:
		return MaxTokens, true
	}
	return n, false
}

// MoneyFlag is a flag value (pflag.Value) holding an amount in USD that
// Money checks when the flag is set, so --max-cost NaN is a usage error
// before anything runs.
type MoneyFlag struct{ p *float64 }

// NewMoneyFlag is a flag value writing to p.
func NewMoneyFlag(p *float64) *MoneyFlag { return &MoneyFlag{p: p} }

// Set parses and checks s; pflag names the flag in the error.
func (f *MoneyFlag) Set(s string) error {
	v, err := ParseMoney("", s)
	if err != nil {
		return err
	}
	*f.p = v
	return nil
}

func (f *MoneyFlag) String() string {
	if f == nil || f.p == nil {
		return "0"
	}
	return show(*f.p)
}

// Type is the flag's type in help: "usd".
func (f *MoneyFlag) Type() string { return "usd" }
