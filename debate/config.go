package debate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
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
	Context ContextConfig    `mapstructure:"context"`
	// BudgetUSD caps every session's spend (USD; 0: no cap): no call is
	// started whose worst case could pass it. --max-cost, /budget and the
	// API's max_cost set it per run or session.
	BudgetUSD float64 `mapstructure:"budget_usd"`
	// Webhooks are the URLs parley serve posts events to.
	Webhooks []WebhookSpec `mapstructure:"webhooks"`
	// Serve holds parley serve's own settings.
	Serve ServeConfig `mapstructure:"serve"`

	// Seating says what happens to an agent whose provider has no key:
	// stand-in (default) seats it on the first keyed provider's default
	// model; strict leaves it unseated (see seating.go).
	Seating string `mapstructure:"seating"`
	// Seats is the seating decided at start (nil: not seated, e.g. demo).
	Seats *Seating `mapstructure:"-"`

	// Offline is set for --demo: every call costs nothing.
	Offline bool        `mapstructure:"-"`
	Bench   BenchConfig `mapstructure:"bench"`

	// Source names the file the configuration came from, for error messages.
	Source string `mapstructure:"-"`
}

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
	Tools  bool   `mapstructure:"tools"` // may use the workspace tools in any mode
}

// WebhookSpec is one entry of `webhooks` (used by parley serve): the URL
// events are POSTed to, the event types sent, and the environment variable
// holding the signing secret.
type WebhookSpec struct {
	URL       string   `mapstructure:"url"`
	Events    []string `mapstructure:"events"`
	SecretEnv string   `mapstructure:"secret_env"`
	// AllowPrivate lets the URL reach loopback, private, link-local and
	// cloud-metadata addresses, which are refused otherwise.
	AllowPrivate bool `mapstructure:"allow_private"`
}

// ServeConfig is parley serve's part of the configuration.
type ServeConfig struct {
	// Hosts are the host names (a port is optional) the server answers to
	// besides its bound address and the loopback names: the names a
	// reverse proxy or a LAN uses to reach it.
	Hosts []string `mapstructure:"hosts"`
}

// ModesConfig says which agents each mode uses.
type ModesConfig struct {
	Mention   MentionConfig   `mapstructure:"mention"`
	Alternate AlternateConfig `mapstructure:"alternate"`
	Talk      TalkConfig      `mapstructure:"talk"`
	Magi      MagiConfig      `mapstructure:"magi"`
	Agent     AgentModeConfig `mapstructure:"agent"`
	Council   CouncilConfig   `mapstructure:"council"`
}

// MentionConfig: Agents are the ones @all addresses.
type MentionConfig struct {
	Agents []string `mapstructure:"agents"`
	// BudgetUSD caps each exchange of the mode (one ask, one council, one
	// talk), USD; 0: none.
	BudgetUSD float64 `mapstructure:"budget_usd"`
}

// AlternateConfig: the two agents, first one first.
type AlternateConfig struct {
	Agents []string `mapstructure:"agents"`
	// BudgetUSD caps each exchange of the mode (one ask, one council, one
	// talk), USD; 0: none.
	BudgetUSD float64 `mapstructure:"budget_usd"`
}

// TalkConfig: two participants and a moderator.
type TalkConfig struct {
	A            string        `mapstructure:"a"`
	B            string        `mapstructure:"b"`
	Moderator    string        `mapstructure:"moderator"`
	Rounds       int           `mapstructure:"rounds"`
	Pace         time.Duration `mapstructure:"pace"`
	BudgetTokens int           `mapstructure:"budget_tokens"`
	// BudgetUSD caps each exchange of the mode (one ask, one council, one
	// talk), USD; 0: none.
	BudgetUSD float64 `mapstructure:"budget_usd"`
}

