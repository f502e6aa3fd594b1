// Package cli holds what every parley command shares beyond its flags: the
// exit codes and the errors that choose them, the question argument, and
// the agents bound to their providers.
package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
	"github.com/parleyhq/parley/providers/open"
)

// Exit codes (SPEC §3, README "Exit codes").
const (
	ExitOK      = 0
	ExitRuntime = 1
	ExitUsage   = 2
	// ExitNoDecision: a MAGI council ran but decided nothing (INCOMPLETE or
	// an INVALID vote).
	ExitNoDecision = 3
	// ExitCapReached: a cost cap stopped the run before a call that could
	// have passed it (or refused an unpriced model); what arrived is printed.
	ExitCapReached = 4
)

// UsageError marks errors that exit with code 2.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// Usage marks err as a usage error (nil stays nil).
func Usage(err error) error {
	if err == nil {
		return nil
	}
	var u UsageError
	if errors.As(err, &u) {
		return err
	}
	return UsageError{err}
}

// NoDecisionError is a council that ran but decided nothing: exit code 3,
// so scripts can tell "no decision" from "decided" and from a failure.
type NoDecisionError struct{ Reason string }

func (e NoDecisionError) Error() string { return "no decision: " + e.Reason }

// ExitCode maps an error to the process exit code.
func ExitCode(err error) int {
	var (
		u  UsageError
		ce *config.ConfigError
		ua *debate.UnknownAgentError
		nd NoDecisionError
		us *debate.UnseatedError
		nm *debate.NoMajorityError
		nk *debate.NoKeyError
		nq *debate.NoQuestionError
	)
	switch {
	case err == nil:
		return ExitOK
	case spend.IsCap(err):
		return ExitCapReached
	case debate.IsPending(err): // a question while the run waits for its host: answer it first
		return ExitUsage
	case errors.As(err, &u), errors.As(err, &ce), errors.As(err, &ua), errors.As(err, &us), errors.As(err, &nm), errors.As(err, &nk), errors.As(err, &nq):
		return ExitUsage
	case errors.As(err, &nd):
		return ExitNoDecision
	}
	return ExitRuntime
}

// ReadQuestion returns the argument, or stdin when it is "-".
func ReadQuestion(args []string, stdin io.Reader) (string, error) {
	q := strings.TrimSpace(strings.Join(args, " "))
	if q == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return "", err
		}
		q = strings.TrimSpace(string(b))
	}
	if q == "" {
		return "", Usage(fmt.Errorf("a question is required (use - to read it from stdin)"))
	}
	return q, nil
}

// QuestionOrResume is ReadQuestion, except that with none given and a
// session named (--session alone) it is "": the run goes on from the
// checkpoint the session waits at (a session that waits at none refuses
// the empty question there).
func QuestionOrResume(args []string, stdin io.Reader, session string) (string, error) {
	q, err := ReadQuestion(args, stdin)
	if err != nil && len(args) == 0 && session != "" {
		return "", nil
	}
	return q, err
}

// AnyKey reports whether any configured provider that needs a key has one
// in the environment getenv reads.
func AnyKey(cfg *config.Config, getenv func(string) string) bool {
	for _, spec := range cfg.Providers {
		if spec.Type == "demo" || (spec.Type == "openai-compatible" && spec.APIKeyEnv == "") {
			continue
		}
		if providers.HasKey(spec, getenv) {
			return true
		}
	}
	return false
}

// KeyHelp says which env vars to set, for the no-key banner and errors.
const KeyHelp = "no API key is set: export OPENAI_API_KEY, ANTHROPIC_API_KEY and/or GEMINI_API_KEY (or put them in .env), or run with --demo for offline demo agents"

// BuildAgents binds every configured agent to its provider; offline, every
// agent gets its own demo provider, streaming a word every demoPace; getenv
// reads the keys and endpoint overrides.
func BuildAgents(cfg *config.Config, offline bool, demoPace time.Duration, getenv func(string) string) ([]*debate.Agent, error) {
	opened := map[string]providers.Provider{}
	var agents []*debate.Agent
	for _, spec := range cfg.Agents {
		var p providers.Provider
		if offline {
			p = demo.NewWithPace("demo", demoPace)
		} else {
			p = opened[spec.Provider]
			if p == nil {
				var err error
				p, err = open.Open(spec.Provider, cfg.Providers[spec.Provider], getenv)
				if err != nil {
					return nil, &config.ConfigError{File: cfg.Source, Key: "providers." + spec.Provider, Problem: err.Error()}
				}
				opened[spec.Provider] = p
			}
		}
		agents = append(agents, &debate.Agent{AgentSpec: spec, Provider: p})
	}
	return agents, nil
}

// CouncilSeats applies a council's members and chairman, when given,
// before the agents are built; membersKey and chairmanKey name them in
// errors (the flags, or a tool's arguments).
func CouncilSeats(members []string, chairman, membersKey, chairmanKey string) func(*config.Config) error {
	return func(cfg *config.Config) error {
		known := strings.Join(cfg.AgentNames(), ", ")
		if members != nil {
			var names []string
			for _, m := range members {
				if m = strings.TrimSpace(m); m != "" {
					names = append(names, m)
				}
			}
			if len(names) < 2 {
				return fmt.Errorf("%s needs at least two agents, got %d", membersKey, len(names))
			}
			for _, n := range names {
				if _, ok := cfg.Agent(n); !ok {
					return fmt.Errorf("%s: unknown agent %q (known: %s)", membersKey, n, known)
				}
			}
			cfg.Modes.Council.Members = names
		}
		if chairman != "" {
			if _, ok := cfg.Agent(chairman); !ok {
				return fmt.Errorf("%s: unknown agent %q (known: %s)", chairmanKey, chairman, known)
			}
			cfg.Modes.Council.Chairman = chairman
		}
		return nil
	}
}
