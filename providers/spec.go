package providers

import (
	"strings"
	"time"
)

// Spec is one entry of the configuration's `providers` map.
type Spec struct {
	// Type selects the adapter: openai, openai-compatible, anthropic, gemini, demo.
	Type string `mapstructure:"type" yaml:"type"`
	// BaseURL overrides the endpoint; for openai/anthropic/gemini the vendor's
	// env var (OPENAI_BASE_URL, ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL) wins
	// over the default but not over an explicit base_url.
	BaseURL string `mapstructure:"base_url" yaml:"base_url"`
	// APIKeyEnv names the env var holding the key. Empty: the vendor's
	// convention (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY/GOOGLE_API_KEY).
	// openai-compatible servers that need no key (Ollama) leave it empty.
	APIKeyEnv string `mapstructure:"api_key_env" yaml:"api_key_env"`
	// Timeout bounds one whole request, streaming included (0: 5 minutes).
	// A request that runs out of it fails with KindTimeout and is not
	// retried: a retry would start the whole wait again.
	Timeout time.Duration `mapstructure:"timeout" yaml:"timeout"`
	// IdleTimeout ends a stream that sends no bytes for this long, keeping
	// its text (the turn is partial); 0: 2 minutes.
	IdleTimeout time.Duration `mapstructure:"idle_timeout" yaml:"idle_timeout"`
	// FirstByteTimeout is the same limit before the first byte; 0: the
	// idle timeout, or 5 minutes for a reasoning model, which may think
	// that long before it writes.
	FirstByteTimeout time.Duration `mapstructure:"first_byte_timeout" yaml:"first_byte_timeout"`
	// API selects OpenAI's API for type openai/openai-compatible: responses
	// (the default for OpenAI itself) or chat (Chat Completions, the
	// default for compatible servers). A model the catalogue marks as
	// served by one API only (Codex: responses) always uses that one.
	API string `mapstructure:"api" yaml:"api"`
	// MaxRetries for the shared retry policy (nil: 3).
	MaxRetries *int `mapstructure:"max_retries" yaml:"max_retries"`
}

// DefaultTimeout bounds one whole request when Spec.Timeout is zero.
const DefaultTimeout = 5 * time.Minute

// APIs lists the values Spec.API may take.
var APIs = []string{"responses", "chat"}

// Types lists the adapter types a Spec may name.
var Types = []string{"openai", "openai-compatible", "anthropic", "gemini", "demo"}

// KeyVars lists the env vars a spec reads its API key from, in order of
// preference; empty for demo and for openai-compatible servers that need
// no key.
func KeyVars(spec Spec) []string {
	if spec.APIKeyEnv != "" && spec.Type != "demo" {
		return []string{spec.APIKeyEnv}
	}
	switch spec.Type {
	case "openai":
		return []string{"OPENAI_API_KEY"}
	case "anthropic":
		return []string{"ANTHROPIC_API_KEY"}
	case "gemini":
		return []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}
	}
	return nil
}

// HasKey reports whether the spec can authenticate: one of its KeyVars is
// set, or it needs no key at all (demo, keyless openai-compatible servers).
func HasKey(spec Spec, getenv func(string) string) bool {
	vars := KeyVars(spec)
	if len(vars) == 0 {
		return true
	}
	return LookupKey(spec, getenv) != ""
}

// LookupKey returns the first non-empty value of the spec's KeyVars.
// A nil getenv is an empty environment: only the command factory reads
// the process's.
func LookupKey(spec Spec, getenv func(string) string) string {
	if getenv == nil {
		return ""
	}
	for _, v := range KeyVars(spec) {
		if key := strings.TrimSpace(getenv(v)); key != "" {
			return key
		}
	}
	return ""
}
