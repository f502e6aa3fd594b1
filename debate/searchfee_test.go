package debate

import (
	"math"
	"testing"
	"time"

	"github.com/parleyhq/parley/providers"
)

// A turn that may search pays for it in its worst case: each step its
// searches (bounded by max_uses, the turn's call limit) at the model's fee,
// so a cap still bounds a run before it starts.
func TestWorstTurnCostIncludesSearchFees(t *testing.T) {
	zero, fee := 0.0, 0.01
	cfg := &Config{Models: providers.Catalogue{"m": {Provider: "anthropic", Input: &zero, Output: &zero, SearchFee: &fee}}}
	req := providers.Request{MaxTokens: 100, Messages: []providers.Message{{Role: providers.RoleUser, Content: "q"}}}
	tt := &toolTurn{limit: 3}
	plain, ok := cfg.worstTurnCost("m", req, tt, time.Now())
	if !ok || plain != 0 {
		t.Fatalf("no search: %v %v", plain, ok)
	}
	req.ServerTools = boundSearches([]providers.ServerTool{{Kind: providers.ServerToolWebSearch}}, tt.limit)
	if req.ServerTools[0].MaxUses != 3 {
		t.Fatalf("max_uses = %d, want the turn's limit 3", req.ServerTools[0].MaxUses)
	}
	searched, _ := cfg.worstTurnCost("m", req, tt, time.Now())
	if want := 4 * 3 * fee; math.Abs(searched-want) > 1e-12 { // 4 steps (3 calls and the answer), 3 searches each
		t.Errorf("worst case with search = %v, want %v", searched, want)
	}
	// A max_uses past the limit is brought down to it; one within it kept.
	if got := boundSearches([]providers.ServerTool{{MaxUses: 50}, {MaxUses: 2}}, 8); got[0].MaxUses != 8 || got[1].MaxUses != 2 {
		t.Errorf("bounded %+v", got)
	}
}