// MagiConfig: the three personas, in the order MELCHIOR, BALTHASAR, CASPER.
type MagiConfig struct {
	Agents []string `mapstructure:"agents"`
	Preset string   `mapstructure:"preset"`
	// AnswerType: approve (approve/reject/abstain), option, number or text.
	AnswerType string `mapstructure:"answer_type"`
	// EarlyStop ends a council after round 1 when its votes are unanimous.
	EarlyStop bool `mapstructure:"early_stop"`
	// Anonymous shows peers' opinions as "Member A/B/C"; Shuffle varies
	// their order per member (conformity controls).
	Anonymous bool `mapstructure:"anonymous"`
	Shuffle   bool `mapstructure:"shuffle"`
	// BudgetUSD caps each exchange of the mode (one ask, one council, one
	// talk), USD; 0: none.
	BudgetUSD float64 `mapstructure:"budget_usd"`
	// Adaptive stops a council once more rounds are unlikely to change it
	// (see AdaptiveStop); AdaptiveMargin is its round-1 confidence-weighted
	// margin (0: DefaultAdaptiveMargin).
	Adaptive       bool    `mapstructure:"adaptive"`
	AdaptiveMargin float64 `mapstructure:"adaptive_margin"`
	// Guard leaves vote changes without a new argument out of the verdict.
	Guard bool `mapstructure:"guard"`
}

// CouncilConfig: the council's members (two or more; empty: the first agent
// of each of the openai, gemini and anthropic providers) and its chairman
// (empty: the strongest configured model, see DefaultChairman).
type CouncilConfig struct {
	Members  []string `mapstructure:"members"`
	Chairman string   `mapstructure:"chairman"`
	// BudgetUSD caps each exchange of the mode (one ask, one council, one
	// talk), USD; 0: none.
	BudgetUSD float64 `mapstructure:"budget_usd"`
}

// AgentModeConfig: the code-reading agent.
type AgentModeConfig struct {
	Agent    string `mapstructure:"agent"`
	MaxSteps int    `mapstructure:"max_steps"`
	// BudgetUSD caps each exchange of the mode (one ask, one council, one
	// talk), USD; 0: none.
	BudgetUSD float64 `mapstructure:"budget_usd"`
}

// ContextConfig bounds the prompt of every turn. Each agent's prompt is the
// system prompt, the summaries of older turns and the turns since the last
// summary verbatim; once the verbatim part passes its budget the oldest
// block is summarised (see compact.go).
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

// defaultContextTokens are the per-mode prompt budgets when the
// configuration sets none: a few turns of real answers verbatim plus room
// for summaries. MAGI's is what each member reads of the debate before
// the question.
var defaultContextTokens = map[string]int{
	"mention": 12000, "alternate": 10000, "talk": 10000, "magi": 6000, "agent": 16000,
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
	switch mode {
	case "mention":
		own = c.Context.Mention
	case "alternate":
		own = c.Context.Alternate
	case "talk":
		own = c.Context.Talk
	case "magi":
		own = c.Context.Magi
	case "agent":
		own = c.Context.Agent
	}
	total := own.BudgetTokens
	if total == 0 && mode == "talk" {
		total = c.Modes.Talk.BudgetTokens
	}
	if total == 0 {
		total = c.Context.BudgetTokens
	}
	if total == 0 {
		total = defaultContextTokens[mode]
	}
	if total == 0 {
		total = 12000
	}
	total = max(total, minContextTokens)
	summary := own.SummaryTokens
	if summary == 0 || summary > total/2 {
		summary = total / 4
	}
	verbatim := total - summary
	return Budget{Total: total, Summary: summary, Verbatim: verbatim, Block: verbatim / 2}
}

// minContextTokens keeps a tiny budget from compacting every turn.
const minContextTokens = 1000

