package spend

import (
	"fmt"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/internal/numfmt"
	"github.com/parleyhq/parley/providers"
)

// CacheStats is how much of a session's input the providers served from
// their prompt caches, and what that saved.
type CacheStats struct {
	InputTokens  int     `json:"input_tokens"`
	CachedTokens int     `json:"cached_tokens"`
	SavedUSD     float64 `json:"saved_usd"`
	// Unknown: a cached turn's model has no price, so SavedUSD leaves it out.
	Unknown bool `json:"unknown,omitempty"`
}

// share is the cached part of the input, 0 to 1.
func (s CacheStats) share() float64 {
	if s.InputTokens == 0 {
		return 0
	}
	return float64(s.CachedTokens) / float64(s.InputTokens)
}

// Add counts one turn's usage; saved is CacheSaving's.
func (s *CacheStats) Add(u providers.Usage, saved float64, priced bool) {
	s.InputTokens += u.InputTokens
	s.CachedTokens += u.CachedTokens
	s.SavedUSD += saved
	s.Unknown = s.Unknown || (!priced && u.CachedTokens > 0)
}

// Short is the status line's "cache 62% saved $0.0712" ("" before
// anything was cached).
func (s CacheStats) Short() string {
	if s.CachedTokens == 0 {
		return ""
	}
	return fmt.Sprintf("cache %.0f%% %s", 100*s.share(), s.saving())
}

// String is the sessions show line: "cache: 62% of 48,210 input tokens
// read from cache, saved $0.0712".
func (s CacheStats) String() string {
	if s.InputTokens == 0 {
		return "cache: no input yet"
	}
	return fmt.Sprintf("cache: %.0f%% of %s input tokens read from cache, %s", 100*s.share(), numfmt.Thousands(s.InputTokens), s.saving())
}

func (s CacheStats) saving() string {
	unknown := ""
	if s.Unknown {
		unknown = " (not counting an unpriced model's)"
	}
	if s.SavedUSD < 0 {
		return fmt.Sprintf("cost $%.4f more (cache writes not yet read back)%s", -s.SavedUSD, unknown)
	}
	return fmt.Sprintf("saved $%.4f%s", s.SavedUSD, unknown)
}

// CacheStatsOf sums the cache use of a session's turns by c's prices, each at the prices
// of its day.
func CacheStatsOf(c *config.Config, entries []transcript.Entry) CacheStats {
	var s CacheStats
	for _, en := range entries {
		saved, priced := c.CacheSaving(en.Model, en.Usage, en.Started)
		s.Add(en.Usage, saved, priced)
	}
	return s
}
