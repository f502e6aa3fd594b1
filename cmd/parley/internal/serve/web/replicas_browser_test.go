package web_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/store/pgtest"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
)

// Two replicas of parley serve on one Postgres (each its own store and
// pool, as two machines): a session is created and answered through A
// while its page is open on B. B's page shows A's question, then A's
// answer while it streams (a part of it, the turn still streaming: B
// was woken by LISTEN/NOTIFY and read the checkpointed text from the
// database), then whole, without a reload.
func TestBrowserFollowsAnotherReplica(t *testing.T) {
	t.Parallel()
	c := pgtest.Require(t)
	ctx := browser(t)
	url := c.Schema(t)
	chunks := make([]string, 24)
	for i := range chunks {
		chunks[i] = fmt.Sprintf("w%02d ", i)
	}
	whole := strings.Join(chunks, "")
	agents := slowAgents(t, chunks, 150*time.Millisecond)
	a := startServerOn(t, url, agents, "")
	b := startServerOn(t, url, agents, "")

	id := apiCreate(t, a)
	do(t, ctx, "opening the session's page on B",
		chromedp.Navigate(b+"/s/"+id),
		chromedp.WaitVisible(chromedp.CSS(`body[data-page="session"]`)),
	)
	waitJS(t, ctx, "B's event stream", `document.body.classList.contains("live")`)

	apiPost(t, a, "/api/v1/sessions/"+id+"/messages", `{"text":"@chatgpt follow me"}`, http.StatusAccepted)
	waitJS(t, ctx, "A's question on B's page", `(document.querySelector("#turn-1")?.textContent ?? "").includes("follow me")`)
	waitJS(t, ctx, "A's answer streaming on B's page (a part of it, the turn still streaming)", `(() => {
		const a = document.querySelector("#turn-2");
		const text = a?.querySelector(".entry-body")?.textContent ?? "";
		return !!a && a.dataset.status === "streaming" && text.includes("w00") && !text.includes("w23");
	})()`)
	waitJS(t, ctx, "A's whole answer on B's page", fmt.Sprintf(`(() => {
		const a = document.querySelector("#turn-2");
		return !!a && a.dataset.status === "complete" && a.dataset.speaker === "chatgpt" &&
			a.querySelector(".entry-body").textContent.trim() === %q;
	})()`, strings.TrimSpace(whole)))
	do(t, ctx, "leaving the page", chromedp.Navigate("about:blank"))
}

// slowAgents puts chatgpt on a fake OpenAI server streaming chunks, one
// every pace, and leaves the other agents out.
func slowAgents(t *testing.T, chunks []string, pace time.Duration) func(*config.Config) []*debate.Agent {
	fake := providertest.OpenAI(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Chunks: chunks, ChunkDelay: pace, Usage: providers.Usage{InputTokens: 10, OutputTokens: 24}}
	})
	return func(cfg *config.Config) []*debate.Agent {
		var agents []*debate.Agent
		for _, spec := range cfg.Agents {
			if spec.Name != "chatgpt" {
				continue
			}
			p, err := open.Open("openai", providers.Spec{Type: "openai", BaseURL: fake.URL, APIKeyEnv: "K"}, func(string) string { return "test-key" })
			if err != nil {
				panic(fmt.Sprintf("opening a fake provider: %v", err))
			}
			agents = append(agents, &debate.Agent{AgentSpec: spec, Provider: p})
		}
		return agents
	}
}

// apiCreate creates a mention session through the API at base.
func apiCreate(t *testing.T, base string) string {
	t.Helper()
	var created struct {
		Session struct{ ID string } `json:"session"`
	}
	if err := json.Unmarshal(apiPost(t, base, "/api/v1/sessions", `{"mode":"mention","title":"across replicas","agents":["chatgpt"]}`, http.StatusCreated), &created); err != nil {
		t.Fatal(err)
	}
	return created.Session.ID
}

// apiPost posts JSON to the API at base and returns the answer's body.
func apiPost(t *testing.T, base, path, body string, want int) []byte {
	t.Helper()
	resp, err := http.Post(base+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != want {
		t.Fatalf("POST %s: %d %s (%v), want %d", path, resp.StatusCode, data, err, want)
	}
	return data
}
