package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
)

// manualDemoCommands are the commands of the README and docs/ that run the
// offline demo: lines of their code blocks and inline code that call parley
// with --demo (`go run ./cmd/parley` counts as parley), comments dropped.
func manualDemoCommands(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("docs/: %v (%d pages)", err, len(pages))
	}
	var b []byte
	for _, file := range append([]string{"../../README.md"}, pages...) {
		page, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		b = append(append(b, page...), '\n')
	}
	var found []string
	add := func(line string) {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "$ "))
		if i := strings.Index(line, "   #"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		line = strings.ReplaceAll(line, "go run ./cmd/parley", "parley")
		// A command the manual shows on several pages runs once.
		if strings.Contains(line, "--demo") && regexp.MustCompile(`(^|\| )parley `).MatchString(line) && !slices.Contains(found, line) {
			found = append(found, line)
		}
	}
	inBlock := false
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "```") {
			inBlock = !inBlock
			continue
		}
		if inBlock {
			add(l)
			continue
		}
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(l, -1) {
			add(m[1])
		}
	}
	return found
}

// Every --demo command in the manual runs as written, offline, with the
// built binary (all at once): headless ones to the end (exit 0, or 3 for a council that
// decided nothing), the console and the servers only as far as their flags.
func TestManualDemoCommandsRun(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short")
	}
	cmds := manualDemoCommands(t)
	if len(cmds) < 8 {
		t.Fatalf("found only %d --demo commands in the manual: %q", len(cmds), cmds)
	}
	dir := t.TempDir()
	bin := filepath.Dir(buildParley(t))
	for i, c := range cmds {
		line := c
		fields := strings.Fields(line[strings.LastIndex(line, "parley "):])
		sub := ""
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") {
				sub = f
				break
			}
		}
		if sub == "" || sub == "serve" || sub == "mcp" {
			line += " --help" // the console and the servers wait for a person or a client
		}
		t.Run(strings.Join(fields[:min(len(fields), 4)], " "), func(t *testing.T) {
			t.Parallel() // each in its own directory, home and database
			work := filepath.Join(dir, "w", string(rune('a'+i%26))+strings.Repeat("x", i/26))
			if err := os.MkdirAll(work, 0o755); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			sh := exec.CommandContext(ctx, "sh", "-c", line)
			sh.Dir = work
			sh.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + work, "XDG_CONFIG_HOME=" + work, "XDG_DATA_HOME=" + work,
				"PARLEY_DB=" + filepath.Join(work, "p.db"), "OPENAI_BASE_URL=http://127.0.0.1:1/v1", fastDemo}
			out, err := sh.CombinedOutput()
			code := sh.ProcessState.ExitCode()
			if ctx.Err() != nil || (code != 0 && code != cli.ExitNoDecision) {
				t.Errorf("%s: exit %d (%v)\n%s", line, code, err, out)
			}
		})
	}
}
