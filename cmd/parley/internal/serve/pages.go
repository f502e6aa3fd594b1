package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/parleyhq/parley/cmd/parley/internal/serve/web"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/transcript"
)

// ServeWebView mounts the web view (package web) on every path outside
// /api/ and /login, reading this server's sessions as user opts.UserID
// sees them. Call it before Serve, and only when Options.Pages is nil.
func (s *Server) ServeWebView(opts web.Options) {
	opts.SignOut = s.auth.token != ""
	opts.Modes = s.opts.Config.ModeList
	s.mux.Handle("/", s.pages(web.New(pageBackend{srv: s, user: opts.UserID}, opts)))
}

// pageBackend is web.Backend over the server's sessions: saved ones from
// the store, the page of one from its live engine (which loads it when
// needed), so a page sees every entry an event has announced.
type pageBackend struct {
	srv  *Server
	user string
}

func (b pageBackend) ListSessions(ctx context.Context) ([]debate.SessionSummary, error) {
	st := b.srv.opts.Store
	all, err := st.List(ctx)
	if err != nil {
		return nil, err
	}
	owners, err := st.Owners(ctx)
	if err != nil {
		return nil, err
	}
	var out []debate.SessionSummary
	for _, sum := range all {
		if owners[sum.ID] != b.user {
			continue
		}
		out = append(out, debate.SessionSummary{
			SessionInfo: debate.SessionInfo{ID: sum.ID, Title: sum.Title, Mode: sum.Mode, Topic: sum.Topic,
				Created: sum.Created, Parent: sum.Parent, ForkAt: sum.ForkAt},
			Turns: sum.Turns, Tokens: sum.TokensIn + sum.TokensOut, Cost: sum.Cost, LastActivity: sum.LastActivity,
			PriceUnknown: sum.PriceUnknown, Estimated: sum.Estimated,
		})
	}
	return out, nil
}

func (b pageBackend) LoadSession(ctx context.Context, id string) (web.SessionView, error) {
	ss, err := b.srv.sessions.get(ctx, id, b.user)
	if err != nil {
		var ae *apiError
		if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
			return web.SessionView{}, fmt.Errorf("%s: %w", ae.Message, web.ErrNotFound)
		}
		return web.SessionView{}, err
	}
	// The snapshot comes before the entries: events after it are not in
	// them, and a streaming turn shows the text its events had brought.
	last, streaming := ss.hub.snapshot()
	entries := ss.eng.History().Entries()
	for i, en := range entries {
		if en.Status == transcript.StatusStreaming {
			entries[i].Text = streaming[en.Turn]
		}
	}
	sv := web.SessionView{Info: ss.eng.Info(), Entries: entries, Busy: ss.busy(), Spend: ss.eng.Spend(),
		LastEventID: strconv.FormatUint(last, 10)}
	if p, waiting := ss.waitingPoint(); waiting {
		sv.Checkpoint = &debate.CheckpointReached{Point: p, Sentence: checkpoint.PointSentence(p)}
	}
	for _, p := range panelsOf(ss.eng) {
		sv.Panels = append(sv.Panels, web.Panel{Name: p.Name, Display: p.Display, Model: p.Model,
			Provider: p.Provider, Role: p.Role, Color: p.Color})
	}
	return sv, nil
}
