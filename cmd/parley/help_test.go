package main

import (
	"os"
	"strings"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/manpage"
)

// `parley help TOPIC` is the page of docs/ itself (to a pipe: the Markdown
// with its headings' `#` marks taken off, issue 43 item 12), for every page; a command still gets its usage, and a name
// that is neither is a usage error naming the topics.
func TestHelpShowsTheManual(t *testing.T) {
	t.Parallel()
	topics := helpTopics()
	if len(topics) < 10 {
		t.Fatalf("help knows %d topics: %q", len(topics), topics)
	}
	for _, topic := range topics {
		want, err := os.ReadFile("../../docs/" + topic + ".md")
		if err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCLI(t, "", "help", topic)
		if code != 0 || out != string(manpage.Plain(want)) || strings.Contains(out, "\n## ") {
			t.Errorf("help %s: exit %d, %d bytes (want the %d of docs/%s.md)\n%s", topic, code, len(out), len(want), topic, errOut)
		}
	}
	code, out, _ := runCLI(t, "", "help", "ask")
	if code != 0 || !strings.Contains(out, "parley ask") {
		t.Errorf("help ask: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "", "help")
	if code != 0 || !strings.Contains(out, "parley help TOPIC") || !strings.Contains(out, "console, ") {
		t.Errorf("help: exit %d\n%s", code, out)
	}
	code, _, errOut := runCLI(t, "", "help", "nosuch")
	if code != cli.ExitUsage || !strings.Contains(errOut, "modes") {
		t.Errorf("help nosuch: exit %d\n%s", code, errOut)
	}
}
