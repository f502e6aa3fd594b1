package config

import (
	"time"
)

// ModesConfig says which agents each mode uses.
type ModesConfig struct {
	Mention   MentionConfig   `mapstructure:"mention"`
	Alternate AlternateConfig `mapstructure:"alternate"`
	Talk      TalkConfig      `mapstructure:"talk"`
	Magi      MagiConfig      `mapstructure:"magi"`
	Agent     AgentModeConfig `mapstructure:"agent"`
	Council   CouncilConfig   `mapstructure:"council"`
	// Sections are the sections of modes that have no field here (a mode
	// added outside this package); its descriptor's Check reads and
	// validates its own, and a section no mode claims is an error.
	Sections map[string]map[string]any `mapstructure:",remain"`
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
	// Checkpoint is where a run of several steps waits for its host
	// (never, each_round: after the start and each step another follows;
	// on_split never pauses it); --checkpoint overrides it for a run.
	Checkpoint string `mapstructure:"checkpoint"`
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
	// Checkpoint is where a talk waits for its host (never, each_round,
	// on_split: a talk never splits), after each MC summary but the last.
	Checkpoint string `mapstructure:"checkpoint"`
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
	// Evidence is optional or required (evidencecheck.go): required counts a
	// vote without a valid citation as unsupported.
	Evidence string `mapstructure:"evidence"`
	// Checkpoint is where a council waits for its host (never, each_round,
	// on_split); --checkpoint overrides it for a run.
	Checkpoint string `mapstructure:"checkpoint"`
}

// CouncilConfig: the council's members (two or more; empty: the first agent
// of each of the openai, gemini and anthropic providers) and its chairman
// (empty: the strongest configured model, see DefaultChairman).
type CouncilConfig struct {
	Members  []string `mapstructure:"members"`
	Chairman string   `mapstructure:"chairman"`
	// Evidence is optional or required (evidencecheck.go): required counts
	// an answer without a valid citation as unsupported.
	Evidence string `mapstructure:"evidence"`
	// BudgetUSD caps each exchange of the mode (one ask, one council, one
	// talk), USD; 0: none.
	BudgetUSD float64 `mapstructure:"budget_usd"`
	// Checkpoint is where a council waits for its host, after the answers
	// and after the rankings (never, each_round, on_split); --checkpoint
	// overrides it for a run.
	Checkpoint string `mapstructure:"checkpoint"`
}

// AgentModeConfig: the code-reading agent.
type AgentModeConfig struct {
	Agent    string `mapstructure:"agent"`
	MaxSteps int    `mapstructure:"max_steps"`
	// AllowHardLinks lets read_file read files with more than one hard
	// link; off, they are refused (a link hides which file it is).
	AllowHardLinks bool `mapstructure:"allow_hard_links"`
	// BudgetUSD caps each exchange of the mode (one ask, one council, one
	// talk), USD; 0: none.
	BudgetUSD float64 `mapstructure:"budget_usd"`
}
