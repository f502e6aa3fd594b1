package config

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/figures"
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
// Each mode checks its own section (ModeSpec.Check).
func (c *Config) Validate() error {
	k := newConfigCheck(c)
	if len(c.ModeList) == 0 { // a program that built a configuration without its modes
		return k.Bad("modes", "no mode is known (Config.ModeList is empty)")
	}
	for _, check := range []func(*ConfigCheck) error{
		func(k *ConfigCheck) error { return c.checkBounds(k.Bad) },
		checkProviderTypes, checkAgents, checkModes, checkSettings, checkContext,
		checkModels, checkProviders, checkBudgets, checkBench, checkWebhooks, checkServe, checkTools,
	} {
		if err := check(k); err != nil {
			return err
		}
	}
	return nil
}

// ConfigCheck is what a mode's check of its section reads: the
// configuration, the agents it may name, and how to say what is wrong.
type ConfigCheck struct {
	Config *Config
	agents map[string]bool
	known  string
}

func newConfigCheck(c *Config) *ConfigCheck {
	k := &ConfigCheck{Config: c, agents: map[string]bool{}, known: strings.Join(c.AgentNames(), ", ")}
	for _, a := range c.Agents {
		k.agents[a.Name] = true
	}
	return k
}

// Bad is the configuration error for key.
func (k *ConfigCheck) Bad(key, format string, args ...any) error {
	return &ConfigError{File: k.Config.Source, Key: key, Problem: fmt.Sprintf(format, args...)}
}

// Agent checks that name is a configured agent.
func (k *ConfigCheck) Agent(key, name string) error {
	if !k.agents[name] {
		return k.Bad(key, "unknown agent %s (known: %s)", Quote(name), k.known)
	}
	return nil
}

// Agents checks a list of agents: each configured, and exactly want of
// them when want > 0.
func (k *ConfigCheck) Agents(key string, names []string, want int) error {
	if want > 0 && len(names) != want {
		return k.Bad(key, "needs exactly %d agents, has %d", want, len(names))
	}
	for i, n := range names {
		if !k.agents[n] { // the key spelt out for the error only
			return k.Agent(fmt.Sprintf("%s[%d]", key, i), n)
		}
	}
	return nil
}

func checkProviderTypes(k *ConfigCheck) error {
	for name, p := range k.Config.Providers {
		if !slices.Contains(providers.Types, p.Type) {
			return k.Bad("providers."+name+".type", "unknown provider type %s (one of %s)", Quote(p.Type), strings.Join(providers.Types, ", "))
		}
	}
	return nil
}

func checkAgents(k *ConfigCheck) error {
	seen := map[string]bool{}
	for i, a := range k.Config.Agents {
		key := fmt.Sprintf("agents[%d]", i)
		switch {
		case a.Name == "":
			return k.Bad(key+".name", "missing")
		case a.Name != strings.ToLower(a.Name) || strings.ContainsAny(a.Name, " @\t"):
			return k.Bad(key+".name", "%s must be lower case without spaces or @", Quote(a.Name))
		case a.Name == "all":
			return k.Bad(key+".name", `"all" is reserved for @all`)
		case seen[a.Name]:
			return k.Bad(key+".name", "duplicate agent %s", Quote(a.Name))
		}
		seen[a.Name] = true
		if err := checkAgent(k, key, a); err != nil {
			return err
		}
	}
	return nil
}

