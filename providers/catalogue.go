package providers

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ModelInfo is one entry of the model catalogue (config.yaml `models`):
// what Parley must know about a model to call it correctly and to price it.
// Prices are USD per one million tokens; a nil price is unknown.
type ModelInfo struct {
	// Provider is the vendor family: openai, anthropic or gemini.
	Provider string `mapstructure:"provider" json:"provider,omitempty"`
	// API is the OpenAI API the model is served by: responses or chat.
	// Empty: the provider entry's api decides.
	API string `mapstructure:"api" json:"api,omitempty"`
	// ToolsAPI is the API a request of a tool-using agent must go to on
	// an OpenAI endpoint ("responses": Chat Completions refuses tools with
	// an effort set); "none" marks a model without native tool calling
	// (NativeTools). Empty: API decides.
	ToolsAPI string `mapstructure:"tools_api" json:"tools_api,omitempty"`
	// SearchFee is the vendor's fee for one server-side web search, USD
	// (nil: its family's, see searchfee.go); SearchPerRequest says the fee
	// is charged once per request that searched, however many queries
	// ran (Gemini 2.x grounding).
	SearchFee        *float64 `mapstructure:"search_fee" json:"search_fee,omitempty"`
	SearchPerRequest bool     `mapstructure:"search_per_request" json:"search_per_request,omitempty"`
	// Reasoning models take no temperature/top_p, want max_completion_tokens
	// on Chat Completions and spend output tokens on reasoning first.
	Reasoning bool `mapstructure:"reasoning" json:"reasoning,omitempty"`
	// Temperature says whether a temperature is accepted (nil: unless Reasoning).
	Temperature *bool `mapstructure:"temperature" json:"temperature,omitempty"`
	// Efforts are the effort levels the model accepts (of EffortLevels);
	// nil: its family's rule, empty: none (no effort is sent).
	Efforts []string `mapstructure:"efforts" json:"efforts,omitempty"`
	// Input, CachedInput (cache reads), CacheWrite and Output prices. A
	// nil CachedInput costs as Input; a nil CacheWrite costs 1.25 × Input
	// for Anthropic (its 5-minute cache writes) and Input elsewhere.
	Input       *float64 `mapstructure:"input" json:"input,omitempty"`
	CachedInput *float64 `mapstructure:"cached_input" json:"cached_input,omitempty"`
	CacheWrite  *float64 `mapstructure:"cache_write" json:"cache_write,omitempty"`
	Output      *float64 `mapstructure:"output" json:"output,omitempty"`
	// Prices are later price schedules: from its From date on, an entry's
	// prices replace the ones above (a field it leaves out keeps the
	// earlier price). The price in force at a call's date prices it.
	Prices []PriceChange `mapstructure:"prices" json:"prices,omitempty"`
	// LongContext is a long-context tier: a request with more than Above
	// input tokens pays every input token (cached and cache writes too)
	// at Input × the price and every output token at Output × the price.
	LongContext *LongContext `mapstructure:"long_context" json:"long_context,omitempty"`
	// Status is active, legacy, deprecated or shutdown, as the vendor's
	// page says ("": active unless Retired or past its Shutdown date).
	Status string `mapstructure:"status" json:"status,omitempty"`
	// Source is the vendor page the entry was checked against, and Checked
	// the day it was.
	Source  string `mapstructure:"source" json:"source,omitempty"`
	Checked string `mapstructure:"checked" json:"checked,omitempty"`
	// CacheMin is the shortest prompt prefix, in tokens, the vendor caches
	// (0: its family's rule). Anthropic cache breakpoints are set only past it.
	CacheMin int `mapstructure:"cache_min" json:"cache_min,omitempty"`
	// Context is the context window and MaxOutput the most output tokens
	// one answer may have (0: unknown).
	Context   int `mapstructure:"context" json:"context,omitempty"`
	MaxOutput int `mapstructure:"max_output" json:"max_output,omitempty"`
	// Deprecated and Shutdown are dates (YYYY-MM-DD) from the vendor's
	// deprecation page; Replacement is the model it names instead.
	Deprecated string `mapstructure:"deprecated" json:"deprecated,omitempty"`
	// Retired marks a model the vendor lists as shut down without a date.
	Retired     bool   `mapstructure:"retired" json:"retired,omitempty"`
	Shutdown    string `mapstructure:"shutdown" json:"shutdown,omitempty"`
	Replacement string `mapstructure:"replacement" json:"replacement,omitempty"`

	// Origins says, per figure (input, output, cached_input, cache_write,
	// context, max_output, efforts), which layer it came from; set by
	// Overlay, nil for an entry that only Parley's catalogue describes.
	Origins map[string]Origin `mapstructure:"-" json:"origins,omitempty"`

	// Known is set by Lookup when the entry came from the catalogue, not
	// from the family rules alone.
	Known bool `mapstructure:"-" json:"-"`
}

