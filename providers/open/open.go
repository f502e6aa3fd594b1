// Package open builds a provider from a configuration entry. It is the one
// package that imports every SDK adapter, so the engine (debate) and the
// console (tui) compile without any SDK; only commands import it.
package open

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/anthropic"
	"github.com/parleyhq/parley/providers/demo"
	"github.com/parleyhq/parley/providers/gemini"
	"github.com/parleyhq/parley/providers/internal/adapt"
	"github.com/parleyhq/parley/providers/openai"
)

// Open builds the provider a configuration entry describes, wrapped in the
// shared retry policy (the demo provider is not wrapped). getenv reads keys
// and endpoint overrides; nil means an empty environment (only the command
// factory reads the process's).
//
// Only an invalid spec is an error (unknown type, unparsable base URL). A
// missing key is not: the provider is returned and every Stream fails with
// a KindMissingKey *providers.Error naming the env var to set, so the other
// agents keep working.
func Open(name string, spec providers.Spec, getenv func(string) string) (providers.Provider, error) {
	return WithPolicy(name, spec, getenv, providers.RetryPolicy{})
}

// WithPolicy is Open with a chosen retry policy, e.g. one whose Sleep
// records waits in tests. spec.MaxRetries applies when pol.Max is 0.
func WithPolicy(name string, spec providers.Spec, getenv func(string) string, pol providers.RetryPolicy) (providers.Provider, error) {
	p, err := Unwrapped(name, spec, getenv)
	if err != nil || spec.Type == "demo" || adapt.IsMissingKey(p) {
		return p, err // nothing to retry: demo and missing keys never send
	}
	p = providers.WithStallTimeout(p, providers.StallLimits{Idle: spec.IdleTimeout, FirstByte: spec.FirstByteTimeout, Setting: "providers." + name})
	if pol.Max == 0 && spec.MaxRetries != nil {
		pol.Max = *spec.MaxRetries
		if pol.Max <= 0 {
			pol.Max = -1 // configured 0: no retries (Max 0 means the default)
		}
	}
	return providers.WithRetry(p, pol), nil
}

// Unwrapped builds the adapter alone, without the retry policy (parley
// doctor asks it for its model list); the errors of every adapter that
// can send are scrubbed of keys (see scrubbing).
func Unwrapped(name string, spec providers.Spec, getenv func(string) string) (providers.Provider, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var (
		p   providers.Provider
		err error
	)
	switch spec.Type {
	case "demo":
		return demo.New(name), nil
	case "openai", "openai-compatible":
		p, err = openai.New(name, spec, getenv)
	case "anthropic":
		p, err = anthropic.New(name, spec, getenv)
	case "gemini":
		p, err = gemini.New(name, spec, getenv)
	case "":
		return nil, fmt.Errorf("provider %q: type is missing (one of %s)", name, strings.Join(providers.Types, ", "))
	default:
		return nil, fmt.Errorf("provider %q: unknown type %q (one of %s)", name, spec.Type, strings.Join(providers.Types, ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("provider %q: %w", name, err)
	}
	if adapt.IsMissingKey(p) {
		return p, nil // never sends; its message is Parley's own
	}
	return &scrubbing{inner: p, s: ScrubberFor(spec, getenv)}, nil
}

// ModelLister is implemented by adapters that can list their endpoint's models.
type ModelLister interface {
	Models(ctx context.Context) ([]string, error)
}

// ErrNoModelList is returned by Models for a provider that cannot list models.
var ErrNoModelList = errors.New("this provider cannot list its models")

// Models lists the models p's endpoint serves.
func Models(ctx context.Context, p providers.Provider) ([]string, error) {
	if l, ok := p.(ModelLister); ok {
		return l.Models(ctx)
	}
	return nil, ErrNoModelList
}
