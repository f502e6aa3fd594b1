package openaiapi

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
)

// Backend is what the door needs of parley serve: its agents, its rate
// limits and caps, and sessions it saves and shows like its own.
type Backend interface {
	// AgentNames are the agents that answer as models of their own.
	AgentNames(ctx context.Context) ([]string, error)
	// Limit refuses a request over the user's rate limit (a StatusError).
	Limit(w http.ResponseWriter, r *http.Request, user string) error
	// Open creates a saved session for spec, under the server's caps.
	Open(ctx context.Context, spec Spec) (Session, error)
}

// Spec says how to build a request's session.
type Spec struct {
	Mode   string
	User   string
	Adjust func(*config.Config) // the request's effort and answer limit
}

// Session is a live session of the server.
type Session interface {
	ID() string
	Engine() *debate.Engine
	// Run runs one exchange under ctx and returns once every subscriber
	// has taken its events.
	Run(ctx context.Context, input string) error
	// Settle writes everything the session recorded to the store.
	Settle(ctx context.Context) error
	// Discard deletes the session (the configuration keeps none).
	Discard(ctx context.Context) error
}

// Options configure the door.
type Options struct {
	Backend Backend
	// MaxBody bounds a request body (default 1 MiB).
	MaxBody int64
	// Save keeps each request as a session (serve.openai.save_sessions).
	Save bool
	// PingEvery is the SSE keep-alive comment interval (default 15s).
	PingEvery time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Door serves /v1/models and /v1/chat/completions.
type Door struct {
	opts    Options
	mux     *http.ServeMux
	created int64 // the models' creation time: the server's start
}

// New builds the door; mount it at /v1/ behind the server's checks.
func New(opts Options) *Door {
	if opts.MaxBody <= 0 {
		opts.MaxBody = 1 << 20
	}
	if opts.PingEvery <= 0 {
		opts.PingEvery = 15 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	d := &Door{opts: opts, mux: http.NewServeMux(), created: opts.Now().Unix()}
	d.mux.HandleFunc("GET /v1/models", d.listModels)
	d.mux.HandleFunc("GET /v1/models/{id}", d.getModel)
	d.mux.HandleFunc("POST /v1/chat/completions", d.chat)
	d.mux.HandleFunc("/v1/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, errorf(http.StatusNotFound, typeInvalid, "unknown_url", "Parley serves GET /v1/models, GET /v1/models/{id} and POST /v1/chat/completions, not %s %s", r.Method, r.URL.Path))
	})
	return d
}

func (d *Door) ServeHTTP(w http.ResponseWriter, r *http.Request) { d.mux.ServeHTTP(w, r) }

// The models beside the agents: a council, MAGI, and everyone at once.
const (
	ModelCouncil = debate.ModeCouncil
	ModelMagi    = debate.ModeMagi
	ModelAll     = "all"
)

// target is what a model runs: a mode, and the line that starts it.
type target struct {
	mode     string
	prefix   string // put before the question ("@name ", "@all ")
	speaker  string // who earlier assistant turns are
	display  string // of earlier assistant turns ("": the speaker's own)
	headings bool
}

// targetOf resolves a model id.
func (d *Door) targetOf(ctx context.Context, id string) (target, error) {
	switch id {
	case ModelCouncil, ModelMagi:
		return target{mode: id, speaker: id, display: "Parley " + id}, nil
	case ModelAll:
		return target{mode: debate.ModeMention, prefix: "@all ", speaker: id, display: "Parley", headings: true}, nil
	}
	names, err := d.opts.Backend.AgentNames(ctx)
	if err != nil {
		return target{}, err
	}
	if !slices.Contains(names, id) || id == "" {
		e := errorf(http.StatusNotFound, typeInvalid, "model_not_found", "The model %q does not exist: Parley serves %s and its agents (GET /v1/models lists them)", id, "council, magi, all")
		p := "model"
		e.Param = &p
		return target{}, e
	}
	return target{mode: debate.ModeMention, prefix: "@" + id + " ", speaker: id}, nil // shown by its own name
}

func (d *Door) models(ctx context.Context) ([]model, error) {
	names, err := d.opts.Backend.AgentNames(ctx)
	if err != nil {
		return nil, err
	}
	ids := append([]string{ModelCouncil, ModelMagi, ModelAll}, names...)
	out := make([]model, 0, len(ids))
	for _, id := range ids {
		out = append(out, model{ID: id, Object: "model", Created: d.created, OwnedBy: "parley"})
	}
	return out, nil
}

func (d *Door) listModels(w http.ResponseWriter, r *http.Request) {
	ms, err := d.models(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	WriteJSON(w, http.StatusOK, map[string]any{"object": "list", "data": ms})
}

func (d *Door) getModel(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := d.targetOf(r.Context(), id); err != nil {
		writeError(w, err)
		return
	}
	WriteJSON(w, http.StatusOK, model{ID: id, Object: "model", Created: d.created, OwnedBy: "parley"})
}
