package providers

// Server-side web search is billed per use on top of tokens. The fees
// below are each vendor's own list price, read on its pricing page on
// 2026-11-28; a catalogue entry's search_fee overrides its family's.
//
//   - OpenAI, the Responses API's web_search tool: $10.00 per 1,000 calls,
//     search content tokens billed at the model's rates
//     (https://developers.openai.com/api/docs/pricing, "Built-in tools").
//   - Anthropic, web_search_20250305: $10 per 1,000 searches plus the
//     tokens of the results (https://platform.claude.com/docs/en/about-claude/pricing,
//     "Web search tool").
//   - Gemini, grounding with Google Search: Gemini 3 and later $14 per
//     1,000 search queries (each of a response's webSearchQueries);
//     Gemini 2.5 and earlier $35 per 1,000 grounded prompts, one per
//     request however many queries it ran
//     (https://ai.google.dev/gemini-api/docs/pricing, "Grounding with
//     Google Search"). The monthly free allowance is not counted, so a
//     cap errs high.
const SearchFeesChecked = "2026-11-28"

// Per-search fees, USD.
const (
	openAISearchFee       = 0.010
	anthropicSearchFee    = 0.010
	geminiSearchFee       = 0.014
	geminiLegacySearchFee = 0.035 // per grounded request, Gemini 2.x
)

// MaxSearchCalls bounds the searches one call may report: a count from a
// server is never trusted past it.
const MaxSearchCalls = 1000

// MaxServerToolPauses bounds how many times an adapter continues a turn
// its vendor paused in a server-side tool (Anthropic's pause_turn). Each
// continuation is one more request — the prompt again, the paused content,
// up to max_tokens more and its own searches — so the engine's worst case
// of a turn with server tools counts 1+MaxServerToolPauses requests a step.
const MaxServerToolPauses = 2

// NativeTools reports whether the model takes tools in its vendor's
// native shape; false (catalogue tools_api: none) means the engine must
// offer them through the XML protocol.
func (m ModelInfo) NativeTools() bool { return m.ToolsAPI != "none" }

// SearchCost is the fee of n server-side searches of one call: n fees, or
// one when the vendor charges per request (SearchPerRequest); 0 when the
// model has no known fee.
func (m ModelInfo) SearchCost(n int) float64 {
	if m.SearchFee == nil || n <= 0 {
		return 0
	}
	n = min(n, MaxSearchCalls)
	if m.SearchPerRequest {
		n = 1
	}
	return float64(n) * *m.SearchFee
}

// familySearchFee sets the fee of a family's server-side search.
func familySearchFee(info *ModelInfo, geminiMajor int) {
	fee := 0.0
	switch info.Provider {
	case "openai":
		fee = openAISearchFee
	case "anthropic":
		fee = anthropicSearchFee
	case "gemini":
		fee = geminiSearchFee
		if geminiMajor > 0 && geminiMajor < 3 {
			fee, info.SearchPerRequest = geminiLegacySearchFee, true
		}
	default:
		return
	}
	info.SearchFee = &fee
}
