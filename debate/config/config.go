package config

import (
	"fmt"
	"slices"
	"time"

	"github.com/parleyhq/parley/providers"
)

// Config is the whole configuration (config.yaml documents every key).
type Config struct {
	DefaultMode string                    `mapstructure:"default_mode"`
	Providers   map[string]providers.Spec `mapstructure:"providers"`
	Agents      []AgentSpec               `mapstructure:"agents"`
	Modes       ModesConfig               `mapstructure:"modes"`
	// Models is the model catalogue: API, reasoning, sampling, prices,
	// limits and shutdown dates per model (providers.ModelInfo).
	Models providers.Catalogue `mapstructure:"models"`
	// Pricing is the older price table; an entry here overrides the
	// catalogue's prices for that model.
	Pricing map[string]Price `mapstructure:"pricing"`
	// Catalog says how the model catalogue is kept current.
	Catalog CatalogConfig `mapstructure:"catalog"`
	Context ContextConfig `mapstructure:"context"`
	// BudgetUSD caps every session's spend (USD; 0: no cap): no call is
	// started whose worst case could pass it. --max-cost, /budget and the
	// API's max_cost set it per run or session.
	BudgetUSD float64 `mapstructure:"budget_usd"`
	// Webhooks are the URLs parley serve posts events to.
	Webhooks []WebhookSpec `mapstructure:"webhooks"`
	// Serve holds parley serve's own settings.
	Serve ServeConfig `mapstructure:"serve"`
	// Store says where sessions are kept when neither --db nor PARLEY_DB
	// does.
	Store StoreConfig `mapstructure:"store"`
	// Tools limits and polices the members' tools (debate/debate/nativetools.go).
	Tools ToolsConfig `mapstructure:"tools"`
	// MCPServers are the MCP servers whose tools members may call
	// (`tools: [mcp:NAME]`), by name.
	MCPServers map[string]MCPServerSpec `mapstructure:"mcp_servers"`

	// CheckpointTimeout is how long a run waits at a checkpoint before
	// CheckpointOnTimeout (continue or stop) answers for the host; 0: it
	// waits as long as it takes.
	CheckpointTimeout   time.Duration `mapstructure:"checkpoint_timeout"`
	CheckpointOnTimeout string        `mapstructure:"checkpoint_on_timeout"`

	// Seating says what happens to an agent whose provider has no key:
	// stand-in (default) seats it on the first keyed provider's default
	// model; strict leaves it unseated (see seating.go).
	Seating string `mapstructure:"seating"`
	// Seats is the seating decided at start (nil: not seated, e.g. demo).
	Seats *Seating `mapstructure:"-"`

	// Theme and Keys are the console's (docs/console.md): its colours
	// (auto, dark, light, high-contrast, or colours by role over dark or
	// light) and its key bindings, action → keys, over the defaults. Only the console reads them; the
	// configuration's loader checks them with the console's own rules
	// (tui/prefs).
	Theme ThemeSpec          `mapstructure:"theme"`
	Keys  map[string]KeyList `mapstructure:"keys"`

	// Offline is set for --demo: every call costs nothing.
	Offline bool        `mapstructure:"-"`
	Bench   BenchConfig `mapstructure:"bench"`

	// ModeList is the modes this program knows (debate/modes.All), set by
	// whoever builds the configuration, never by a file.
	ModeList ModeList `mapstructure:"-"`

	// Source names the file the configuration came from, for error messages.
	Source string `mapstructure:"-"`
}

// ThemeSpec is `theme:`: a theme's name alone (`theme: light`), or a
// base theme with colours by role over it (`theme: {base: dark, colors:
// {host: "#FFAF00"}}`).
type ThemeSpec struct {
	Base   string            `mapstructure:"base"`
	Colors map[string]string `mapstructure:"colors"`
}

// KeyList is one action's keys under `keys:` (one key may be written
// alone, without a list).
type KeyList []string

