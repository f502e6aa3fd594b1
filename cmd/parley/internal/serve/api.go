package serve

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/transcript"
)

// route is one API endpoint; the mux and the OpenAPI document both read
// this table.
type route struct {
	method, path, summary string
	handle                func(http.ResponseWriter, *http.Request) error
	request               string   // name of the request body's schema ("" none)
	response              string   // name of the success body's schema
	status                int      // success status
	errors                []int    // error statuses it may answer
	query                 []string // query parameters
	sse                   bool
}

func (s *Server) apiRoutes() []route {
	common := []int{400, 401, 404, 413, 429}
	return []route{
		{method: "POST", path: "/api/v1/debate/start", summary: "Seed 001: start a user's alternating debate (the first agent answers, then the second)",
			handle: s.seedStart, request: "SeedStart", response: "SeedTurn", status: 200, errors: []int{400, 401, 409, 413, 429}},
		{method: "POST", path: "/api/v1/debate/step", summary: "Seed 001: one step of the user's active debate (the next responder answers)",
			handle: s.seedStep, request: "SeedStep", response: "SeedTurn", status: 200, errors: []int{400, 401, 409, 413, 429}},
		{method: "POST", path: "/api/v1/magi", summary: "Put a question to the MAGI council; the same JSON as parley magi --json",
			handle: s.magi, request: "MagiRequest", response: "MagiResult", status: 200, errors: []int{400, 401, 413, 429}},
		{method: "POST", path: "/api/v1/sessions", summary: "Create a session",
			handle: s.createSession, request: "SessionCreate", response: "SessionCreated", status: 201, errors: []int{400, 401, 413, 429}},
		{method: "GET", path: "/api/v1/sessions", summary: "List a user's sessions, newest activity first",
			handle: s.listSessions, response: "SessionList", status: 200, errors: []int{400, 401}, query: []string{"user_id", "limit", "cursor"}},
		{method: "GET", path: "/api/v1/sessions/{id}", summary: "A session with its entries (paged by turn), panels and state",
			handle: s.getSession, response: "SessionDetail", status: 200, errors: []int{400, 401, 404}, query: []string{"user_id", "after", "limit"}},
		{method: "DELETE", path: "/api/v1/sessions/{id}", summary: "Delete a session",
			handle: s.deleteSession, response: "Deleted", status: 200, errors: []int{401, 404}, query: []string{"user_id"}},
		{method: "POST", path: "/api/v1/sessions/{id}/fork", summary: "Copy a session up to and including turn `at` (0 or none: all of it) into a new session of the same user",
			handle: s.forkSession, request: "Fork", response: "SessionCreated", status: 201, errors: append(common, 409), query: []string{"user_id"}},
		{method: "POST", path: "/api/v1/sessions/{id}/messages", summary: "Post a line as typed in the console (mentions, notes, a step, a topic, a question); runs in the background once the mode took it (400 refused: the mode's reason, nothing was added)",
			handle: s.postMessage, request: "Message", response: "Accepted", status: 202, errors: append(common, 409), query: []string{"user_id"}},
		{method: "POST", path: "/api/v1/sessions/{id}/control", summary: "pause, continue, stop, rounds N or steps N",
			handle: s.control, request: "Control", response: "OK", status: 200, errors: append(common, 409), query: []string{"user_id"}},
		{method: "POST", path: "/api/v1/sessions/{id}/checkpoint", summary: "Answer the checkpoint the session's run waits at (status awaiting_host): continue, note, drop, stop; approve or deny a tool call",
			handle: s.answerCheckpoint, request: "CheckpointAnswer", response: "OK", status: 200, errors: append(common, 409), query: []string{"user_id"}},
		{method: "POST", path: "/api/v1/sessions/{id}/mode", summary: "Switch the session's mode (the history stays)",
			handle: s.setMode, request: "ModeChange", response: "SessionCreated", status: 200, errors: append(common, 409), query: []string{"user_id"}},
		{method: "GET", path: "/api/v1/sessions/{id}/events", summary: "Server-Sent Events of the session's event stream; Last-Event-ID (or ?after=) resumes",
			handle: s.events, response: "Event", status: 200, errors: []int{400, 401, 404}, query: []string{"user_id", "after"}, sse: true},
		{method: "POST", path: "/api/v1/agents", summary: "Create or replace a custom agent",
			handle: s.createAgent, request: "CustomAgent", response: "AgentCreated", status: 201, errors: []int{400, 401, 409, 413, 429}},
		{method: "GET", path: "/api/v1/agents", summary: "The configured and the custom agents",
			handle: s.listAgents, response: "AgentList", status: 200, errors: []int{401}},
		{method: "DELETE", path: "/api/v1/agents/{name}", summary: "Delete a custom agent",
			handle: s.deleteAgent, response: "Deleted", status: 200, errors: []int{401, 404}},
		{method: "GET", path: "/api/v1/modes", summary: "The modes: name, title, input, panel roles, controls",
			handle: s.listModes, response: "ModeList", status: 200, errors: []int{401}},
		{method: "GET", path: "/api/v1/openapi.json", summary: "This document",
			handle: s.openapi, response: "OpenAPI", status: 200, errors: []int{401}},
	}
}

