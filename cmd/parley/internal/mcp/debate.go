package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleyhq/parley/cmd/parley/internal/headless"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/dialogue"
	"github.com/parleyhq/parley/debate/store"
)

// stateDebate marks a session that debate_start began, so debate_step
// continues only those (never a console's or serve's live session).
const stateDebate = "mcp.debate"

// DebateStartInput is the debate_start tool's arguments.
type DebateStartInput struct {
	Instruction string   `json:"instruction" jsonschema:"what the two agents debate"`
	MaxCost     *float64 `json:"max_cost,omitempty" jsonschema:"cost cap in USD for this call (default: the server's)"`
}

// DebateStepInput is the debate_step tool's arguments.
type DebateStepInput struct {
	Instruction string   `json:"instruction,omitempty" jsonschema:"an optional instruction for this step"`
	SessionID   string   `json:"session_id,omitempty" jsonschema:"a debate debate_start began (default: this client's active debate)"`
	MaxCost     *float64 `json:"max_cost,omitempty" jsonschema:"cost cap in USD for this call (default: the server's)"`
}

// DebateTurn is the HTTP API's start/step answer ({"status","turn"}) with
// the session and the step's tokens.
type DebateTurn struct {
	SessionID string         `json:"session_id"`
	Status    string         `json:"status" jsonschema:"ok, or error when an agent failed"`
	Error     string         `json:"error,omitempty"`
	Turn      map[string]any `json:"turn" jsonschema:"user_instruction, <agent>_output for each of the two agents (null for the one that did not answer), responder, next_responder"`
	Step      int            `json:"step" jsonschema:"0 for the start turn"`
	Tokens    int            `json:"tokens" jsonschema:"tokens this turn used"`
	Both      int            `json:"both_tokens" jsonschema:"tokens had both agents answered"`
	Cancelled bool           `json:"cancelled"`
	Sentence  string         `json:"sentence" jsonschema:"the step's outcome in one sentence, as every door prints it"`
}

func (s *Server) debateStart(ctx context.Context, req *mcp.CallToolRequest, in DebateStartInput) (*mcp.CallToolResult, DebateTurn, error) {
	if strings.TrimSpace(in.Instruction) == "" {
		return nil, DebateTurn{}, errors.New("instruction: the start turn needs an instruction")
	}
	r, err := s.newRun(debate.ModeAlternate, magiChoice{}, in.MaxCost)
	if err != nil {
		return nil, DebateTurn{}, err
	}
	id := r.eng.Info().ID
	_ = s.claim(id)                             // a new id: nobody else holds it
	defer func() { r.close(); s.release(id) }() // saved before a step may load it
	r.eng.SetState(stateDebate, "1")
	s.setDebate(req, id)
	return s.debateTurn(ctx, req, r, in.Instruction)
}

func (s *Server) debateStep(ctx context.Context, req *mcp.CallToolRequest, in DebateStepInput) (*mcp.CallToolResult, DebateTurn, error) {
	id := in.SessionID
	if id == "" {
		if id = s.debateOf(req); id == "" {
			return nil, DebateTurn{}, errors.New("no active debate: call debate_start first (or give session_id)")
		}
	}
	full, err := s.opts.Store.Resolve(ctx, id)
	if err != nil {
		return nil, DebateTurn{}, sessionErr(id, err)
	}
	if err := s.claim(full); err != nil {
		return nil, DebateTurn{}, err
	}
	defer s.release(full)
	r, err := s.loadRun(ctx, full, debate.ModeAlternate, in.MaxCost)
	if err != nil {
		return nil, DebateTurn{}, err
	}
	defer r.close()
	if r.eng.State(stateDebate) == "" {
		return nil, DebateTurn{}, fmt.Errorf("session %s was not started by debate_start", full)
	}
	s.setDebate(req, full)
	return s.debateTurn(ctx, req, r, in.Instruction)
}

// debateTurn runs one start or step and answers with its turn object.
func (s *Server) debateTurn(ctx context.Context, req *mcp.CallToolRequest, r *run, instruction string) (*mcp.CallToolResult, DebateTurn, error) {
	got, res, err := runFor[dialogue.AlternateStepFinished](ctx, req, r, headless.Alternate, "", instruction)
	if err != nil {
		return nil, DebateTurn{}, err
	}
	line, err := got.Turn.JSONLine()
	if err != nil {
		return nil, DebateTurn{}, err
	}
	out := DebateTurn{SessionID: r.eng.Info().ID, Step: got.Step, Tokens: got.Tokens, Both: got.BothTokens, Cancelled: ctx.Err() != nil, Sentence: got.Sentence}
	if err := json.Unmarshal(line, &out); err != nil {
		return nil, DebateTurn{}, err
	}
	return res, out, nil
}

// setDebate makes id the calling client's active debate.
func (s *Server) setDebate(req *mcp.CallToolRequest, id string) {
	if req == nil || req.Session == nil {
		return
	}
	s.mu.Lock()
	_, known := s.debates[req.Session]
	s.debates[req.Session] = id
	s.mu.Unlock()
	if !known { // forget it when the client goes
		go func(ss *mcp.ServerSession) {
			_ = ss.Wait()
			s.mu.Lock()
			delete(s.debates, ss)
			s.mu.Unlock()
		}(req.Session)
	}
}

func (s *Server) debateOf(req *mcp.CallToolRequest) string {
	if req == nil || req.Session == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.debates[req.Session]
}

// sessionErr says how to find the right session when id names none or several.
func sessionErr(id string, err error) error {
	var amb *store.AmbiguousError
	if errors.Is(err, store.ErrNotFound) || errors.As(err, &amb) {
		if len(id) > 64 {
			id = id[:64] + "…"
		}
		return fmt.Errorf("session %q: %w (see sessions_list)", id, err)
	}
	return err
}