// checkAgent checks one agent's provider, model and sampling.
func checkAgent(k *ConfigCheck, key string, a AgentSpec) error {
	c := k.Config
	p, ok := c.Providers[a.Provider]
	switch {
	case !ok:
		return k.Bad(key+".provider", "unknown provider %s (known: %s)", Quote(a.Provider), strings.Join(slices.Sorted(maps.Keys(c.Providers)), ", "))
	case a.Model == "" && p.Type != "demo":
		return k.Bad(key+".model", "missing for agent %s", Quote(a.Name))
	case a.Effort != "" && !slices.Contains(providers.EffortLevels, a.Effort):
		return k.Bad(key+".effort", "%s is not an effort level (one of %s)", Quote(a.Effort), strings.Join(providers.EffortLevels, ", "))
	case a.MaxTokens < 0:
		return k.Bad(key+".max_tokens", "must not be negative (0: the model's maximum, capped at 32000)")
	case a.Temperature != nil && !(*a.Temperature >= 0 && *a.Temperature <= 2): // NaN too
		return k.Bad(key+".temperature", "%v is outside 0..2", *a.Temperature)
	}
	return nil
}

// checkModes has each mode check its own section; a section of no mode
// is a typo.
func checkModes(k *ConfigCheck) error {
	for _, name := range slices.Sorted(maps.Keys(k.Config.Modes.Sections)) {
		if _, ok := k.Config.ModeList.Spec(name); !ok {
			return k.Bad("modes."+name, "unknown mode (one of %s)", strings.Join(k.Config.ModeList.Names(), ", "))
		}
	}
	for _, s := range k.Config.ModeList {
		if err := s.Check(k); err != nil {
			return err
		}
	}
	return nil
}

// Section is a mode's own section of modes, for a mode added outside this
// package (nil when the configuration has none).
func (k *ConfigCheck) Section(mode string) map[string]any { return k.Config.Modes.Sections[mode] }

func checkSettings(k *ConfigCheck) error {
	c := k.Config
	if c.Seating != "" && !slices.Contains(seatingValues, c.Seating) {
		return k.Bad("seating", "unknown value %q (one of %s)", c.Seating, strings.Join(seatingValues, ", "))
	}
	if c.CheckpointTimeout < 0 || c.CheckpointTimeout > 30*24*time.Hour {
		return k.Bad("checkpoint_timeout", "must be between 0 (no timeout) and 720h")
	}
	if o := c.CheckpointOnTimeout; o != "" && o != string(checkpoint.Continue) && o != string(checkpoint.Stop) {
		return k.Bad("checkpoint_on_timeout", "unknown value %q (continue or stop)", o)
	}
	if _, ok := c.ModeList.Spec(c.DefaultMode); c.DefaultMode != "" && !ok {
		return k.Bad("default_mode", "unknown mode %s (one of %s)", Quote(c.DefaultMode), strings.Join(c.ModeList.Names(), ", "))
	}
	return nil
}

func checkContext(k *ConfigCheck) error {
	c := k.Config
	if c.Context.BudgetTokens < 0 {
		return k.Bad("context.budget_tokens", "must not be negative")
	}
	for _, s := range c.ModeList {
		if b := s.Context(c); b.BudgetTokens < 0 || b.SummaryTokens < 0 {
			return k.Bad("context."+s.Info().Name, "budgets must not be negative")
		}
	}
	if c.Context.Summarizer != "" {
		return k.Agent("context.summarizer", c.Context.Summarizer)
	}
	return nil
}

// checkModels checks the catalogue. parley serve validates a
// configuration for every session it creates, the catalogue included: a
// key is only spelt out for the error that names it (they were a third of
// a check's allocations, and parsing the absent dates the rest).
func checkModels(k *ConfigCheck) error {
	for model, m := range k.Config.Models {
		key := func() string { return "models." + model }
		if err := providers.CheckID(model); err != nil { // `parley models` prints it
			return k.Bad("models", "%v", err)
		}
		if err := checkPrices(key, m.Input, m.CachedInput, m.CacheWrite, m.Output, k.Bad); err != nil {
			return err
		}
		if m.API != "" && !slices.Contains(providers.APIs, m.API) {
			return k.Bad(key()+".api", "unknown API %s (one of %s)", Quote(m.API), strings.Join(providers.APIs, ", "))
		}
		if err := checkSchedule(key, m, k.Bad); err != nil {
			return err
		}
		for _, d := range [...]struct{ key, val string }{{"deprecated", m.Deprecated}, {"shutdown", m.Shutdown}} {
			if d.val == "" {
				continue
			}
			if _, err := time.Parse(time.DateOnly, d.val); err != nil {
				return k.Bad(key()+"."+d.key, "%s is not a date (YYYY-MM-DD)", Quote(d.val))
			}
		}
	}
	for model, p := range k.Config.Pricing {
		if err := checkPrices(func() string { return "pricing." + model }, &p.Input, &p.CachedInput, nil, &p.Output, k.Bad); err != nil {
			return err
		}
	}
	return nil
}

