package debate

import (
	"math"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/providers"
)

// A turn that may search pays for it in its worst case: each step its
// searches (bounded by max_uses, the turn's call limit) at the model's fee,
// so a cap still bounds a run before it starts.
func TestWorstTurnCostIncludesSearchFees(t *testing.T) {
	zero, fee := 0.0, 0.01
	cfg := &config.Config{Models: providers.Catalogue{"m": {Provider: "anthropic", Input: &zero, Output: &zero, SearchFee: &fee}}}
	req := providers.Request{MaxTokens: 100, Messages: []providers.Message{{Role: providers.RoleUser, Content: "q"}}}
	tt := &toolTurn{limit: 3}
	plain, ok := worstTurnCost(cfg, "m", req, tt, time.Now())
	if !ok || plain != 0 {
		t.Fatalf("no search: %v %v", plain, ok)
	}
	req.ServerTools = boundSearches([]providers.ServerTool{{Kind: providers.ServerToolWebSearch}}, tt.limit)
	if req.ServerTools[0].MaxUses != 3 {
		t.Fatalf("max_uses = %d, want the turn's limit 3", req.ServerTools[0].MaxUses)
	}
	searched, _ := worstTurnCost(cfg, "m", req, tt, time.Now())
	// 4 steps (3 calls and the answer), each up to 3 requests (the first
	// and providers.MaxServerToolPauses continuations), 3 searches each.
	if want := 4 * 3 * 3 * fee; math.Abs(searched-want) > 1e-12 {
		t.Errorf("worst case with search = %v, want %v", searched, want)
	}
	// A max_uses past the limit is brought down to it; one within it kept.
	if got := boundSearches([]providers.ServerTool{{MaxUses: 50}, {MaxUses: 2}}, 8); got[0].MaxUses != 8 || got[1].MaxUses != 2 {
		t.Errorf("bounded %+v", got)
	}
}

// A step the vendor may pause (server tools) is paid for in full: each
// continuation writes up to max_tokens more, so a cap bounds a turn whose
// search pauses twice.
func TestWorstTurnCostCoversPausedContinuations(t *testing.T) {
	zero, perToken := 0.0, 1.0 // a dollar a million output tokens
	cfg := &config.Config{Models: providers.Catalogue{"m": {Provider: "anthropic", Input: &zero, Output: &perToken}}}
	req := providers.Request{MaxTokens: 1000, Messages: []providers.Message{{Role: providers.RoleUser, Content: "q"}}}
	tt := &toolTurn{limit: 1}
	plain, _ := worstTurnCost(cfg, "m", req, tt, time.Now())
	if want := 2 * 1000 / 1e6; math.Abs(plain-want) > 1e-12 { // 2 steps of 1,000 tokens
		t.Fatalf("without server tools = %v, want %v", plain, want)
	}
	req.ServerTools = boundSearches([]providers.ServerTool{{Kind: providers.ServerToolWebSearch}}, tt.limit)
	paused, _ := worstTurnCost(cfg, "m", req, tt, time.Now())
	if want := float64(2*(1+providers.MaxServerToolPauses)*1000) / 1e6; math.Abs(paused-want) > 1e-12 {
		t.Errorf("with server tools = %v, want %v (every continuation's max_tokens)", paused, want)
	}
}