// PriceChange is a price schedule entry: the prices in force from From
// (YYYY-MM-DD, UTC) on. A nil price keeps the one before.
type PriceChange struct {
	From        string   `mapstructure:"from" json:"from"`
	Input       *float64 `mapstructure:"input" json:"input,omitempty"`
	CachedInput *float64 `mapstructure:"cached_input" json:"cached_input,omitempty"`
	CacheWrite  *float64 `mapstructure:"cache_write" json:"cache_write,omitempty"`
	Output      *float64 `mapstructure:"output" json:"output,omitempty"`
}

// LongContext is a long-context price tier.
type LongContext struct {
	Above  int     `mapstructure:"above" json:"above"`   // input tokens
	Input  float64 `mapstructure:"input" json:"input"`   // multiplier of every input price
	Output float64 `mapstructure:"output" json:"output"` // multiplier of the output price
}

// Statuses of a model (ModelInfo.Status).
var Statuses = []string{"active", "legacy", "deprecated", "shutdown"}

// At returns the entry with the prices in force on day at (schedules
// applied in date order); the schedule itself is dropped.
func (m ModelInfo) At(at time.Time) ModelInfo {
	day := at.UTC().Format("2006-01-02")
	changes := slices.Clone(m.Prices)
	slices.SortStableFunc(changes, func(a, b PriceChange) int { return strings.Compare(a.From, b.From) })
	for _, c := range changes {
		if c.From > day {
			break
		}
		for _, f := range []struct{ dst, src **float64 }{
			{&m.Input, &c.Input}, {&m.CachedInput, &c.CachedInput}, {&m.CacheWrite, &c.CacheWrite}, {&m.Output, &c.Output},
		} {
			if *f.src != nil {
				*f.dst = *f.src
			}
		}
	}
	m.Prices = nil
	return m
}

// StatusAt is the model's status on day now: shutdown once retired or
// past its shutdown date, else the catalogue's (active when it names none).
func (m ModelInfo) StatusAt(now time.Time) string {
	if m.Retired || m.Status == "shutdown" {
		return "shutdown"
	}
	if m.Shutdown != "" && m.Shutdown <= now.UTC().Format("2006-01-02") {
		return "shutdown"
	}
	if m.Status != "" {
		return m.Status
	}
	if m.Deprecated != "" && m.Deprecated <= now.UTC().Format("2006-01-02") {
		return "deprecated"
	}
	return "active"
}

// AcceptsTemperature reports whether a configured temperature may be sent.
func (m ModelInfo) AcceptsTemperature() bool {
	if m.Temperature != nil {
		return *m.Temperature
	}
	return !m.Reasoning
}

// EffortLevels are the effort levels an agent may ask for, lowest first;
// each model takes the ones its catalogue entry (or family) lists. xhigh
// and max: OpenAI's gpt-6 pages and Anthropic's effort page (2026-11-25).
var EffortLevels = []string{"low", "medium", "high", "xhigh", "max"}

