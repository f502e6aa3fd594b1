package config

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/parleyhq/parley/internal/lazyregexp"
)

// MagiPresets rotate the configured (provider, model) pairs under the MAGI
// personas by this many places.
var MagiPresets = map[string]int{"default": 0, "rotate": 1, "rotate2": 2}

// ApplyMagi rewrites the MAGI members' provider and model before the agents
// are built: first the preset's rotation (preset, else modes.magi.preset),
// then model for all three members when given. flag names where preset came
// from, for errors ("--preset").
func (c *Config) ApplyMagi(preset, flag, model string) error {
	key := flag
	if preset == "" {
		preset, key = c.Modes.Magi.Preset, "modes.magi.preset"
	}
	if preset == "" {
		preset = "default"
	}
	shift, ok := MagiPresets[preset]
	if !ok {
		return &ConfigError{File: c.Source, Key: key, Problem: fmt.Sprintf("unknown preset %q (one of default, rotate, rotate2)", preset)}
	}
	idx := c.magiIndexes()
	if idx == nil {
		return nil // Validate names the unknown member
	}
	type pair struct{ provider, model string }
	pairs := make([]pair, len(idx))
	for i, k := range idx {
		pairs[i] = pair{c.Agents[k].Provider, c.Agents[k].Model}
	}
	for i, k := range idx {
		p := pairs[(i+shift)%len(pairs)]
		c.Agents[k].Provider, c.Agents[k].Model = p.provider, p.model
	}
	if model == "" {
		return nil
	}
	provider, name, err := c.inferProvider(model)
	if err != nil {
		return err
	}
	for _, k := range idx {
		c.Agents[k].Provider, c.Agents[k].Model = provider, name
	}
	return nil
}

// magiIndexes finds the MAGI members in c.Agents; nil if one is missing.
func (c *Config) magiIndexes() []int {
	var idx []int
	for _, name := range c.Modes.Magi.Agents {
		k := slices.IndexFunc(c.Agents, func(a AgentSpec) bool { return a.Name == name })
		if k < 0 {
			return nil
		}
		idx = append(idx, k)
	}
	return idx
}

var openAIModel = lazyregexp.New(`^(gpt-|chatgpt-|codex|o[1-9]($|-))`)

// ModelError is a model name that cannot be resolved to a provider.
type ModelError struct{ Problem string }

func (e *ModelError) Error() string { return e.Problem }

// inferProvider maps a model name to a configured provider entry:
// provider/model names the entry; otherwise the model's family picks the
// vendor, and the entry of that vendor's type (the one named after it first).
func (c *Config) inferProvider(model string) (provider, name string, err error) {
	model = strings.TrimSpace(model)
	names := make([]string, 0, len(c.Providers))
	for n := range c.Providers {
		names = append(names, n)
	}
	sort.Strings(names)
	if i := strings.Index(model, "/"); i > 0 {
		if _, ok := c.Providers[model[:i]]; ok && model[i+1:] != "" {
			return model[:i], model[i+1:], nil
		}
		return "", "", &ModelError{fmt.Sprintf("--model %q: no provider %q is configured (configured: %s)", model, model[:i], strings.Join(names, ", "))}
	}
	lower := strings.ToLower(model)
	var typ string
	switch {
	case openAIModel.MatchString(lower):
		typ = "openai"
	case strings.HasPrefix(lower, "claude-"):
		typ = "anthropic"
	case strings.HasPrefix(lower, "gemini-"):
		typ = "gemini"
	default:
		return "", "", &ModelError{fmt.Sprintf("--model %q: cannot tell its provider; write provider/model (configured providers: %s)", model, strings.Join(names, ", "))}
	}
	if c.Providers[typ].Type == typ {
		return typ, model, nil
	}
	for _, n := range names {
		if c.Providers[n].Type == typ {
			return n, model, nil
		}
	}
	return "", "", &ModelError{fmt.Sprintf("--model %q needs a provider of type %s, and none is configured", model, typ)}
}