func checkProviders(k *ConfigCheck) error {
	for name, p := range k.Config.Providers {
		if p.IdleTimeout < 0 || p.FirstByteTimeout < 0 || p.Timeout < 0 {
			return k.Bad("providers."+name, "timeouts must not be negative")
		}
		if p.API != "" && !slices.Contains(providers.APIs, p.API) {
			return k.Bad("providers."+name+".api", "unknown API %s (one of %s)", Quote(p.API), strings.Join(providers.APIs, ", "))
		}
	}
	return nil
}

func checkBudgets(k *ConfigCheck) error {
	c := k.Config
	if err := checkMoney(k, "budget_usd", c.BudgetUSD); err != nil {
		return err
	}
	for _, s := range c.ModeList {
		if err := checkMoney(k, "modes."+s.Info().Name+".budget_usd", s.Budget(c)); err != nil {
			return err
		}
	}
	return nil
}

// checkMoney checks a cap in USD (figures.Money): a negative one says 0
// is none.
func checkMoney(k *ConfigCheck, key string, usd float64) error {
	if usd < 0 {
		return k.Bad(key, "must not be negative (0: no cap)")
	}
	if _, err := figures.Money("", usd); err != nil {
		return k.Bad(key, "%v", err)
	}
	return nil
}

// checkPrices checks prices in USD per 1M tokens (figures.Price); nil
// ones are unset. The key names which of them is wrong.
// checkPrices checks a price list; key names it in an error.
func checkPrices(key func() string, input, cachedInput, cacheWrite, output *float64, bad func(key, format string, args ...any) error) error {
	for _, p := range [...]struct {
		name  string
		price *float64
	}{{"input", input}, {"cached_input", cachedInput}, {"cache_write", cacheWrite}, {"output", output}} {
		if p.price == nil {
			continue
		}
		if *p.price < 0 {
			return bad(key(), "prices must not be negative")
		}
		if _, err := figures.Price("", *p.price); err != nil {
			return bad(key()+"."+p.name, "%v", err)
		}
	}
	return nil
}

func checkBench(k *ConfigCheck) error {
	c := k.Config
	if c.Bench.MaxTokens < 0 {
		return k.Bad("bench.max_tokens", "must not be negative")
	}
	for name, l := range c.Bench.Limits {
		if _, ok := c.Providers[name]; !ok {
			return k.Bad("bench.limits."+name, "unknown provider %s (known: %s)", Quote(name), strings.Join(slices.Sorted(maps.Keys(c.Providers)), ", "))
		}
		if l.RequestsPerMinute < 0 || l.TokensPerMinute < 0 {
			return k.Bad("bench.limits."+name, "limits must not be negative")
		}
		if l.RequestsPerMinute > figures.MaxCount || l.TokensPerMinute > figures.MaxCount {
			return k.Bad("bench.limits."+name, "limits are at most %d", figures.MaxCount)
		}
	}
	return nil
}

func checkWebhooks(k *ConfigCheck) error {
	for i, w := range k.Config.Webhooks {
		key := fmt.Sprintf("webhooks[%d]", i)
		if !strings.HasPrefix(w.URL, "http://") && !strings.HasPrefix(w.URL, "https://") {
			return k.Bad(key+".url", "%s is not an http:// or https:// URL", Quote(w.URL))
		}
		if len(w.Events) == 0 {
			return k.Bad(key+".events", "lists no event (e.g. [magi_decided, exchange_finished, session_finished])")
		}
	}
	return nil
}

