package tui

import (
	"strings"
	"testing"
)

// /title renames the open session through the engine (whose event the
// store saves); /title alone explains itself and changes nothing.
func TestTitleCommandRenamesTheSession(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	m := New(testOptions(e))
	tm := start(t, m, 100, 30)
	typeLine(tm, "/title")
	waitFor(t, tm, "the usage", func(m *Model) bool { return m.statusErr && strings.Contains(m.status, "usage: /title") })
	typeLine(tm, "/title Kafka  migration vote")
	waitFor(t, tm, "the rename", func(m *Model) bool {
		return m.info.Title == "Kafka migration vote" && strings.Contains(m.status, `session titled "Kafka migration vote"`)
	})
	if got := e.Info().Title; got != "Kafka migration vote" {
		t.Fatalf("engine title %q", got)
	}
}
