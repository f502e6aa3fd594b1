package debate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parleyhq/parley/providers"
)

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
	if sv := c.Serve; sv.ReadHeaderTimeout < 0 || sv.ReadTimeout < 0 || sv.IdleTimeout < 0 ||
		sv.MaxConnsPerAddr < 0 || sv.MaxStreams < 0 || sv.MaxStreamsPerUser < 0 {
		return bad("serve", "timeouts and limits must not be negative (0 takes the default)")
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
