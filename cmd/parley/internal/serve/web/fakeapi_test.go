package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	"github.com/parleyhq/parley/cmd/parley/internal/serve/web"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
)

// fakeAPI is a small stand-in for package serve's API, enough for the page:
// create a session, post a message, follow the events (SSE with ids and
// ?after=/Last-Event-ID). Each session is a real debate.Engine, so the
// events are the engine's own; only the HTTP plumbing is the test's.
type fakeAPI struct {
	t      *testing.T
	agents func(*config.Config) []*debate.Agent

	mu       sync.Mutex
	sessions map[string]*fakeSession
	order    []string
}

type fakeSession struct {
	engine  *debate.Engine
	mu      sync.Mutex
	events  [][]byte // SSE messages; the id of events[i] is i+1
	changed chan struct{}
}

func (s *fakeSession) sink(ev debate.Event) {
	data, err := debate.MarshalEvent(ev)
	if err != nil {
		return
	}
	s.mu.Lock()
	msg := fmt.Appendf(nil, "id: %d\nevent: %s\ndata: %s\n\n", len(s.events)+1, ev.EventType(), data)
	s.events = append(s.events, msg)
	ch := s.changed
	s.changed = make(chan struct{})
	s.mu.Unlock()
	close(ch)
}

func (s *fakeSession) since(after int) ([][]byte, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	after = max(0, min(after, len(s.events)))
	return s.events[after:], s.changed
}

func (s *fakeSession) last() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.events)
}

// newFakeAPI serves the API and the pages on one httptest server.
func newFakeAPI(t *testing.T, agents func(*config.Config) []*debate.Agent) *httptest.Server {
	f := &fakeAPI{t: t, agents: agents, sessions: map[string]*fakeSession{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v1/sessions", f.create)
	mux.HandleFunc("POST /api/v1/sessions/{id}/messages", f.message)
	mux.HandleFunc("GET /api/v1/sessions/{id}/events", f.events)
	mux.HandleFunc("POST /api/v1/sessions/{id}/mode", f.mode)
	mux.HandleFunc("GET /api/v1/agents", f.listAgents)
	mux.Handle("/", web.New(f, web.Options{Modes: modes.All()}))
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, s := range f.sessions {
			s.engine.Cancel()
			_ = s.engine.Wait(context.Background())
		}
	})
	return srv
}

func apiError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": code, "message": msg}})
}

func (f *fakeAPI) create(w http.ResponseWriter, r *http.Request) {
	var req struct{ Mode, Title, UserID string }
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, 400, "bad_json", err.Error())
		return
	}
	loaded, err := configload.Load(modes.All(), "", nil)
	if err != nil {
		apiError(w, 500, "internal", err.Error())
		return
	}
	eng, err := debate.NewEngine(loaded.Config, f.agents(loaded.Config), req.Mode)
	if err != nil {
		apiError(w, 400, "bad_field", err.Error())
		return
	}
	s := &fakeSession{engine: eng, changed: make(chan struct{})}
	eng.Subscribe(s.sink)
	eng.Start(false)
	id := eng.Info().ID
	f.mu.Lock()
	f.sessions[id] = s
	f.order = append(f.order, id)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]any{"session": eng.Info()})
}

// listAgents answers with the built-in configuration's agents, no custom ones.
func (f *fakeAPI) listAgents(w http.ResponseWriter, _ *http.Request) {
	loaded, err := configload.Load(modes.All(), "", nil)
	if err != nil {
		apiError(w, 500, "internal", err.Error())
		return
	}
	configured := []map[string]string{}
	for _, a := range loaded.Config.Agents {
		configured = append(configured, map[string]string{"name": a.Name, "display": a.Display, "provider": a.Provider, "model": a.Model})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"agents": []any{}, "configured": configured})
}

func (f *fakeAPI) session(id string) *fakeSession {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessions[id]
}

func (f *fakeAPI) message(w http.ResponseWriter, r *http.Request) {
	s := f.session(r.PathValue("id"))
	if s == nil {
		apiError(w, 404, "not_found", "no such session")
		return
	}
	var req struct{ Text string }
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, 400, "bad_json", err.Error())
		return
	}
	if s.engine.Busy() {
		apiError(w, 409, "busy", debate.ErrBusy.Error())
		return
	}
	go func() { _ = s.engine.Submit(context.Background(), req.Text) }()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write([]byte(`{"status":"accepted"}`))
}

func (f *fakeAPI) mode(w http.ResponseWriter, r *http.Request) {
	s := f.session(r.PathValue("id"))
	if s == nil {
		apiError(w, 404, "not_found", "no such session")
		return
	}
	var req struct{ Mode string }
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, 400, "bad_json", err.Error())
		return
	}
	if err := s.engine.SetMode(req.Mode); err != nil {
		apiError(w, 400, "bad_field", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"session": s.engine.Info()})
}

func (f *fakeAPI) events(w http.ResponseWriter, r *http.Request) {
	s := f.session(r.PathValue("id"))
	if s == nil {
		apiError(w, 404, "not_found", "no such session")
		return
	}
	after := s.last()
	cursor := r.Header.Get("Last-Event-ID")
	if cursor == "" {
		cursor = r.URL.Query().Get("after")
	}
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil {
			apiError(w, 400, "bad_query", "bad event id")
			return
		}
		after = n
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(200)
	flusher := w.(http.Flusher)
	flusher.Flush()
	for {
		msgs, changed := s.since(after)
		for _, m := range msgs {
			if _, err := w.Write(m); err != nil {
				return
			}
		}
		after += len(msgs)
		flusher.Flush()
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		}
	}
}

// ListSessions and LoadSession make fakeAPI the pages' Backend.
func (f *fakeAPI) ListSessions(context.Context) ([]debate.SessionSummary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []debate.SessionSummary
	for i := len(f.order) - 1; i >= 0; i-- {
		out = append(out, debate.SessionSummary{SessionInfo: f.sessions[f.order[i]].engine.Info()})
	}
	return out, nil
}

func (f *fakeAPI) LoadSession(_ context.Context, id string) (web.SessionView, error) {
	s := f.session(id)
	if s == nil {
		return web.SessionView{}, fmt.Errorf("%q: %w", id, web.ErrNotFound)
	}
	// The id is read before the history, so the stream may repeat an event
	// the render shows but never misses one.
	last := s.last()
	sv := web.SessionView{Info: s.engine.Info(), Entries: s.engine.History().Entries(), Busy: s.engine.Busy(),
		LastEventID: strconv.Itoa(last)}
	mode, _ := modes.All().Info(sv.Info.Mode)
	for i, a := range s.engine.Current().Agents() {
		p := web.Panel{Name: a.Name, Display: a.Label(), Model: a.Model, Provider: a.Provider.Name(), Color: a.Color}
		if i < len(mode.Roles) {
			p.Role = mode.Roles[i]
		}
		sv.Panels = append(sv.Panels, p)
	}
	return sv, nil
}
