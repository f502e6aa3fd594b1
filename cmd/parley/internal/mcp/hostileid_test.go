package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	parleymcp "github.com/parleyhq/parley/cmd/parley/internal/mcp"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/store"
)

// hostileIDs are session IDs an attacker might hand any door, each with
// the character the refusal must name.
var hostileIDs = []struct{ id, names string }{
	{"y/../../../victim", `'/'`},
	{"..", `'.'`},
	{`a\b`, `'\\'`},
	{"a\x00b", `'\x00'`},
	{"a\x1b[2Jb", `'\x1b'`},
	{"a b", `' '`},
	{"a%2fb", `'%'`},
	{"café", `'é'`},
}

// The HTTP API and the MCP tools refuse a hostile session ID with the
// offending character named, before any lookup.
func TestHostileSessionIDsAPIAndMCP(t *testing.T) {
	t.Parallel()
	ts, _ := httpServer(t, filepath.Join(t.TempDir(), "p.db"), demoAgents, true)
	c := httpClient(t, ts)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, h := range hostileIDs {
		resp, err := http.Get(ts.URL + "/api/v1/sessions/" + url.PathEscape(h.id))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		// The path is cleaned before routing: /api/v1/sessions/.. is no
		// session route at all (404).
		cleaned := h.id == ".." && resp.StatusCode == http.StatusNotFound
		if !cleaned && (resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), jsonQuoted(h.names))) {
			t.Errorf("API %q: %d %s, want 400 naming %s", h.id, resp.StatusCode, body, h.names)
		}
		for _, tool := range []struct {
			name string
			args map[string]any
		}{{"session_get", map[string]any{"id": h.id}}, {"debate_step", map[string]any{"session_id": h.id}}} {
			res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: tool.name, Arguments: tool.args})
			if err != nil {
				t.Fatalf("%s: %v", tool.name, err)
			}
			if !res.IsError || !strings.Contains(textOf(res), h.names) {
				t.Errorf("MCP %s %q: %s, want a tool error naming %s", tool.name, h.id, textOf(res), h.names)
			}
		}
	}
}

// jsonQuoted is s as it reads inside a JSON string.
func jsonQuoted(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// ask's session_id is checked as every other door's: a hostile one is a
// tool error naming the offending character, before any lookup or call.
func TestHostileSessionIDsInAsk(t *testing.T) {
	t.Parallel()
	l, err := configload.Load(modes.All(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m, err := parleymcp.New(ctx, parleymcp.Options{Config: l.Config, Agents: demoAgents, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	clientSide, serverSide := mcp.NewInMemoryTransports()
	if _, err := m.Connect(ctx, serverSide); err != nil {
		t.Fatal(err)
	}
	c := connect(t, clientSide)
	for _, h := range hostileIDs {
		res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "hi", "session_id": h.id}})
		if err != nil {
			t.Fatalf("ask: %v", err)
		}
		if !res.IsError || !strings.Contains(textOf(res), h.names) {
			t.Errorf("ask session_id %q: %s, want a tool error naming %s", h.id, textOf(res), h.names)
		}
	}
	if list, _ := st.List(ctx); len(list) != 0 {
		t.Errorf("a refused ask saved %d sessions", len(list))
	}
}
