package config

import (
	"time"
)

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

// StoreConfig is the session database's part of the configuration.
type StoreConfig struct {
	// URL is the database: a SQLite file (a path, or sqlite:PATH) or a
	// Postgres URL (postgres://…); "" for the default file. The --db flag,
	// then PARLEY_DB, win over it.
	URL string `mapstructure:"url"`
}

// ServeConfig is parley serve's part of the configuration.
type ServeConfig struct {
	// Hosts are the host names (a port is optional) the server answers to
	// besides its bound address and the loopback names: the names a
	// reverse proxy or a LAN uses to reach it.
	Hosts []string `mapstructure:"hosts"`
	// OpenAI configures the OpenAI-compatible door (/v1/).
	OpenAI ServeOpenAIConfig `mapstructure:"openai"`
	// Tools are the tools a server's sessions' members use (the API, the
	// web page, /mcp, /v1/, parley mcp), as --tools is a run's: every
	// member gets this list. Empty (the default): none, since a server's
	// clients are not its owner (docs/tools.md). --tools on serve and mcp
	// sets it.
	Tools []string `mapstructure:"tools"`
	// AllowPrivateFetch lets a served session's fetch_url reach loopback,
	// private and link-local addresses; tools.fetch.allow_private does not
	// apply to a server, whose clients would reach its network.
	AllowPrivateFetch bool `mapstructure:"allow_private_fetch"`
	// Spend windows in USD (0: none): what each user's sessions may spend
	// in a calendar hour and day (UTC), through every door, and what all
	// the server's sessions may spend together (0: the per-user figure, so
	// user ids a client makes up cannot multiply it); docs/serve.md.
	MaxCostPerHour       float64 `mapstructure:"max_cost_per_hour"`
	MaxCostPerDay        float64 `mapstructure:"max_cost_per_day"`
	ServerMaxCostPerHour float64 `mapstructure:"server_max_cost_per_hour"`
	ServerMaxCostPerDay  float64 `mapstructure:"server_max_cost_per_day"`
	// Connection limits, against clients that hold the server (see
	// docs/serve.md); zero takes the default.
	ReadHeaderTimeout time.Duration `mapstructure:"read_header_timeout"`  // a request's headers (10s)
	ReadTimeout       time.Duration `mapstructure:"read_timeout"`         // a request's headers and body (30s)
	IdleTimeout       time.Duration `mapstructure:"idle_timeout"`         // a kept-alive connection between requests (60s)
	MaxConnsPerAddr   int           `mapstructure:"max_conns_per_addr"`   // open connections from one client address (64)
	MaxStreams        int           `mapstructure:"max_streams"`          // open event streams in all (512)
	MaxStreamsPerUser int           `mapstructure:"max_streams_per_user"` // open event streams per token or login (32)
	// RateLimit is the budget of requests that start work, kept per client
	// address, per token or login and per user_id (0: 60 a minute, burst 20).
	RateLimit ServeRateConfig `mapstructure:"rate_limit"`
	// TrustedProxies are the reverse proxies (CIDRs, or single addresses)
	// whose X-Forwarded-For names the client the limits count; from any
	// other peer the header is ignored.
	TrustedProxies []string `mapstructure:"trusted_proxies"`
}

// ServeRateConfig is serve.rate_limit: PerMinute requests that start work
// a minute, Burst of them at once (0: 60; burst 0: a third of PerMinute).
type ServeRateConfig struct {
	PerMinute int `mapstructure:"per_minute"`
	Burst     int `mapstructure:"burst"`
}

// Rate is the budget in force: the defaults filled in.
func (c ServeRateConfig) Rate() (perMinute, burst int) {
	perMinute, burst = c.PerMinute, c.Burst
	if perMinute <= 0 {
		perMinute = 60
	}
	if burst <= 0 {
		burst = max(1, perMinute/3)
	}
	return perMinute, burst
}

// ServerSpend is the server's spend windows per hour and per day: its own
// settings, else the per-user ones.
func (c ServeConfig) ServerSpend() (perHour, perDay float64) {
	perHour, perDay = c.ServerMaxCostPerHour, c.ServerMaxCostPerDay
	if perHour == 0 {
		perHour = c.MaxCostPerHour
	}
	if perDay == 0 {
		perDay = c.MaxCostPerDay
	}
	return perHour, perDay
}

// ServeOpenAIConfig configures parley serve's /v1/chat/completions.
type ServeOpenAIConfig struct {
	// SaveSessions keeps each chat completion as a session (default true).
	SaveSessions *bool `mapstructure:"save_sessions"`
}

// Saves reports whether chat completions are kept as sessions.
func (c ServeOpenAIConfig) Saves() bool { return c.SaveSessions == nil || *c.SaveSessions }