// AcceptsEffort reports whether the model takes the effort level.
func (m ModelInfo) AcceptsEffort(level string) bool {
	return level != "" && slices.Contains(m.Efforts, level)
}

// Priced reports whether the entry has a price.
func (m ModelInfo) Priced() bool { return m.Input != nil || m.Output != nil }

// DefaultMaxTokens is the output limit sent when an agent sets none but the
// API requires one (Anthropic): the model's maximum, capped at 32,000 so a
// runaway answer stays affordable, and 4,096 for a model nobody described.
func (m ModelInfo) DefaultMaxTokens() int {
	if m.MaxOutput <= 0 {
		return 4096
	}
	return min(m.MaxOutput, 32000)
}

// CostAt prices u with the prices in force on day at and the
// long-context tier when the call passed it; ok is false when the model
// has no price.
func (m ModelInfo) CostAt(u Usage, at time.Time) (cost float64, ok bool) {
	m = m.At(at)
	tokens := u
	tokens.SearchCalls = 0 // the search fee takes no long-context multiplier
	cost, ok = m.Cost(tokens)
	if lc := m.LongContext; ok && lc != nil && lc.Above > 0 && u.InputTokens > lc.Above {
		in, _ := m.Cost(Usage{InputTokens: u.InputTokens, CachedTokens: u.CachedTokens, CacheWriteTokens: u.CacheWriteTokens})
		cost = in*lc.Input + (cost-in)*lc.Output
	}
	if ok {
		cost += m.SearchCost(u.SearchCalls)
	}
	return cost, ok
}

// Cost prices u at the entry's base prices (no schedule, no tier); ok is
// false when the model has no price.
func (m ModelInfo) Cost(u Usage) (cost float64, ok bool) {
	if !m.Priced() {
		return 0, false
	}
	price := func(p *float64, def float64) float64 {
		if p == nil {
			return def
		}
		return *p
	}
	in := price(m.Input, 0)
	writeDef := in
	if m.Provider == "anthropic" {
		writeDef = in * 1.25
	}
	fresh := max(u.InputTokens-u.CachedTokens-u.CacheWriteTokens, 0)
	cost = float64(fresh)*in +
		float64(u.CachedTokens)*price(m.CachedInput, in) +
		float64(u.CacheWriteTokens)*price(m.CacheWrite, writeDef) +
		float64(u.OutputTokens)*price(m.Output, 0)
	return cost/1e6 + m.SearchCost(u.SearchCalls), true
}

// Catalogue maps model names to what is known about them.
type Catalogue map[string]ModelInfo