// userOf is the user a request acts for: ?user_id= or X-Parley-User.
func userOf(r *http.Request) string {
	if u := r.URL.Query().Get("user_id"); u != "" {
		return u
	}
	return r.Header.Get("X-Parley-User")
}

// bodyUser is the user a request with a user_id in its body acts for: that
// one, else ?user_id= or X-Parley-User; checked either way.
func bodyUser(r *http.Request, fromBody string) (string, error) {
	if fromBody == "" {
		fromBody = userOf(r)
	}
	return fromBody, checkUser(fromBody)
}

func checkUser(user string) error {
	if len(user) > 128 || strings.ContainsAny(user, "\x00\n\r") {
		return errorf(http.StatusBadRequest, "bad_field", "user_id: at most 128 characters, no line breaks")
	}
	return nil
}

type createRequest struct {
	Mode   string   `json:"mode"`
	Title  string   `json:"title"`
	UserID string   `json:"user_id"`
	Agents []string `json:"agents"`
	// MaxCost caps the session's spend in USD (absent: the server's
	// ceiling; never above it).
	MaxCost *float64 `json:"max_cost"`
	// Checkpoint is where the session's runs wait for their host (never,
	// each_round, on_split; absent: never).
	Checkpoint string `json:"checkpoint"`
}

func (s *Server) createSession(w http.ResponseWriter, r *http.Request) error {
	var req createRequest
	if err := decode(w, r, s.opts.MaxBody, &req); err != nil {
		return err
	}
	var err error
	if req.UserID, err = bodyUser(r, req.UserID); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(req.Title); n > config.MaxTitleRunes {
		return errorf(http.StatusBadRequest, "bad_field", "title: at most %d characters (this one has %d)", config.MaxTitleRunes, n)
	}
	if _, err := checkpointPolicy(req.Checkpoint); err != nil {
		return err
	}
	if err := s.limit(w, r, req.UserID); err != nil {
		return err
	}
	ss, err := s.sessions.create(r.Context(), sessionSpec{mode: req.Mode, title: req.Title, user: req.UserID, agents: req.Agents, maxCost: req.MaxCost,
		checkpoint: req.Checkpoint})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]any{"session": ss.eng.Info()})
	return nil
}

