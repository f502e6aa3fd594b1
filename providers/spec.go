package providers

import "time"

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
	// MaxRetries for the shared retry policy (nil: 3).
	MaxRetries *int `mapstructure:"max_retries" yaml:"max_retries"`
}

// Types lists the adapter types a Spec may name.
var Types = []string{"openai", "openai-compatible", "anthropic", "gemini", "demo"}