// AgentSpec is one entry of `agents`.
type AgentSpec struct {
	Name        string   `mapstructure:"name"`    // used in @name, lower case
	Display     string   `mapstructure:"display"` // used in output: [Gemini]: ...
	Provider    string   `mapstructure:"provider"`
	Model       string   `mapstructure:"model"`
	Persona     string   `mapstructure:"persona"`
	Color       string   `mapstructure:"color"`
	Temperature *float64 `mapstructure:"temperature"`
	MaxTokens   int      `mapstructure:"max_tokens"`
	// Effort is low, medium or high: how hard a reasoning model thinks,
	// sent in its provider's shape where the model takes it ("": the
	// provider's default).
	Effort string `mapstructure:"effort"`
	// Tools are the tools the agent may use in any mode: files, fetch,
	// web_search, mcp:NAME (`tools: true` is [files]; debate/nativetools.go).
	Tools ToolList `mapstructure:"tools"`
}

// MaxRatePerMinute bounds serve.rate_limit's figures (and their flags).
const MaxRatePerMinute = 1_000_000

// ContextConfig bounds the prompt of every turn. Each agent's prompt is the
// system prompt, the summaries of older turns and the turns since the last
// summary verbatim; once the verbatim part passes its budget the oldest
// block is summarised (see debate/compact.go).
type ContextConfig struct {
	// BudgetTokens applies to every mode that sets no budget of its own
	// (0: the mode's default).
	BudgetTokens int `mapstructure:"budget_tokens"`
	// Summarizer names the agent that writes summaries; empty (or a demo
	// agent) uses an extractive digest that needs no model call.
	Summarizer string        `mapstructure:"summarizer"`
	Mention    ContextBudget `mapstructure:"mention"`
	Alternate  ContextBudget `mapstructure:"alternate"`
	Talk       ContextBudget `mapstructure:"talk"`
	Magi       ContextBudget `mapstructure:"magi"`
	Agent      ContextBudget `mapstructure:"agent"`
}

// ContextBudget is one mode's prompt budget, in estimated tokens.
type ContextBudget struct {
	BudgetTokens  int `mapstructure:"budget_tokens"`  // the whole prompt (0: default)
	SummaryTokens int `mapstructure:"summary_tokens"` // of which summaries (0: a quarter)
}

// Budget is a mode's resolved prompt budget.
type Budget struct {
	Total    int // the whole history part of the prompt
	Summary  int // the newest summaries that fit
	Verbatim int // turns since the last summary; past it a block is compacted
	Block    int // what one compaction condenses
}

// ContextBudget resolves mode's budget: its own, else context.budget_tokens,
// else the mode's default.
func (c *Config) ContextBudget(mode string) Budget {
	var own ContextBudget
	var byDefault int
	if s, ok := c.ModeList.Spec(mode); ok {
		own, byDefault = s.Context(c), s.Info().ContextTokens
	}
	total := own.BudgetTokens
	if total == 0 {
		total = c.Context.BudgetTokens
	}
	if total == 0 {
		total = byDefault
	}
	if total == 0 {
		total = 12000
	}
	total = max(total, MinContextTokens)
	summary := own.SummaryTokens
	if summary == 0 || summary > total/2 {
		summary = total / 4
	}
	verbatim := total - summary
	return Budget{Total: total, Summary: summary, Verbatim: verbatim, Block: verbatim / 2}
}

// MinContextTokens, the smallest prompt budget, keeps a tiny budget from compacting every turn.
const MinContextTokens = 1000

// BenchConfig tunes `parley bench`.
type BenchConfig struct {
	// MaxTokens caps each member's answer in a bench (members whose agent
	// sets no max_tokens), so --max-cost can bound every call.
	MaxTokens int `mapstructure:"max_tokens"`
	// Limits are per-provider rate limits (by provider entry name).
	Limits map[string]RateLimit `mapstructure:"limits"`
}

// CatalogConfig is the `catalog` key.
type CatalogConfig struct {
	// AutoUpdate fetches catwalk's catalogue in the background once a day
	// when the kept one is older (never under CI, never delaying start-up).
	AutoUpdate bool `mapstructure:"auto_update"`
}

// RateLimit bounds the calls to one provider (0: no limit).
type RateLimit struct {
	RequestsPerMinute int `mapstructure:"requests_per_minute"`
	TokensPerMinute   int `mapstructure:"tokens_per_minute"`
}