var snapshotSuffix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-(\d{4}-\d{2}-\d{2}|\d{8}|\d{4}|latest)$`) })

// Lookup finds model: its own entry, else the entry of the model it is a
// dated snapshot of ("gpt-5-2025-08-07", "claude-haiku-4-5-20251001"),
// else the rules of its family with no price. A routing prefix
// ("openai/gpt-5") is ignored; names compare case-insensitively.
func (c Catalogue) Lookup(model string) ModelInfo {
	name := baseName(model)
	family := Family(name)
	entry, ok := c.find(name)
	if !ok {
		return family
	}
	// Fields the entry leaves empty come from the family rules.
	if entry.Provider == "" {
		entry.Provider = family.Provider
	}
	if entry.API == "" {
		entry.API = family.API
	}
	if entry.ToolsAPI == "" {
		entry.ToolsAPI = family.ToolsAPI
	}
	if entry.SearchFee == nil {
		entry.SearchFee, entry.SearchPerRequest = family.SearchFee, family.SearchPerRequest
	}
	if entry.Temperature == nil && !entry.Reasoning {
		entry.Reasoning = family.Reasoning
		entry.Temperature = family.Temperature
	}
	if entry.MaxOutput == 0 {
		entry.MaxOutput = family.MaxOutput
	}
	if entry.Efforts == nil {
		entry.Efforts = family.Efforts
	}
	if entry.CacheMin == 0 {
		entry.CacheMin = family.CacheMin
	}
	entry.Known = true
	return entry
}

func (c Catalogue) find(name string) (ModelInfo, bool) {
	_, info, ok := c.findKey(name)
	return info, ok
}

func baseName(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	return m
}

// ShutdownSoon is how far ahead Parley warns of a model's shutdown.
const ShutdownSoon = 30 * 24 * time.Hour

// ModelWarnings lists what is wrong with an agent's model choice at now:
// a shutdown date past or within 30 days (naming the replacement) and a
// temperature the model does not accept (naming the config key, which
// the caller then drops). key is the agent's config key, e.g. "agents[1]".
func ModelWarnings(key, model string, info ModelInfo, hasTemperature bool, now time.Time) []string {
	return modelWarnings(key, model, info, hasTemperature, "", now)
}

// ModelEffortWarnings is ModelWarnings plus an effort level the model does
// not take (not sent; the warning names the key).
func ModelEffortWarnings(key, model string, info ModelInfo, hasTemperature bool, effort string, now time.Time) []string {
	return modelWarnings(key, model, info, hasTemperature, effort, now)
}

func modelWarnings(key, model string, info ModelInfo, hasTemperature bool, effort string, now time.Time) []string {
	var out []string
	instead := ""
	if info.Replacement != "" {
		instead = "; switch to " + info.Replacement
	}
	if info.Retired && info.Shutdown == "" {
		out = append(out, fmt.Sprintf("%s.model: %s is shut down%s", key, model, instead))
	}
	if info.Shutdown != "" {
		if day, err := time.Parse("2006-01-02", info.Shutdown); err == nil {
			switch left := day.Sub(now.Truncate(24 * time.Hour)); {
			case left <= 0:
				out = append(out, fmt.Sprintf("%s.model: %s was shut down on %s%s", key, model, info.Shutdown, instead))
			case left <= ShutdownSoon:
				days := int((left + 24*time.Hour - 1) / (24 * time.Hour))
				out = append(out, fmt.Sprintf("%s.model: %s shuts down on %s (in %d days)%s", key, model, info.Shutdown, days, instead))
			}
		}
	}
	if hasTemperature && !info.AcceptsTemperature() {
		out = append(out, fmt.Sprintf("%s.temperature: %s does not accept a temperature; it is not sent (remove the key to silence this)", key, model))
	}
	if effort != "" && !info.AcceptsEffort(effort) {
		takes := "no effort setting"
		if len(info.Efforts) > 0 {
			takes = "only " + strings.Join(info.Efforts, ", ")
		}
		out = append(out, fmt.Sprintf("%s.effort: %s takes %s; %q is not sent", key, model, takes, effort))
	}
	return out
}

// FormatCost renders a cost for people: "$0.0123", or "$?" when the price
// is unknown (never "$0.0000" for a model nobody priced), or "≥ $0.0123"
// for a total that includes calls nobody priced.
func FormatCost(cost float64, unknown bool) string { return FormatSpend(cost, unknown, false) }

// FormatUsageCost renders the cost of a usage with its marks: "$?" or
// "≥ $0.0123" as FormatCost, and "~$0.0123" when Parley counted the
// tokens itself because the provider's figures never came.
func FormatUsageCost(cost float64, u Usage) string {
	return FormatSpend(cost, u.PriceUnknown, u.Estimated)
}

// FormatSpend renders a cost that may include unpriced calls (unknown)
// and estimated usage.
func FormatSpend(cost float64, unknown, estimated bool) string {
	if unknown && cost <= 0 {
		return "$?"
	}
	s := "$" + strconv.FormatFloat(cost, 'f', 4, 64) // fmt's "$%.4f" without fmt: a list formats 10,000
	if estimated {
		s = "~" + s
	}
	if unknown {
		s = "≥ " + s
	}
	return s
}

// PriceHint is said once when a turn used a model without a price.
func PriceHint(model string) string {
	return fmt.Sprintf("no price known for %s: costs show ? — add models.%s.input and .output (USD per 1M tokens) to your config", model, model)
}