// BenchConfig tunes `parley bench`.
type BenchConfig struct {
	// MaxTokens caps each member's answer in a bench (members whose agent
	// sets no max_tokens), so --max-cost can bound every call.
	MaxTokens int `mapstructure:"max_tokens"`
	// Limits are per-provider rate limits (by provider entry name).
	Limits map[string]RateLimit `mapstructure:"limits"`
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

// ConfigError is a configuration problem: where the value came from (the
// file and line, or the environment variable and its value), the key and
// what is wrong.
type ConfigError struct {
	File    string
	Line    int // 0: unknown
	Key     string
	Problem string
	// Env is set when the value came from an environment variable: its
	// name, and Value what it held.
	Env   string
	Value string
}

func (e *ConfigError) Error() string {
	if e.Env != "" {
		where := fmt.Sprintf("environment variable %s=%s", e.Env, Quote(e.Value))
		if e.Key != "" {
			where += " (" + e.Key + ")"
		}
		return where + ": " + e.Problem
	}
	file := e.File
	if file == "" {
		file = "configuration"
	}
	if e.Line > 0 {
		file = fmt.Sprintf("%s:%d", file, e.Line)
	}
	if e.Key == "" {
		return fmt.Sprintf("%s: %s", file, e.Problem)
	}
	return fmt.Sprintf("%s: %s: %s", file, e.Key, e.Problem)
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

// Validate checks cross references and values; the first problem wins.
func (c *Config) Validate() error {
	bad := func(key, format string, args ...any) error {
		return &ConfigError{File: c.Source, Key: key, Problem: fmt.Sprintf(format, args...)}
	}
	if err := c.checkBounds(bad); err != nil {
		return err
	}
	for name, p := range c.Providers {
		if !slices.Contains(providers.Types, p.Type) {
			return bad("providers."+name+".type", "unknown provider type %s (one of %s)", Quote(p.Type), strings.Join(providers.Types, ", "))
		}
	}
	seen := map[string]bool{}
	for i, a := range c.Agents {
		key := fmt.Sprintf("agents[%d]", i)
		switch {
		case a.Name == "":
			return bad(key+".name", "missing")
		case a.Name != strings.ToLower(a.Name) || strings.ContainsAny(a.Name, " @\t"):
			return bad(key+".name", "%s must be lower case without spaces or @", Quote(a.Name))
		case a.Name == "all":
			return bad(key+".name", `"all" is reserved for @all`)
		case seen[a.Name]:
			return bad(key+".name", "duplicate agent %s", Quote(a.Name))
		}
		seen[a.Name] = true
		if _, ok := c.Providers[a.Provider]; !ok {
			return bad(key+".provider", "unknown provider %s (known: %s)", Quote(a.Provider), strings.Join(sortedKeys(c.Providers), ", "))
		}
		if a.Model == "" && c.Providers[a.Provider].Type != "demo" {
			return bad(key+".model", "missing for agent %s", Quote(a.Name))
		}
		if a.Effort != "" && !slices.Contains(providers.EffortLevels, a.Effort) {
			return bad(key+".effort", "%s is not an effort level (one of %s)", Quote(a.Effort), strings.Join(providers.EffortLevels, ", "))
		}
		if a.MaxTokens < 0 {
			return bad(key+".max_tokens", "must not be negative (0: the model's maximum, capped at 32000)")
		}
		if a.Temperature != nil && (*a.Temperature < 0 || *a.Temperature > 2) {
			return bad(key+".temperature", "%v is outside 0..2", *a.Temperature)
		}
	}
	known := strings.Join(c.AgentNames(), ", ")
	checkList := func(key string, names []string, want int) error {
		if want > 0 && len(names) != want {
			return bad(key, "needs exactly %d agents, has %d", want, len(names))
		}
		for i, n := range names {
			if !seen[n] {
				return bad(fmt.Sprintf("%s[%d]", key, i), "unknown agent %s (known: %s)", Quote(n), known)
			}
		}
		return nil
	}
	checkOne := func(key, name string) error {
		if !seen[name] {
			return bad(key, "unknown agent %s (known: %s)", Quote(name), known)
		}
		return nil
	}
	m := c.Modes
	for _, err := range []error{
		checkList("modes.mention.agents", m.Mention.Agents, 0),
		checkList("modes.alternate.agents", m.Alternate.Agents, 2),
		checkOne("modes.talk.a", m.Talk.A),
		checkOne("modes.talk.b", m.Talk.B),
		checkOne("modes.talk.moderator", m.Talk.Moderator),
		checkList("modes.magi.agents", m.Magi.Agents, 3),
		checkOne("modes.agent.agent", m.Agent.Agent),
		checkList("modes.council.members", m.Council.Members, 0),
	} {
		if err != nil {
			return err
		}
	}
	if n := len(m.Council.Members); n == 1 {
		return bad("modes.council.members", "needs at least two members, has 1")
	}
	if m.Council.Chairman != "" {
		if err := checkOne("modes.council.chairman", m.Council.Chairman); err != nil {
			return err
		}
	}
	if hasDuplicate(m.Council.Members) {
		return bad("modes.council.members", "lists a member twice")
	}
	if len(m.Mention.Agents) == 0 {
		return bad("modes.mention.agents", "needs at least one agent for @all")
	}
	if c.Seating != "" && !slices.Contains(SeatingValues, c.Seating) {
		return bad("seating", "unknown value %q (one of %s)", c.Seating, strings.Join(SeatingValues, ", "))
	}
	if c.DefaultMode != "" && !slices.Contains(ModeNames, c.DefaultMode) {
		return bad("default_mode", "unknown mode %s (one of %s)", Quote(c.DefaultMode), strings.Join(ModeNames, ", "))
	}
	if _, err := ParseAnswerType(m.Magi.AnswerType); err != nil {
		return bad("modes.magi.answer_type", "%v", err)
	}
	if m.Magi.AdaptiveMargin < 0 || m.Magi.AdaptiveMargin > 1 {
		return bad("modes.magi.adaptive_margin", "must be between 0 and 1 (0: the default, %.1f)", DefaultAdaptiveMargin)
	}
	if m.Talk.Rounds < 0 {
		return bad("modes.talk.rounds", "must not be negative")
	}
	if c.Context.BudgetTokens < 0 {
		return bad("context.budget_tokens", "must not be negative")
	}
	for i, b := range []ContextBudget{c.Context.Mention, c.Context.Alternate, c.Context.Talk, c.Context.Magi, c.Context.Agent} {
		if b.BudgetTokens < 0 || b.SummaryTokens < 0 {
			return bad("context."+ModeNames[i], "budgets must not be negative")
		}
	}
	if c.Context.Summarizer != "" && !seen[c.Context.Summarizer] {
		return bad("context.summarizer", "unknown agent %s (known: %s)", Quote(c.Context.Summarizer), known)
	}
	if m.Agent.MaxSteps < 0 {
		return bad("modes.agent.max_steps", "must not be negative")
	}
	for model, m := range c.Models {
		for _, price := range []*float64{m.Input, m.CachedInput, m.CacheWrite, m.Output} {
			if price != nil && *price < 0 {
				return bad("models."+model, "prices must not be negative")
			}
		}
		if m.API != "" && !slices.Contains(providers.APIs, m.API) {
			return bad("models."+model+".api", "unknown API %s (one of %s)", Quote(m.API), strings.Join(providers.APIs, ", "))
		}
		if err := checkSchedule("models."+model, m, bad); err != nil {
			return err
		}
		for _, d := range []struct{ key, val string }{{"deprecated", m.Deprecated}, {"shutdown", m.Shutdown}} {
			if _, err := time.Parse("2006-01-02", d.val); d.val != "" && err != nil {
				return bad("models."+model+"."+d.key, "%s is not a date (YYYY-MM-DD)", Quote(d.val))
			}
		}
	}
	for name, p := range c.Providers {
		if p.IdleTimeout < 0 || p.FirstByteTimeout < 0 || p.Timeout < 0 {
			return bad("providers."+name, "timeouts must not be negative")
		}
		if p.API != "" && !slices.Contains(providers.APIs, p.API) {
			return bad("providers."+name+".api", "unknown API %s (one of %s)", Quote(p.API), strings.Join(providers.APIs, ", "))
		}
	}
	if c.BudgetUSD < 0 {
		return bad("budget_usd", "must not be negative (0: no cap)")
	}
	for _, mode := range ModeNames {
		if c.ModeBudget(mode) < 0 {
			return bad("modes."+mode+".budget_usd", "must not be negative (0: no cap)")
		}
	}
	if c.Bench.MaxTokens < 0 {
		return bad("bench.max_tokens", "must not be negative")
	}
	for name, l := range c.Bench.Limits {
		if _, ok := c.Providers[name]; !ok {
			return bad("bench.limits."+name, "unknown provider %s (known: %s)", Quote(name), strings.Join(sortedKeys(c.Providers), ", "))
		}
		if l.RequestsPerMinute < 0 || l.TokensPerMinute < 0 {
			return bad("bench.limits."+name, "limits must not be negative")
		}
	}
	for i, w := range c.Webhooks {
		key := fmt.Sprintf("webhooks[%d]", i)
		if !strings.HasPrefix(w.URL, "http://") && !strings.HasPrefix(w.URL, "https://") {
			return bad(key+".url", "%s is not an http:// or https:// URL", Quote(w.URL))
		}
		if len(w.Events) == 0 {
			return bad(key+".events", "lists no event (e.g. [magi_decided, exchange_finished, session_finished])")
		}
	}
	for i, h := range c.Serve.Hosts {
		if h == "" || strings.ContainsAny(h, "/?#@ ") {
			return bad(fmt.Sprintf("serve.hosts[%d]", i), "%q is not a host name (e.g. parley.example.com or parley.example.com:8443)", h)
		}
	}
	for model, p := range c.Pricing {
		if p.Input < 0 || p.Output < 0 || p.CachedInput < 0 {
			return bad("pricing."+model, "prices must not be negative")
		}
	}
	return nil
}

// maxQuoted is the most of a value an error quotes: a 50 MB persona or a
// pasted log in the wrong key must not come back whole on the terminal.
const maxQuoted = 80

// Quote quotes a configured value for an error message, its first 80
// characters when it is longer (and its size, so the reader knows).
func Quote(s string) string {
	n := 0
	for i := range s {
		if n == maxQuoted {
			return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:i]), len(s))
		}
		n++
	}
	return strconv.Quote(s)
}

