package spend

import (
	"strings"
	"testing"

	"github.com/parleyhq/parley/providers"
)

// A model without a price leaves the saving unknown only when its turn
// was served from a cache: an unpriced turn that cached nothing changes
// no saving, so the figure stays whole.
func TestCacheStatsUnknownOnlyForAnUnpricedCachedTurn(t *testing.T) {
	t.Parallel()
	var s CacheStats
	s.Add(providers.Usage{InputTokens: 4000, CachedTokens: 3000}, 0.0120, true)
	s.Add(providers.Usage{InputTokens: 500}, 0, false) // unpriced, nothing cached
	if s.Unknown || strings.Contains(s.String(), "unpriced") {
		t.Fatalf("an unpriced turn that cached nothing made the saving unknown: %+v, %q", s, s.String())
	}
	if got, want := s.String(), "cache: 67% of 4,500 input tokens read from cache, saved $0.0120"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	s.Add(providers.Usage{InputTokens: 1000, CachedTokens: 800}, 0, false) // unpriced, cached
	if !s.Unknown || !strings.HasSuffix(s.Short(), "saved $0.0120 (not counting an unpriced model's)") {
		t.Errorf("an unpriced cached turn left the saving whole: %+v, %q", s, s.Short())
	}
}

// Cache writes not yet read back cost more than they saved: said so, never
// as a negative saving.
func TestCacheStatsSaysWhenTheCacheCostMore(t *testing.T) {
	t.Parallel()
	var s CacheStats
	s.Add(providers.Usage{InputTokens: 2000, CachedTokens: 1000}, -0.0031, true)
	if got, want := s.Short(), "cache 50% cost $0.0031 more (cache writes not yet read back)"; got != want {
		t.Errorf("Short() = %q, want %q", got, want)
	}
}

// A cache that saved nothing yet says so as a saving of $0, not a cost.
func TestCacheStatsNothingSavedIsNoCost(t *testing.T) {
	t.Parallel()
	var s CacheStats
	s.Add(providers.Usage{InputTokens: 1000, CachedTokens: 250}, 0, true)
	if got, want := s.Short(), "cache 25% saved $0.0000"; got != want {
		t.Errorf("Short() = %q, want %q", got, want)
	}
}
