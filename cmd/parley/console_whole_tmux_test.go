package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestChairmanReadsWholeInTmux: at 60×16 a finished council's chairman
// panel showed one line ("real models)") under "↑ 11 more". In the real
// binary, with the panels focused (two Tabs), g shows the chairman's first
// line, PgDn walks on, and G its last; the ranking table comes back with
// the focus on the input.
func TestChairmanReadsWholeInTmux(t *testing.T) {
	t.Parallel()
	dir, bin := tmuxBinary(t)
	tm := startTmux(t, [2]int{60, 16}, fmt.Sprintf("cd %s && env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u GEMINI_API_KEY -u GOOGLE_API_KEY TERM=xterm-256color %s %s --demo --db %s",
		dir, fastDemo, bin, filepath.Join(dir, "parley.db")))
	tm.wait("the console", func(s string) bool { return strings.Contains(s, "1 mention") })
	tm.keys("M-6")
	tm.wait("council mode", func(s string) bool { return strings.Contains(s, "6 council") })
	tm.text("compare Kafka and NATS for a small team")
	tm.keys("Enter")
	tm.wait("the chairman's answer", func(s string) bool { return strings.Contains(s, "Chairman ✓") && strings.Contains(s, "\ndone ") })
	tm.keys("Tab")
	tm.keys("Tab")
	s := tm.wait("the chairman's panel focused", func(s string) bool { return strings.Contains(s, "┃ Chairman") })
	if strings.Contains(s, "Borda") {
		t.Errorf("the ranking table keeps its room while the panel is read:\n%s", s)
	}
	tm.keys("g")
	tm.wait("the chairman's first line", func(s string) bool {
		return strings.Contains(s, "┃ Chairman on compare Kafka and NATS for a small team:")
	})
	tm.keys("G")
	tm.wait("the chairman's last line", func(s string) bool {
		return strings.Contains(s, "real models)") && !strings.Contains(s, "Chairman on compare")
	})
	tm.keys("Tab")
	tm.wait("the table back", func(s string) bool { return strings.Contains(s, "Borda") && !strings.Contains(s, "┃") })
}
