package debate_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	. "github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	. "github.com/parleyhq/parley/debate/debatetest"

	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/providers"
)

// Issue 43, item 7: a line refused before anything of it is kept says so
// (IsRefused, the refusal itself reachable through errors.As), so a door
// gives it back; its hint names only agents that can answer now (never a
// keyless local server); and a line the engine took, even one that ended
// in an error, is not called refused.
func TestARefusedLineKeepsNothingAndSaysSo(t *testing.T) {
	t.Parallel()
	cfg := vendorConfig()
	cfg.Providers["ollama"] = providers.Spec{Type: "openai-compatible", BaseURL: "http://127.0.0.1:1/v1"}
	cfg.Agents = append(cfg.Agents, config.AgentSpec{Name: "local", Display: "Local", Provider: "ollama", Model: "qwen3"})
	cfg.Seat(onlyKey("TEST_OA"))
	e, calls, _ := NewModeEngine(t, cfg, "mention", nil)
	for line, want := range map[string]string{
		"@gemini hi": "Gemini has no key: set TEST_GE (or ask @chatgpt, @codex)",
		"@nobody hi": "unknown agent @nobody",
		"@chatgpt":   "asks no question",
	} {
		err := e.Submit(context.Background(), line)
		if !IsRefused(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v (refused %v), want a refusal saying %q", line, err, IsRefused(err), want)
		}
	}
	var nk *NoKeyError
	if err := e.Submit(context.Background(), "@gemini hi"); !errors.As(err, &nk) || slices.Contains(nk.Ask, "local") {
		t.Errorf("the refusal is not a NoKeyError, or its hint names the keyless local server: %v", err)
	}
	if n := e.History().Len(); n != 0 || len(calls.All()) != 0 {
		t.Fatalf("refused lines kept %d entries and made %d calls", n, len(calls.All()))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := e.Submit(ctx, "@chatgpt hi")
	if err == nil || IsRefused(err) || e.History().Len() == 0 {
		t.Errorf("a taken line that was cancelled: %v (refused %v), %d entries kept", err, IsRefused(err), e.History().Len())
	}
}

// An @all that would skip agents, refused under a cap for an unpriced
// model, keeps nothing: not even the note of whom it skipped, which the
// first @all that is taken says once.
func TestARefusedAllKeepsNoSkippedNote(t *testing.T) {
	t.Parallel()
	cfg := vendorConfig()
	cfg.Seat(onlyKey("TEST_OA"))
	e, calls, _ := NewModeEngine(t, cfg, "mention", nil)
	e.SetCap(5)
	err := e.Submit(context.Background(), "@all kafka or nats?")
	var ce *spend.CapError
	if !IsRefused(err) || !errors.As(err, &ce) || ce.Reason != spend.CapUnpriced {
		t.Fatalf("@all under a cap on an unpriced model: %v", err)
	}
	if n := e.History().Len(); n != 0 || len(calls.All()) != 0 {
		t.Fatalf("the refused @all kept %d entries and made %d calls", n, len(calls.All()))
	}
	e.SetCap(0)
	if err := e.Submit(context.Background(), "@all kafka or nats?"); err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, en := range e.History().Entries() {
		if en.IsStatusNote() {
			notes = append(notes, en.Text)
		}
	}
	if len(notes) != 1 || notes[0] != "@all asks ChatGPT; skipped Gemini: no TEST_GE" {
		t.Errorf("notes %q: the taken @all names the skipped once", notes)
	}
}
