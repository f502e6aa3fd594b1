package main

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
)

var updateRequestGolden = flag.Bool("update-requests", false, "rewrite the golden request bodies")

// TestDefaultModelsRequestBodies captures what Parley sends for every
// default agent's model in the two shapes the modes use — free text
// (mention, alternate, talk, agent) and structured output (MAGI votes) —
// and compares each body with testdata/requests/<model>-<shape>.json.
// The golden files were checked against the official references
// (2026-11-23): OpenAI's Responses API (POST /v1/responses: model,
// instructions, input messages, stream, store, max_output_tokens,
// text.format json_schema with name/schema/strict; no temperature for
// reasoning models), Anthropic's Messages API (max_tokens required,
// system blocks with cache_control, output_config.format json_schema)
// and Gemini's streamGenerateContent (contents, systemInstruction,
// generationConfig.responseMimeType/responseSchema).
func TestDefaultModelsRequestBodies(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Parallel()
	isolate(t) // golden files are found from wd, the package folder
	cfg, err := loadConfig(t, "")
	if err != nil {
		t.Fatal(err)
	}
	fakes := map[string]func(testing.TB, func(providertest.Request) providertest.Reply) *providertest.Server{
		"openai": providertest.OpenAI, "anthropic": providertest.Anthropic, "gemini": providertest.Gemini,
	}
	history := []providers.Message{
		{Role: providers.RoleUser, Content: "[Host]: Should we ship on Friday?"},
		{Role: providers.RoleAssistant, Content: "Only with a rollback plan."},
		{Role: providers.RoleUser, Content: "[Gemini]: I agree."},
	}
	done := map[string]bool{}
	for _, a := range cfg.Agents {
		spec := cfg.Providers[a.Provider]
		fake := fakes[spec.Type]
		if fake == nil || done[a.Model] {
			continue // demo and local servers have no official contract to pin
		}
		done[a.Model] = true
		for _, shape := range []string{"text", "vote"} {
			t.Run(a.Model+"/"+shape, func(t *testing.T) {
				srv := fake(t, func(providertest.Request) providertest.Reply { return providertest.Reply{Text: "ok"} })
				s := spec
				s.BaseURL, s.APIKeyEnv = srv.URL, "GOLDEN_KEY"
				p, err := open.Open(a.Provider, s, func(string) string { return "k" })
				if err != nil {
					t.Fatal(err)
				}
				agent := &debate.Agent{AgentSpec: a}
				req := providers.Request{Model: a.Model, System: debate.SystemPrompt(agent, "MODE INSTRUCTIONS"),
					Messages: history, MaxTokens: a.MaxTokens, Temperature: a.Temperature, Effort: a.Effort, Info: cfg.ModelInfo(a.Model)}
				if shape == "vote" {
					req.Schema = &providers.Schema{Name: "magi_vote", Description: "A MAGI council member's vote with its reasoning", JSON: verdict.VoteSchema()}
				}
				st, err := p.Stream(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				for st.Next() {
				}
				if err := st.Err(); err != nil {
					t.Fatal(err)
				}
				st.Close()
				got := srv.Requests()[0]
				body, _ := json.MarshalIndent(map[string]any{"path": got.Path, "body": got.JSON}, "", "  ")
				file := filepath.Join(wd, "testdata", "requests", strings.ReplaceAll(a.Model, ".", "_")+"-"+shape+".json")
				if *updateRequestGolden {
					if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(file, append(body, '\n'), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(file)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if strings.TrimSpace(string(want)) != strings.TrimSpace(string(body)) {
					t.Errorf("%s differs:\n%s", file, body)
				}
			})
		}
	}
	if len(done) < 4 {
		t.Fatalf("only %d default models checked", len(done))
	}
}
