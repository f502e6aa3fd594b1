package main

import (
	"bytes"
	"os/exec"
	"testing"

	"github.com/parleyhq/parley/debate/sanitize/sanitizetest"
	"github.com/parleyhq/parley/providers/providertest"
)

// Issue 42, break 2: a provider error echoing the key split by any
// character a door strips (invisible, bidi, escape sequence, C0 or C1
// control) is not printed whole on the real binary's stderr, in
// `sessions show` or in the Markdown export; each still says the error.
func TestSplitKeyReachesNoTerminal(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the binary once per separator")
	}
	bin := buildParley(t)
	isolate(t)
	srv := providertest.OpenAI(t, func(r providertest.Request) providertest.Reply {
		return providertest.Reply{Status: 401, Text: sanitizetest.SplitKeyMessage(r.Messages[len(r.Messages)-1].Content)}
	})
	setenv(t, "OPENAI_API_KEY", sanitizetest.SplitKey)
	setenv(t, "OPENAI_BASE_URL", srv.URL)
	for i, name := range sanitizetest.SeparatorNames() {
		var stderr bytes.Buffer
		cmd := exec.Command(bin, "ask", sanitizetest.Question("chatgpt", i))
		cmd.Env, cmd.Dir, cmd.Stderr = envOf(t).env.Environ(), envOf(t).dir, &stderr
		if err := cmd.Run(); err == nil {
			t.Fatalf("key split by %s: ask succeeded against a 401", name)
		}
		sanitizetest.CheckScrubbed(t, "stderr", name, stderr.String())
		id := listSessions(t)[0].ID
		_, shown, _ := runCLI(t, "", "sessions", "show", id)
		sanitizetest.CheckScrubbed(t, "sessions show", name, shown)
		_, md, _ := runCLI(t, "", "sessions", "export", id, "--format", "md")
		sanitizetest.CheckScrubbed(t, "markdown export", name, md)
	}
}
