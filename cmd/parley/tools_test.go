package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --tools is every agent's selection for the run: none takes the files
// away from claude (tools: true in the built-in configuration), an unknown
// tool is a usage error naming the tools, before any call.
func TestToolsFlagSelectsTheRunsTools(t *testing.T) {
	dir := isolate(t)
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# Rocket\nLaunch control software.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "--demo", "ask", "--tools", "none", "@claude read the code in this folder and explain it")
	if code != 0 || strings.Contains(stderr, "list_file") {
		t.Fatalf("--tools none: exit %d, stderr %s", code, stderr)
	}
	code, out, stderr := runCLI(t, "", "--demo", "ask", "--tools", "files,shell", "@claude hi")
	if code != 2 || out != "" || !strings.Contains(stderr, `--tools: unknown tool "shell" (the tools are files, fetch, web_search and mcp:NAME; none turns them off)`) {
		t.Fatalf("--tools shell: exit %d, out %q, stderr %s", code, out, stderr)
	}
	for _, cmd := range [][]string{{"magi", "x"}, {"council", "x"}, {"talk", "--topic", "x"}, {"alternate", "x"}, {"agent", "x"}, {"repl"}} {
		code, _, stderr := runCLI(t, "", append(append([]string{"--demo"}, cmd...), "--tools", "bogus")...)
		if code != 2 || !strings.Contains(stderr, `unknown tool "bogus"`) {
			t.Errorf("%s --tools bogus: exit %d, %s", cmd[0], code, stderr)
		}
	}
}
