package mcp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The input schemas give each property one plain JSON type (the
// inspector and other clients convert a typed-in value only for those),
// and the strings a command-line client sends for numbers and lists are
// read when they read cleanly (issue 43, item 8).
func TestCommandLineClientArguments(t *testing.T) {
	t.Parallel()
	ts, _ := httpServer(t, filepath.Join(t.TempDir(), "h.db"), demoAgents, true)
	c := httpClient(t, ts)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tools, err := c.session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		b, _ := json.Marshal(tool.InputSchema)
		var sc struct {
			Properties map[string]struct{ Type any }
		}
		if err := json.Unmarshal(b, &sc); err != nil {
			t.Fatal(err)
		}
		for name, p := range sc.Properties {
			if _, plain := p.Type.(string); !plain {
				t.Errorf("%s.%s: type %v, want one plain JSON type", tool.Name, name, p.Type)
			}
		}
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string // "" for a call that runs
	}{
		{"council", map[string]any{"question": "q", "members": "gemini,chatgpt", "max_cost": "0.5"}, ""},
		{"council", map[string]any{"question": "q", "members": `["gemini","claude"]`, "chairman": nil, "max_cost": "$1"}, ""},
		{"ask", map[string]any{"question": "hi", "agents": "gemini", "max_cost": nil}, ""},
		{"sessions_list", map[string]any{"limit": "3"}, ""},
		{"magi", map[string]any{"question": "q", "max_cost": "abc"}, "max_cost must be a number"},
		{"magi", map[string]any{"question": "q", "max_cost": "1e999"}, "max_cost must be a number"},
		{"magi", map[string]any{"question": "q", "max_cost": "NaN"}, "max_cost must be a number"},
		{"ask", map[string]any{"question": "hi", "agents": "grok"}, `agents: unknown value "grok"; allowed values: gemini, chatgpt, claude`},
		{"council", map[string]any{"question": "q", "members": `["gemini",`}, "members must be a list of names"},
		{"sessions_list", map[string]any{"limit": "-1"}, "limit must be a whole number"},
	} {
		res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatalf("%s %v: protocol error %v", tc.tool, tc.args, err)
		}
		if tc.want == "" && res.IsError || tc.want != "" && (!res.IsError || !strings.Contains(textOf(res), tc.want)) {
			t.Errorf("%s %v: error %v %q, want %q", tc.tool, tc.args, res.IsError, textOf(res), tc.want)
		}
	}
}
