package debatetest

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
)

// ClearModeEnv keeps the machine's keys and endpoints out of adapter tests.
func ClearModeEnv(t *testing.T) {
	for _, v := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL",
		"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_GENAI_USE_VERTEXAI"} {
		t.Setenv(v, "")
	}
}

// OpenHTTPFake opens the real adapter of typ against a fake server.
func OpenHTTPFake(t *testing.T, typ string, srv *providertest.Server) providers.Provider {
	t.Helper()
	zero := 0
	p, err := open.Open(typ, providers.Spec{Type: typ, BaseURL: srv.URL, APIKeyEnv: "PARLEY_TEST_KEY", Timeout: 10 * time.Second, MaxRetries: &zero},
		func(k string) string {
			if k == "PARLEY_TEST_KEY" {
				return "test-key"
			}
			return ""
		})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// HTTPOrder records which fake server answered, in arrival order.
type HTTPOrder struct {
	mu  sync.Mutex
	who []string
}

func (o *HTTPOrder) Reply(name string, text func(n int) string) func(providertest.Request) providertest.Reply {
	n := 0
	return func(providertest.Request) providertest.Reply {
		o.mu.Lock()
		o.who = append(o.who, name)
		o.mu.Unlock()
		n++
		return providertest.Reply{Text: text(n), Usage: providers.Usage{InputTokens: 50, OutputTokens: 10}}
	}
}

func (o *HTTPOrder) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return strings.Join(o.who, ",")
}

// ToolWorkspace makes a small project folder beside a secret file that
// must never be read, and returns the folder.
func ToolWorkspace(t *testing.T) string {
	t.Helper()
	parent := t.TempDir()
	root := filepath.Join(parent, "project")
	files := map[string]string{
		"README.md":      "# Hello\nA tiny program that greets.\n",
		"main.go":        "package main\n\nfunc main() { println(\"hello\") }\n",
		"lib/greet.go":   "package lib\n\n// Greet says hello.\nfunc Greet() string { return \"hello\" }\n",
		"../secret.txt":  "TOP SECRET\n",
		".git/config":    "[core]\n",
		"node_modules/x": "x\n",
	}
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// ToolLoopEngine builds an engine in mode whose agent "coder" talks to p,
// with the workspace set to root.
func ToolLoopEngine(t *testing.T, known config.ModeList, p providers.Provider, mode, root string, maxSteps int) (*debate.Engine, *EventLog) {
	t.Helper()
	cfg := &config.Config{ModeList: known,
		Providers: map[string]providers.Spec{"fake": {Type: "openai"}},
		Agents: []config.AgentSpec{
			{Name: "coder", Display: "Coder", Provider: "fake", Model: "gpt-4o", Tools: config.ToolList{"files"}},
			{Name: "plain", Display: "Plain", Provider: "fake", Model: "gpt-4o"},
		},
		Modes: config.ModesConfig{
			Mention: config.MentionConfig{Agents: []string{"coder"}},
			Agent:   config.AgentModeConfig{Agent: "coder", MaxSteps: maxSteps},
		},
		Context: config.ContextConfig{BudgetTokens: 24000},
	}
	agents := []*debate.Agent{{AgentSpec: cfg.Agents[0], Provider: p}, {AgentSpec: cfg.Agents[1], Provider: p}}
	e, err := debate.NewEngine(cfg, agents, mode)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SetWorkspace(root); err != nil {
		t.Fatal(err)
	}
	ev := &EventLog{}
	e.Subscribe(ev.Add)
	return e, ev
}

// OpenAIFake is an OpenAI fake answering replies in turn, and its provider.
func OpenAIFake(t *testing.T, replies ...providertest.Reply) (*providertest.Server, providers.Provider) {
	t.Helper()
	return OpenAIFakeFunc(t, providertest.Sequence(replies...))
}

// OpenAIFakeFunc is OpenAIFake with a handler choosing each reply.
func OpenAIFakeFunc(t *testing.T, handler func(providertest.Request) providertest.Reply) (*providertest.Server, providers.Provider) {
	t.Helper()
	srv := providertest.OpenAI(t, handler)
	zero := 0
	p, err := open.Open("fake", providers.Spec{Type: "openai", BaseURL: srv.URL, APIKeyEnv: "TEST_KEY", Timeout: 10 * time.Second, MaxRetries: &zero},
		func(k string) string {
			if k == "TEST_KEY" {
				return "test-key"
			}
			return ""
		})
	if err != nil {
		t.Fatal(err)
	}
	return srv, p
}

// TextReply is a reply of text.
func TextReply(text string) providertest.Reply {
	return providertest.Reply{Text: text, Usage: providers.Usage{InputTokens: 100, OutputTokens: 20}}
}

// MustContain fails the test when got lacks one of wants.
func MustContain(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}