// checkSchedule checks a catalogue entry's dated parts: price schedules,
// the long-context tier, the status and the effort levels.
func checkSchedule(key string, m providers.ModelInfo, bad func(key, format string, args ...any) error) error {
	for i, p := range m.Prices {
		k := fmt.Sprintf("%s.prices[%d]", key, i)
		if _, err := time.Parse("2006-01-02", p.From); err != nil {
			return bad(k+".from", "%s is not a date (YYYY-MM-DD)", Quote(p.From))
		}
		for _, price := range []*float64{p.Input, p.CachedInput, p.CacheWrite, p.Output} {
			if price != nil && *price < 0 {
				return bad(k, "prices must not be negative")
			}
		}
	}
	if lc := m.LongContext; lc != nil && (lc.Above <= 0 || lc.Input < 0 || lc.Output < 0) {
		return bad(key+".long_context", "needs above (input tokens, > 0) and input/output multipliers (≥ 0)")
	}
	if m.Status != "" && !slices.Contains(providers.Statuses, m.Status) {
		return bad(key+".status", "%s is not a status (one of %s)", Quote(m.Status), strings.Join(providers.Statuses, ", "))
	}
	for _, e := range m.Efforts {
		if !slices.Contains(providers.EffortLevels, e) {
			return bad(key+".efforts", "%s is not an effort level (one of %s)", Quote(e), strings.Join(providers.EffortLevels, ", "))
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func hasDuplicate(names []string) bool {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return true
		}
		seen[n] = true
	}
	return false
}
