package web_test

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	"github.com/parleyhq/parley/cmd/parley/internal/serve"
	"github.com/parleyhq/parley/cmd/parley/internal/serve/web"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/store"
)

// startServer runs the real parley serve (package serve with the web view
// mounted) on a real SQLite file and a loopback port, as `parley serve`
// does, and returns its base URL.
func startServer(t *testing.T, agents func(*config.Config) []*debate.Agent) string {
	t.Helper()
	return startServerWithToken(t, agents, "")
}

// startServerWithToken is startServer with PARLEY_SERVE_TOKEN set.
func startServerWithToken(t *testing.T, agents func(*config.Config) []*debate.Agent, token string) string {
	t.Helper()
	return startServerOn(t, filepath.Join(t.TempDir(), "parley.db"), agents, token)
}

// startServerOn is startServer on the database file db.
func startServerOn(t *testing.T, db string, agents func(*config.Config) []*debate.Agent, token string) string {
	t.Helper()
	srv := newServerOn(t, db, agents, token)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln, nil) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil && err != http.ErrServerClosed {
			t.Errorf("serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

// newServer is the real server with the web view on a real SQLite file,
// not yet listening.
func newServer(t *testing.T, agents func(*config.Config) []*debate.Agent, token string) *serve.Server {
	t.Helper()
	return newServerOn(t, filepath.Join(t.TempDir(), "parley.db"), agents, token)
}

// newServerOn is newServer on the database file db.
func newServerOn(t *testing.T, db string, agents func(*config.Config) []*debate.Agent, token string) *serve.Server {
	t.Helper()
	return newServerWith(t, db, agents, token, nil)
}

// newServerWith is newServerOn with the built-in configuration changed by
// configure (nil: as it is).
func newServerWith(t *testing.T, db string, agents func(*config.Config) []*debate.Agent, token string, configure func(*config.Config)) *serve.Server {
	t.Helper()
	loaded, err := configload.Load(modes.All(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if configure != nil {
		configure(loaded.Config)
	}
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(serve.Options{Config: loaded.Config, Store: st, Token: token,
		Agents: func(c *config.Config) ([]*debate.Agent, error) { return agents(c), nil }})
	if err != nil {
		t.Fatal(err)
	}
	srv.ServeWebView(web.Options{})
	t.Cleanup(func() {
		srv.Close()
		_ = st.Close()
	})
	return srv
}
