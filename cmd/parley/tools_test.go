package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/headless"
	"github.com/parleyhq/parley/debate/verdict"
)

// --tools is every agent's selection for the run: none takes the files
// away from claude (tools: true in the built-in configuration), an unknown
// tool is a usage error naming the tools, before any call.
func TestToolsFlagSelectsTheRunsTools(t *testing.T) {
	t.Parallel()
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

// The done test of issue 45 through the command line: `parley magi --tools
// fetch` on a local page (tools.fetch.allow_private) — the demo members
// fetch it, each call is a line on stderr with its evidence id, the votes
// cite it, the core checks them and the verdict states the coverage; the
// ledger is saved with the session. Without allow_private the same page is
// refused and nothing cites it.
func TestMagiWithFetchCitesEvidence(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<html><head><title>Bridge report</title></head><body><p>The bridge load limit is 40 tonnes.</p></body></html>`))
	}))
	defer srv.Close()
	cfg := filepath.Join(dir, "private-pages.yaml") // not ./parley.yaml: the second run must not find it
	if err := os.WriteFile(cfg, []byte("tools:\n  fetch:\n    allow_private: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	q := "Is the bridge at " + srv.URL + "/report safe for a 30 tonne truck?"
	code, out, stderr := runCLI(t, "", "--config", cfg, "--demo", "magi", "--tools", "fetch", "--json", q)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "fetch_url url="+srv.URL+"/report → E1 (") {
		t.Errorf("stderr lacks the call giving E1:\n%s", stderr)
	}
	var res headless.MagiDocument
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.HasSuffix(res.Sentence, "· 3 of 3 votes cite evidence") || res.Evidence != verdict.EvidenceOptional {
		t.Errorf("sentence %q (evidence %q)", res.Sentence, res.Evidence)
	}
	for _, v := range res.Rounds[len(res.Rounds)-1] {
		if !v.Valid || len(v.Evidence) == 0 || v.Citations == nil || !v.Citations.Supported() || len(v.Citations.Flags) != 0 {
			t.Errorf("%s: evidence %v, check %+v", v.Agent, v.Evidence, v.Citations)
		}
	}
	code, out, stderr = runCLI(t, "", "--demo", "magi", "--tools", "fetch", "--json", q)
	if code != 0 || !strings.Contains(stderr, "refused: 127.0.0.1 is a loopback address (tools.fetch.allow_private: true allows it)") ||
		strings.Contains(stderr, "→ E1") || !strings.Contains(out, "0 of 3 votes cite evidence") {
		t.Errorf("without allow_private: exit %d\n%s\n%s", code, stderr, out)
	}
}
