package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/parleyhq/parley/debate/store"
)

// TestOpenAIModelsAreTheSessionsAgents: the OpenAI door's models are the
// agents a session's configuration seats — the configured ones in their
// order, then the custom ones, a custom agent that shares a configured
// name listed once (the configured one seats) — and a custom agent answers
// as a model of its own. The door reads the names without building a
// configuration (agentNames); this holds it to what config builds.
func TestOpenAIModelsAreTheSessionsAgents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.must(http.StatusCreated, "POST", "/api/v1/agents", map[string]any{"name": "pirate", "display": "Pirate", "persona": "Talk like a pirate.", "provider": "demo", "model": "demo"})
	// A custom agent named like a configured one (saved by another
	// process, or before the configuration named it).
	if err := f.st.SaveAgent(context.Background(), store.CustomAgent{Name: "chatgpt", Display: "Impostor", Provider: "demo", Model: "demo"}); err != nil {
		t.Fatal(err)
	}
	status, body := f.do("GET", "/v1/models", nil)
	if status != http.StatusOK {
		t.Fatalf("GET /v1/models: %d %s", status, body)
	}
	var list struct {
		Data []struct{ ID string } `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range list.Data {
		got = append(got, m.ID)
	}
	cfg, err := f.srv.config(context.Background(), "mention", nil, "", "")
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string{"council", "magi", "all"}, cfg.AgentNames()...)
	if !slices.Equal(got, want) {
		t.Fatalf("models %v, want %v (the session configuration's agents)", got, want)
	}
	if slices.Index(got, "pirate") != len(got)-1 {
		t.Fatalf("models %v: the custom agent is not last", got)
	}
	n := 0
	for _, id := range got {
		if id == "chatgpt" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("models %v list chatgpt %d times", got, n)
	}
	reply := f.must(http.StatusOK, "POST", "/v1/chat/completions", map[string]any{"model": "pirate", "messages": []map[string]string{{"role": "user", "content": "ahoy"}}})
	if reply["model"] != "pirate" {
		t.Fatalf("completion by the custom agent: %v", reply)
	}
}