func checkServe(k *ConfigCheck) error {
	sv := k.Config.Serve
	if sv.ReadHeaderTimeout < 0 || sv.ReadTimeout < 0 || sv.IdleTimeout < 0 ||
		sv.MaxConnsPerAddr < 0 || sv.MaxStreams < 0 || sv.MaxStreamsPerUser < 0 {
		return k.Bad("serve", "timeouts and limits must not be negative (0 takes the default)")
	}
	for i, h := range sv.Hosts {
		if h == "" || strings.ContainsAny(h, "/?#@ ") {
			return k.Bad(fmt.Sprintf("serve.hosts[%d]", i), "%q is not a host name (e.g. parley.example.com or parley.example.com:8443)", h)
		}
	}
	for _, n := range []struct {
		key string
		v   int
	}{{"serve.rate_limit.per_minute", sv.RateLimit.PerMinute}, {"serve.rate_limit.burst", sv.RateLimit.Burst}} {
		if _, err := figures.Count("", int64(n.v), MaxRatePerMinute); err != nil {
			return k.Bad(n.key, "requests a minute (burst: at once), 0 (the default) or more: %v", err)
		}
	}
	for i, p := range sv.TrustedProxies {
		if _, err := netip.ParsePrefix(p); err != nil {
			if _, err := netip.ParseAddr(p); err != nil {
				return k.Bad(fmt.Sprintf("serve.trusted_proxies[%d]", i), "%s is neither a CIDR (10.0.0.0/8, fd00::/8) nor an IP address", Quote(p))
			}
		}
	}
	for _, w := range []struct {
		key string
		usd float64
	}{{"serve.max_cost_per_hour", sv.MaxCostPerHour}, {"serve.max_cost_per_day", sv.MaxCostPerDay},
		{"serve.server_max_cost_per_hour", sv.ServerMaxCostPerHour}, {"serve.server_max_cost_per_day", sv.ServerMaxCostPerDay}} {
		if _, err := figures.Money("", w.usd); err != nil {
			return k.Bad(w.key, "a spend limit in USD, 0 (none) or more: %v", err)
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
func checkSchedule(key func() string, m providers.ModelInfo, bad func(key, format string, args ...any) error) error {
	for i, p := range m.Prices {
		k := func() string { return fmt.Sprintf("%s.prices[%d]", key(), i) }
		if _, err := time.Parse(time.DateOnly, p.From); err != nil {
			return bad(k()+".from", "%s is not a date (YYYY-MM-DD)", Quote(p.From))
		}
		if err := checkPrices(k, p.Input, p.CachedInput, p.CacheWrite, p.Output, bad); err != nil {
			return err
		}
	}
	// The long-context multipliers scale a checked price: at most 100
	// (NaN fails every comparison, so it is refused too).
	if lc := m.LongContext; lc != nil && (lc.Above <= 0 || !(lc.Input >= 0 && lc.Input <= 100) || !(lc.Output >= 0 && lc.Output <= 100)) {
		return bad(key()+".long_context", "needs above (input tokens, > 0) and input/output multipliers (0 to 100)")
	}
	if m.Status != "" && !slices.Contains(providers.Statuses, m.Status) {
		return bad(key()+".status", "%s is not a status (one of %s)", Quote(m.Status), strings.Join(providers.Statuses, ", "))
	}
	for _, e := range m.Efforts {
		if !slices.Contains(providers.EffortLevels, e) {
			return bad(key()+".efforts", "%s is not an effort level (one of %s)", Quote(e), strings.Join(providers.EffortLevels, ", "))
		}
	}
	return nil
}

func HasDuplicate(names []string) bool {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return true
		}
		seen[n] = true
	}
	return false
}