// listed is a session in the list: the store's summary and its owner.
type listed struct {
	store.Summary
	UserID string `json:"user_id,omitempty"`
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) error {
	user := userOf(r)
	limit, err := queryInt(r, "limit", 50, 500)
	if err != nil {
		return err
	}
	if limit == 0 {
		limit = 50
	}
	offset := 0
	if c := r.URL.Query().Get("cursor"); c != "" {
		b, err := base64.RawURLEncoding.DecodeString(c)
		n, err2 := strconv.Atoi(string(b))
		if err != nil || err2 != nil || n < 0 {
			return errorf(http.StatusBadRequest, "bad_query", "cursor: %q is not a cursor this server gave", c)
		}
		offset = n
	}
	all, err := s.opts.Store.List(r.Context())
	if err != nil {
		return err
	}
	owners, err := s.opts.Store.Owners(r.Context())
	if err != nil {
		return err
	}
	mine := []listed{}
	for _, sum := range all {
		if owners[sum.ID] == user {
			mine = append(mine, listed{Summary: sum, UserID: user})
		}
	}
	next := ""
	page := mine[min(offset, len(mine)):]
	if len(page) > limit {
		page = page[:limit]
		next = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(offset + limit)))
	}
	writeJSON(w, http.StatusOK, map[string]any{"sessions": page, "next_cursor": next})
	return nil
}

// panel is one panel of the session page: an agent of the current mode.
type panel struct {
	Name     string `json:"name"`
	Display  string `json:"display"`
	Model    string `json:"model"`
	Provider string `json:"provider"`
	Role     string `json:"role"`
	Color    string `json:"color,omitempty"`
}

func panelsOf(eng *debate.Engine) []panel {
	mode := eng.Current()
	info, _ := eng.Modes().Info(mode.Name())
	out := []panel{}
	for i, a := range mode.Agents() {
		p := panel{Name: a.Name, Display: a.Label(), Model: a.Model, Provider: a.AgentSpec.Provider, Color: a.Color}
		if i < len(info.Roles) {
			p.Role = info.Roles[i]
		}
		out = append(out, p)
	}
	return out
}

func (s *Server) getSession(w http.ResponseWriter, r *http.Request) error {
	ss, err := s.sessions.get(r.Context(), r.PathValue("id"), userOf(r))
	if err != nil {
		return err
	}
	after, err := queryInt(r, "after", 0, 0)
	if err != nil {
		return err
	}
	limit, err := queryInt(r, "limit", 500, 5000)
	if err != nil {
		return err
	}
	if limit == 0 {
		limit = 500
	}
	// Before the entries: events after it are not in them, and a streaming
	// turn holds the text its events had brought.
	lastEvent, streaming := ss.hub.snapshot()
	entries := []transcript.Entry{}
	next := ""
	for _, en := range ss.eng.History().Entries() {
		if en.Turn <= after {
			continue
		}
		if en.Status == transcript.StatusStreaming {
			en.Text = streaming[en.Turn]
		}
		if len(entries) == limit {
			next = strconv.Itoa(entries[len(entries)-1].Turn)
			break
		}
		entries = append(entries, en)
	}
	mi, _ := ss.eng.Modes().Info(ss.eng.Current().Name())
	detail := map[string]any{
		"session": ss.eng.Info(), "entries": entries, "panels": panelsOf(ss.eng), "busy": ss.busy(), "spend": ss.eng.Spend(),
		"next_cursor": next, "controls": mi.Controls, "last_event_id": lastEvent, "status": ss.status(),
	}
	if p, waiting := ss.waitingPoint(); waiting {
		detail["checkpoint"] = debate.CheckpointReached{Point: p, Sentence: checkpoint.PointSentence(p)}
	}
	writeJSON(w, http.StatusOK, detail)
	return nil
}

func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	user := userOf(r)
	ss, err := s.sessions.get(r.Context(), id, user)
	if err != nil {
		return err
	}
	info := ss.eng.Info()
	if err := s.sessions.delete(r.Context(), id, user); err != nil {
		return err
	}
	if s.hooks != nil {
		s.hooks.sessionFinished(info, "deleted")
	}
	writeJSON(w, http.StatusOK, map[string]any{"deleted": id})
	return nil
}

type forkRequest struct {
	At int `json:"at"`
}

