package serve

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/serve/openaiapi"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/store"
)

// HTTPStatus and ErrorCode let the OpenAI door answer serve's errors
// (rate limits, caps, configuration) with their own status and code.
func (e *apiError) HTTPStatus() int   { return e.Status }
func (e *apiError) ErrorCode() string { return e.Code }

// RetryAfterDuration is how long a spend window's refusal asks to wait.
func (e *apiError) RetryAfterDuration() time.Duration { return e.RetryAfter }

// openaiBackend gives the OpenAI door the server's agents, limits, caps
// and sessions: a completion is a session like any other, shown by the
// web page and resumable with parley --resume.
type openaiBackend struct{ s *Server }

// mountOpenAI serves /v1/ behind the token like the API.
func (s *Server) mountOpenAI() {
	door := openaiapi.New(openaiapi.Options{Backend: openaiBackend{s}, MaxBody: s.opts.MaxBody,
		Save: s.opts.Config.Serve.OpenAI.Saves(), PingEvery: s.opts.PingEvery})
	s.mux.Handle("/v1/", s.api(func(w http.ResponseWriter, r *http.Request) error {
		door.ServeHTTP(w, r)
		return nil
	}))
}

func (b openaiBackend) AgentNames(ctx context.Context) ([]string, error) {
	return b.s.agentNames(ctx)
}

func (b openaiBackend) Limit(w http.ResponseWriter, r *http.Request, user string) error {
	return b.s.limit(w, r, user)
}

func (b openaiBackend) Open(ctx context.Context, spec openaiapi.Spec) (openaiapi.Session, error) {
	ss, err := b.s.sessions.create(ctx, sessionSpec{mode: spec.Mode, user: spec.User, adjust: spec.Adjust})
	if err != nil {
		return nil, err
	}
	return openaiSession{b.s, ss}, nil
}

type openaiSession struct {
	s  *Server
	ss *session
}

func (o openaiSession) ID() string                       { return o.ss.id }
func (o openaiSession) Engine() *debate.Engine           { return o.ss.eng }
func (o openaiSession) Settle(ctx context.Context) error { return o.s.sessions.settle(ctx, o.ss) }

// Run runs the exchange until it ends, the client leaves or the server stops.
func (o openaiSession) Run(ctx context.Context, input string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(o.s.ctx, cancel)()
	return o.s.sessions.run(ctx, o.ss, input)
}

func (o openaiSession) Discard(ctx context.Context) error {
	err := o.s.sessions.delete(ctx, o.ss.id, o.ss.owner)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}
