package serve

import (
	"bytes"
	"errors"
	"net/http"
	"strings"

	"github.com/parleyhq/parley/cmd/parley/internal/headless"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/dialogue"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/verdict"
)

type seedStartRequest struct {
	UserID      string `json:"user_id"`
	Instruction string `json:"instruction"`
}

type seedStepRequest struct {
	UserID      string `json:"user_id"`
	Instruction string `json:"instruction"`
}

// seedStart is seed 001's start_debate: a new alternate session becomes the
// user's active debate; the first agent answers, then the second.
func (s *Server) seedStart(w http.ResponseWriter, r *http.Request) error {
	var req seedStartRequest
	if err := decode(w, r, s.opts.MaxBody, &req); err != nil {
		return err
	}
	if err := seedUser(req.UserID); err != nil {
		return err
	}
	if strings.TrimSpace(req.Instruction) == "" {
		return errorf(http.StatusBadRequest, "bad_field", "instruction: the start turn needs an instruction")
	}
	if err := s.limit(w, r, req.UserID); err != nil {
		return err
	}
	ss, err := s.sessions.create(r.Context(), sessionSpec{mode: debate.ModeAlternate, user: req.UserID, seed: true})
	if err != nil {
		return err
	}
	return s.seedTurn(w, r, ss, req.Instruction)
}

// seedStep is seed 001's step: the user's active debate takes one step.
func (s *Server) seedStep(w http.ResponseWriter, r *http.Request) error {
	var req seedStepRequest
	if err := decode(w, r, s.opts.MaxBody, &req); err != nil {
		return err
	}
	if err := seedUser(req.UserID); err != nil {
		return err
	}
	if err := s.limit(w, r, req.UserID); err != nil {
		return err
	}
	id, err := s.opts.Store.ActiveSeed(r.Context(), req.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return errorf(http.StatusConflict, "no_debate", "user %q has no active debate: POST /api/v1/debate/start first", req.UserID)
	}
	if err != nil {
		return err
	}
	ss, err := s.sessions.get(r.Context(), id, req.UserID)
	if err != nil {
		return err
	}
	if ss.eng.Current().Name() != debate.ModeAlternate {
		if err := ss.eng.SetMode(debate.ModeAlternate); err != nil {
			return err
		}
	}
	return s.seedTurn(w, r, ss, req.Instruction)
}

func seedUser(user string) error {
	if user == "" {
		return errorf(http.StatusBadRequest, "bad_field", "user_id: required (each user has their own debate)")
	}
	return checkUser(user)
}

// seedTurn runs one start or step and answers with exactly the seed's
// {"status":"ok","turn":{...}} (status "error" with an "error" field when
// an agent failed, as parley alternate --json prints it).
func (s *Server) seedTurn(w http.ResponseWriter, r *http.Request, ss *session, instruction string) error {
	var got headless.Last[dialogue.AlternateStepFinished]
	unsubscribe := ss.eng.Subscribe(got.Sink)
	defer unsubscribe()
	ctx, cancel := s.requestCtx(r)
	defer cancel()
	runErr := s.sessions.run(ctx, ss, instruction)
	var ae *apiError
	if errors.As(runErr, &ae) {
		return runErr
	}
	step, ok := got.Get()
	if !ok {
		if runErr == nil {
			runErr = errors.New("the step produced no turn")
		}
		return errorf(http.StatusBadGateway, "no_turn", "%s", runErr.Error())
	}
	line, err := step.Turn.JSONLine()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Parley-Session", ss.id)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(line, '\n'))
	return nil
}

type magiRequest struct {
	Question    string `json:"question"`
	Preset      string `json:"preset"`
	Model       string `json:"model"`
	SingleRound bool   `json:"single_round"`
	UserID      string `json:"user_id"`
}

// magi runs a council in a new session and answers with parley magi --json's document.
func (s *Server) magi(w http.ResponseWriter, r *http.Request) error {
	var req magiRequest
	if err := decode(w, r, s.opts.MaxBody, &req); err != nil {
		return err
	}
	var err error
	if req.UserID, err = bodyUser(r, req.UserID); err != nil {
		return err
	}
	if strings.TrimSpace(req.Question) == "" {
		return errorf(http.StatusBadRequest, "bad_field", "question: required")
	}
	if _, ok := config.MagiPresets[req.Preset]; req.Preset != "" && !ok {
		return errorf(http.StatusBadRequest, "bad_field", "preset: unknown preset %q (one of default, rotate, rotate2)", req.Preset)
	}
	if err := s.limit(w, r, req.UserID); err != nil {
		return err
	}
	ss, err := s.sessions.create(r.Context(), sessionSpec{mode: debate.ModeMagi, user: req.UserID, title: req.Question, magiPreset: req.Preset, magiModel: req.Model})
	if err != nil {
		return err
	}
	rounds := verdict.MagiRounds
	if req.SingleRound {
		rounds = 1
	}
	if err := ss.eng.Control(r.Context(), debate.Control{Kind: config.ControlRounds, N: rounds}); err != nil {
		return err
	}
	var got headless.Last[verdict.MagiDecided]
	unsubscribe := ss.eng.Subscribe(got.Sink)
	defer unsubscribe()
	ctx, cancel := s.requestCtx(r)
	defer cancel()
	runErr := s.sessions.run(ctx, ss, req.Question)
	decided, ok := got.Get()
	if !ok {
		var refused *apiError
		if errors.As(runErr, &refused) {
			return refused // refused before the council met (a spend window: 429), as on every route
		}
		msg := "the council reached no decision"
		if runErr != nil {
			msg += ": " + runErr.Error()
		}
		return errorf(http.StatusBadGateway, "no_decision", "%s", msg)
	}
	if s.hooks != nil {
		s.hooks.sessionFinished(ss.eng.Info(), "magi_decided")
	}
	var body bytes.Buffer
	if err := headless.WriteMagiJSON(&body, ss.id, decided.MagiResult); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Parley-Session", ss.id)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body.Bytes())
	return nil
}