// forkSession copies a settled session into a new one (store.Fork): while
// an exchange runs it is refused, since its turns are not final yet.
func (s *Server) forkSession(w http.ResponseWriter, r *http.Request) error {
	var req forkRequest
	if err := decode(w, r, s.opts.MaxBody, &req); err != nil {
		return err
	}
	user := userOf(r)
	ss, err := s.sessions.get(r.Context(), r.PathValue("id"), user)
	if err != nil {
		return err
	}
	if req.At < 0 {
		return errorf(http.StatusBadRequest, "bad_field", "at: %d is not a turn number", req.At)
	}
	if err := s.limit(w, r, user); err != nil {
		return err
	}
	if ss.busy() {
		return errorf(http.StatusConflict, "busy", "session %s is busy: agents are still answering; fork it when its exchange_finished event has come", ss.id)
	}
	if err := s.sessions.settle(r.Context(), ss); err != nil {
		return err
	}
	st := s.opts.Store
	fork, err := st.Fork(r.Context(), ss.id, req.At)
	if errors.Is(err, store.ErrNoTurn) {
		return errorf(http.StatusBadRequest, "bad_field", "at: %s", err.Error())
	}
	if err != nil {
		return err
	}
	if err := st.SetOwner(r.Context(), fork.ID, user, false); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]any{"session": fork})
	return nil
}

type messageRequest struct {
	Text string `json:"text"`
}

func (s *Server) postMessage(w http.ResponseWriter, r *http.Request) error {
	var req messageRequest
	if err := decode(w, r, s.opts.MaxBody, &req); err != nil {
		return err
	}
	user := userOf(r)
	ss, err := s.sessions.get(r.Context(), r.PathValue("id"), user)
	if err != nil {
		return err
	}
	if err := s.limit(w, r, user); err != nil {
		return err
	}
	if err := s.sessions.submit(r.Context(), ss, req.Text); err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"status": "accepted"})
	return nil
}

func (s *Server) control(w http.ResponseWriter, r *http.Request) error {
	var c debate.Control
	if err := decode(w, r, s.opts.MaxBody, &c); err != nil {
		return err
	}
	ss, err := s.sessions.get(r.Context(), r.PathValue("id"), userOf(r))
	if err != nil {
		return err
	}
	switch c.Kind {
	case config.ControlPause, config.ControlContinue, config.ControlStop:
	case config.ControlRounds, config.ControlSteps:
		if c.N < 1 {
			return errorf(http.StatusBadRequest, "bad_field", "n: %s needs a number of at least 1", c.Kind)
		}
	default:
		return errorf(http.StatusBadRequest, "bad_field", "kind: %q is not one of pause, continue, stop, rounds, steps", c.Kind)
	}
	err = ss.eng.Control(r.Context(), c)
	var no *debate.ErrNoSuchControl
	switch {
	case errors.As(err, &no):
		return errorf(http.StatusBadRequest, "bad_control", "%s", err.Error())
	case err != nil:
		return errorf(http.StatusConflict, "not_running", "%s", err.Error())
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

type modeRequest struct {
	Mode string `json:"mode"`
}

func (s *Server) setMode(w http.ResponseWriter, r *http.Request) error {
	var req modeRequest
	if err := decode(w, r, s.opts.MaxBody, &req); err != nil {
		return err
	}
	ss, err := s.sessions.get(r.Context(), r.PathValue("id"), userOf(r))
	if err != nil {
		return err
	}
	if _, ok := s.opts.Config.ModeList.Spec(req.Mode); !ok {
		return errorf(http.StatusBadRequest, "bad_field", "mode: %s", s.opts.Config.ModeList.Unknown(req.Mode))
	}
	if ss.busy() {
		return errBusy(ss.id)
	}
	if err := ss.eng.SetMode(req.Mode); err != nil {
		return errorf(http.StatusBadRequest, "bad_field", "%s", err.Error())
	}
	writeJSON(w, http.StatusOK, map[string]any{"session": ss.eng.Info()})
	return nil
}

func (s *Server) listModes(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]any{"modes": s.opts.Config.ModeList.Infos()})
	return nil
}

// requestCtx ends when the client goes away or the server stops: a
// synchronous call (start, step, magi) runs under it.
func (s *Server) requestCtx(r *http.Request) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(r.Context())
	stop := context.AfterFunc(s.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}
