package toolbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/providers"
)

type fakeTool struct {
	name string
	run  func(ctx context.Context, args map[string]any) (Output, error)
}

func (f fakeTool) Spec() providers.ToolSpec { return providers.ToolSpec{Name: f.name} }
func (f fakeTool) Run(ctx context.Context, args map[string]any) (Output, error) {
	return f.run(ctx, args)
}

// Every failure is the tool's result, never an error or a panic.
func TestBoxTurnsEveryFailureIntoAResult(t *testing.T) {
	t.Parallel()
	echo := fakeTool{"echo", func(_ context.Context, a map[string]any) (Output, error) {
		s, err := String(a, "s", true)
		return Output{Text: s}, err
	}}
	boom := fakeTool{"boom", func(context.Context, map[string]any) (Output, error) { panic("kaput") }}
	fails := fakeTool{"fails", func(context.Context, map[string]any) (Output, error) { return Output{}, errors.New("disk on fire") }}
	hangs := fakeTool{"hangs", func(context.Context, map[string]any) (Output, error) { select {} }}
	secret := fakeTool{"secret", echo.run}
	asked := fakeTool{"asked", echo.run}
	b := New([]Tool{echo, boom, fails, hangs, secret, asked}, map[string]Rule{"secret": Deny, "asked": Ask})
	b.Timeout = 50 * time.Millisecond
	for _, c := range []struct{ name, args, want string }{
		{"echo", `{"s":"hi"}`, "hi"},
		{"echo", `{"s":1}`, `error: the argument "s" must be a string`},
		{"echo", `{"s":`, "malformed arguments: not a JSON object"},
		{"echo", `[1]`, "malformed arguments"},
		{"nope", `{}`, `there is no tool "nope"; the tools are: echo, boom, fails, hangs, asked`},
		{"boom", `{}`, "the tool panicked: kaput"},
		{"fails", `{}`, "error: disk on fire"},
		{"hangs", `{}`, "timed out after 50ms"},
		{"secret", `{"s":"x"}`, "denied by tools.policy"},
		{"asked", `{"s":"x"}`, "needs the host's approval"},
	} {
		res := b.Run(context.Background(), providers.ToolCall{Name: c.name, Arguments: c.args})
		if !strings.Contains(res.Text, c.want) || res.IsError != (c.want != "hi") {
			t.Errorf("%s(%s) = %v %q, want %q", c.name, c.args, res.IsError, res.Text, c.want)
		}
	}
	for _, s := range b.Specs() {
		if s.Name == "secret" {
			t.Error("a denied tool is offered")
		}
	}
}

func TestCapSaysWhenItCuts(t *testing.T) {
	t.Parallel()
	if Cap("short", 100) != "short" {
		t.Error("a short text changed")
	}
	long := strings.Repeat("é", 1000)
	got := Cap(long, 300)
	if len(got) > 300 || !strings.HasSuffix(got, "[cut: the result was 2000 bytes; only the first 300 are shown]") || !strings.HasPrefix(got, "éé") {
		t.Errorf("%d bytes: %q", len(got), got)
	}
}

func TestFilesToolsKeepTheJail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("line one\nline two\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("KEY=x"), 0o600); err != nil {
		t.Fatal(err)
	}
	b := New(FilesTools(dir, false), nil)
	res := b.Run(context.Background(), providers.ToolCall{Name: ToolReadFile, Arguments: `{"path":"notes.txt"}`})
	if res.IsError || !strings.Contains(res.Text, "line two") || res.Source.Ref != "notes.txt:1-2" {
		t.Errorf("read: %+v", res)
	}
	for _, p := range []string{"../etc/passwd", "/etc/passwd", ".env"} {
		res := b.Run(context.Background(), providers.ToolCall{Name: ToolReadFile, Arguments: `{"path":"` + p + `"}`})
		if !res.IsError {
			t.Errorf("%s was read: %q", p, res.Text)
		}
	}
	res = b.Run(context.Background(), providers.ToolCall{Name: ToolListFile, Arguments: `{"path":"."}`})
	if res.IsError || !strings.Contains(res.Text, "notes.txt") {
		t.Errorf("list: %+v", res)
	}
}

func TestParseSelection(t *testing.T) {
	t.Parallel()
	got, err := ParseSelection([]string{"files", " fetch", "mcp:everything", "files"})
	if err != nil || strings.Join(got, ",") != "files,fetch,mcp:everything" {
		t.Errorf("%v %v", got, err)
	}
	if got, err := ParseSelection([]string{"none"}); err != nil || got == nil || len(got) != 0 {
		t.Errorf("none: %v %v", got, err)
	}
	for _, bad := range [][]string{{"shell"}, {"mcp:"}, {"mcp:a b"}, {"files", "none"}} {
		if _, err := ParseSelection(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
