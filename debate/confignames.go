package debate

import "github.com/parleyhq/parley/debate/config"

// The configuration's old names, aliases (not copies) of debate/config's,
// kept for one round so branches written against debate.Config still build
// after their rebase; nothing in the tree uses them. Write config.Config;
// these go once the round's branches have landed.
type (
	AgentModeConfig   = config.AgentModeConfig
	AgentSpec         = config.AgentSpec
	AlternateConfig   = config.AlternateConfig
	BenchConfig       = config.BenchConfig
	Budget            = config.Budget
	CatalogConfig     = config.CatalogConfig
	Config            = config.Config
	ConfigCheck       = config.ConfigCheck
	ConfigError       = config.ConfigError
	ContextBudget     = config.ContextBudget
	ContextConfig     = config.ContextConfig
	ControlKind       = config.ControlKind
	CouncilConfig     = config.CouncilConfig
	Example           = config.Example
	FetchConfig       = config.FetchConfig
	KeyList           = config.KeyList
	Layout            = config.Layout
	MCPServerSpec     = config.MCPServerSpec
	MagiConfig        = config.MagiConfig
	MentionConfig     = config.MentionConfig
	ModeInfo          = config.ModeInfo
	ModeList          = config.ModeList
	ModelError        = config.ModelError
	ModesConfig       = config.ModesConfig
	Price             = config.Price
	RateLimit         = config.RateLimit
	Seat              = config.Seat
	SeatRange         = config.SeatRange
	Seating           = config.Seating
	ServeConfig       = config.ServeConfig
	ServeOpenAIConfig = config.ServeOpenAIConfig
	ServeRateConfig   = config.ServeRateConfig
	StoreConfig       = config.StoreConfig
	TalkConfig        = config.TalkConfig
	ThemeSpec         = config.ThemeSpec
	ToolList          = config.ToolList
	ToolsConfig       = config.ToolsConfig
	WebhookSpec       = config.WebhookSpec
)

const (
	BoardRanking     = config.BoardRanking
	BoardVotes       = config.BoardVotes
	ControlContinue  = config.ControlContinue
	ControlPause     = config.ControlPause
	ControlRounds    = config.ControlRounds
	ControlSteps     = config.ControlSteps
	ControlStop      = config.ControlStop
	MaxBudgetTokens  = config.MaxBudgetTokens
	MaxOutputTokens  = config.MaxOutputTokens
	MaxRatePerMinute = config.MaxRatePerMinute
	MaxRounds        = config.MaxRounds
	MaxSteps         = config.MaxSteps
	MaxTitleRunes    = config.MaxTitleRunes
	SeatingStrict    = config.SeatingStrict
)

// MagiPresets is config.MagiPresets.
var MagiPresets = config.MagiPresets

// Quote is config.Quote.
func Quote(s string) string { return config.Quote(s) }

// HasDuplicate is config.HasDuplicate.
func HasDuplicate(names []string) bool { return config.HasDuplicate(names) }
