package toolkit

import (
	"slices"
	"testing"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/providers"
)

func names(t *testing.T, k *Kit, tools ...string) []string {
	t.Helper()
	b := k.Box(&debate.Agent{AgentSpec: config.AgentSpec{Name: "a", Tools: tools}})
	if b == nil {
		return nil
	}
	var out []string
	for _, s := range b.Specs() {
		out = append(out, s.Name)
	}
	for _, s := range b.ServerTools {
		out = append(out, "server:"+s.Kind)
	}
	return out
}

func TestKitBuildsTheSelectedTools(t *testing.T) {
	t.Parallel()
	cfg := &config.Config{Tools: config.ToolsConfig{Policy: map[string]string{"fetch": "deny"}}}
	k := New(cfg, t.TempDir, false, nil)
	if got := names(t, k, "files"); got != nil {
		t.Errorf("files alone without --native-tools: %v (the XML protocol serves it)", got)
	}
	if got := names(t, k, "files", "web_search"); !slices.Equal(got, []string{"list_file", "read_file", "server:" + providers.ServerToolWebSearch}) {
		t.Errorf("files, web_search: %v", got)
	}
	if got := names(t, k, "fetch"); len(got) != 0 {
		t.Errorf("a denied fetch is offered: %v", got)
	}
	if got := names(t, New(&config.Config{}, t.TempDir, true, nil), "files", "fetch"); !slices.Equal(got, []string{"list_file", "read_file", "fetch_url"}) {
		t.Errorf("native files, fetch: %v", got)
	}
	cfg2 := &config.Config{Agents: []config.AgentSpec{{Name: "a", Tools: config.ToolList{"files"}}, {Name: "b"}}}
	if err := Select(cfg2, "fetch, mcp:docs"); err != nil || !slices.Equal(cfg2.Agents[1].Tools, config.ToolList{"fetch", "mcp:docs"}) {
		t.Errorf("select: %v %v", err, cfg2.Agents)
	}
	if err := Select(cfg2, "none"); err != nil || len(cfg2.Agents[0].Tools) != 0 {
		t.Errorf("none: %v %v", err, cfg2.Agents)
	}
}

// --native-tools gives agent mode's reader the files tools natively
// whatever its own list; no other agent gets them, nor the reader without
// the flag.
func TestReaderGetsFilesWithNativeTools(t *testing.T) {
	t.Parallel()
	cfg := &config.Config{Modes: config.ModesConfig{Agent: config.AgentModeConfig{Agent: "a"}}}
	k := New(cfg, t.TempDir, true, nil)
	if got := names(t, k); got != nil {
		t.Errorf("without the flag the reader gets %v", got)
	}
	k.ReaderFiles = true
	if got := names(t, k); !slices.Equal(got, []string{"list_file", "read_file"}) {
		t.Errorf("the reader gets %v", got)
	}
	if got := names(t, k, "fetch"); !slices.Equal(got, []string{"fetch_url", "list_file", "read_file"}) {
		t.Errorf("the reader with fetch gets %v", got)
	}
	if b := k.Box(&debate.Agent{AgentSpec: config.AgentSpec{Name: "b"}}); b != nil {
		t.Errorf("another agent gets %d tools", b.Len())
	}
}