// Price is USD per one million tokens.
type Price struct {
	Input       float64 `mapstructure:"input"`
	Output      float64 `mapstructure:"output"`
	CachedInput float64 `mapstructure:"cached_input"` // 0: same as Input
}

// ModelInfo is the catalogue's entry for model, with the rules of its
// family for whatever the entry leaves open (or for a model not listed).
func (c *Config) ModelInfo(model string) providers.ModelInfo { return c.Models.Lookup(model) }

// Cost prices a usage for a model; known is false when no price is
// configured for it (its cost shows as ?, never as $0).
func (c *Config) Cost(model string, u providers.Usage) (cost float64, known bool) {
	return c.CostAt(model, u, time.Now())
}

// CostAt prices a usage with the prices in force on day at (the call's
// date): the catalogue's price schedule and long-context tier apply.
func (c *Config) CostAt(model string, u providers.Usage, at time.Time) (cost float64, known bool) {
	if c.Offline {
		return 0, true
	}
	if p, ok := c.Pricing[model]; ok {
		cachedPrice := p.CachedInput
		if cachedPrice == 0 {
			cachedPrice = p.Input
		}
		fresh := max(u.InputTokens-u.CachedTokens, 0)
		return (float64(fresh)*p.Input + float64(u.CachedTokens)*cachedPrice + float64(u.OutputTokens)*p.Output) / 1e6, true
	}
	return c.ModelInfo(model).CostAt(u, at)
}

// ModelWarnings checks every agent's model against the catalogue at now:
// shutdown dates within 30 days or past (naming the replacement) and
// temperatures the model does not take, which it clears so they are not
// sent. Each warning names the config key.
func (c *Config) ModelWarnings(now time.Time) []string {
	var out []string
	for i := range c.Agents {
		a := &c.Agents[i]
		if p, ok := c.Providers[a.Provider]; ok && p.Type == "demo" {
			continue
		}
		info := c.ModelInfo(a.Model)
		out = append(out, providers.ModelEffortWarnings(fmt.Sprintf("agents[%d]", i), a.Model, info, a.Temperature != nil, a.Effort, now)...)
		if a.Temperature != nil && !info.AcceptsTemperature() {
			a.Temperature = nil
		}
		if a.Effort != "" && !info.AcceptsEffort(a.Effort) {
			a.Effort = ""
		}
	}
	return out
}

// Agent returns the spec named name.
func (c *Config) Agent(name string) (AgentSpec, bool) {
	for _, a := range c.Agents {
		if a.Name == name {
			return a, true
		}
	}
	return AgentSpec{}, false
}

// AgentNames lists agent names in configuration order.
func (c *Config) AgentNames() []string {
	names := make([]string, len(c.Agents))
	for i, a := range c.Agents {
		names[i] = a.Name
	}
	return names
}

// Clone copies what one run may change (agents and the modes' seats), so
// runs that start from one configuration never share them.
func (c *Config) Clone() *Config {
	out := *c
	out.Agents = slices.Clone(c.Agents)
	m := &out.Modes
	m.Mention.Agents = slices.Clone(m.Mention.Agents)
	m.Alternate.Agents = slices.Clone(m.Alternate.Agents)
	m.Magi.Agents = slices.Clone(m.Magi.Agents)
	m.Council.Members = slices.Clone(m.Council.Members)
	return &out
}

// CacheSaving is what prompt caching saved on one call: its cost had
// every input token been priced as fresh input, less what it cost (cache
// writes cost more than input, so a call that only wrote is negative).
func (c *Config) CacheSaving(model string, u providers.Usage, at time.Time) (usd float64, priced bool) {
	if u.CachedTokens == 0 && u.CacheWriteTokens == 0 {
		return 0, true
	}
	cost, priced := c.CostAt(model, u, at)
	if !priced {
		return 0, false
	}
	plain := u
	plain.CachedTokens, plain.CacheWriteTokens = 0, 0
	uncached, _ := c.CostAt(model, plain, at)
	return uncached - cost, true
}
