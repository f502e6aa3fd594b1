package openaiapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/parleyhq/parley/providers/providertest"
)

// post sends a raw chat completion body and returns the status.
func (f *fixture) post(t *testing.T, body string) int {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx(t), "POST", f.ts.URL+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+f.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestTranslationReachesTheProvider: what the request says arrives at the
// provider as documented: effort none is low, a message's text parts are
// joined with a newline, max_tokens limits only the agents that answer
// (the council's chairman, not its members), and n=0 is refused.
func TestTranslationReachesTheProvider(t *testing.T) {
	t.Parallel()
	fake, agents := fakeAgents(t, councilReplies)
	f := newFixture(t, agents)
	if code := f.post(t, `{"model":"chatgpt","n":0,"messages":[{"role":"user","content":"hi"}]}`); code != 400 {
		t.Errorf("n=0: %d, want 400", code)
	}
	if code := f.post(t, `{"model":"chatgpt","reasoning_effort":"none","messages":[{"role":"user","content":[{"type":"text","text":"first"},{"type":"text","text":"second"}]}]}`); code != 200 {
		t.Fatalf("parts: %d", code)
	}
	reqs := fake.Requests()
	last := reqs[len(reqs)-1]
	if n := len(last.Messages); n == 0 || !strings.Contains(last.Messages[n-1].Content, "first\nsecond") {
		t.Errorf("parts not joined with a newline: %+v", last.Messages)
	}
	if e := effortOf(last); e != "low" {
		t.Errorf("effort none reached the provider as %q, want low", e)
	}
	before := len(fake.Requests())
	if code := f.post(t, `{"model":"council","max_tokens":77,"messages":[{"role":"user","content":"Go or Rust?"}]}`); code != 200 {
		t.Fatalf("council: %d", code)
	}
	chairModel := ""
	for _, r := range fake.Requests()[before:] {
		if strings.Contains(r.System, "chair Parley's council") {
			chairModel = r.Model
		}
	}
	var chair, others int
	for _, r := range fake.Requests()[before:] {
		limited := r.JSON["max_completion_tokens"] == float64(77) || r.JSON["max_tokens"] == float64(77)
		switch {
		case strings.Contains(r.System, "chair Parley's council"):
			if limited {
				chair++
			}
		case limited && r.Model != chairModel: // the chairman's agent is limited in all its calls
			others++
		}
	}
	if chair != 1 || others != 0 {
		t.Errorf("max_tokens reached %d chairman and %d other members' calls, want 1 and 0", chair, others)
	}
}

// effortOf reads the effort an OpenAI-wire request asked for.
func effortOf(r providertest.Request) string {
	if e, ok := r.JSON["reasoning_effort"].(string); ok {
		return e
	}
	if m, ok := r.JSON["reasoning"].(map[string]any); ok {
		e, _ := m["effort"].(string)
		return e
	}
	return ""
}
