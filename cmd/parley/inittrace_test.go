package main

import (
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// initLine is one line of GODEBUG=inittrace=1: a package initialiser's
// allocations.
var initLine = regexp.MustCompile(`(?m)^init (\S+) @.* ([0-9]+) bytes, ([0-9]+) allocs$`)

// Every command pays the binary's package initialisers before main, so
// none may build a registry the command does not use. chroma's lexers and
// styles (linked through glamour, for the console's code blocks) parsed
// ~300 XML definitions at start-up — 60,000 allocations, ~20 ms — until
// third_party/chroma filled them on first use; the whole binary's
// initialisers made 89,000 allocations then, ~30,000 after.
func TestStartupBuildsNoHighlighterRegistry(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(buildParley(t), "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("parley version: %v\n%s", err, out)
	}
	perPackage := map[string]int{}
	total, bytes := 0, 0
	for _, m := range initLine.FindAllStringSubmatch(string(out), -1) {
		b, _ := strconv.Atoi(m[2])
		n, _ := strconv.Atoi(m[3])
		perPackage[m[1]] += n
		total += n
		bytes += b
	}
	if len(perPackage) < 50 {
		t.Fatalf("read %d initialisers from GODEBUG=inittrace=1:\n%s", len(perPackage), out)
	}
	// The five lexers the lexers package makes by name (HTML, the Go
	// templates, the Lisps) are read on first use too (round 5): 753
	// allocations there before, 202 after.
	for pkg, most := range map[string]int{"github.com/alecthomas/chroma/v2/lexers": 400, "github.com/alecthomas/chroma/v2/styles": 2000} {
		if n, ok := perPackage[pkg]; !ok || n > most {
			t.Errorf("%s: %d allocations at start-up (linked: %v), want at most %d: its registry or a lexer is built before main", pkg, n, ok, most)
		}
	}
	// Parley's own tables a command may never use are built on first use:
	// the benchmark report's template (1,525 allocations), the API's schemas
	// and the login page (550 of serve's 1,100).
	for pkg, most := range map[string]int{"github.com/parleyhq/parley/cmd/parley/internal/bench": 200, "github.com/parleyhq/parley/cmd/parley/internal/serve": 700} {
		if n, ok := perPackage[pkg]; !ok || n > most {
			t.Errorf("%s: %d allocations at start-up (linked: %v), want at most %d: a template or table is built before main again", pkg, n, ok, most)
		}
	}
	// bluemonday (through glamour and the web view) and gorilla's CSS
	// scanner compiled ~80 regular expressions before main: 5,000
	// allocations and 1 MB, until third_party/bluemonday and
	// third_party/gorillacss compiled them on first use (issue 50, round 4).
	// goldmark's 18 patterns and case-folding map (2,700 allocations)
	// likewise, in third_party/goldmark; glamour's seven link patterns
	// (1,536) in third_party/glamour (round 5).
	for _, pkg := range []string{"github.com/microcosm-cc/bluemonday", "github.com/microcosm-cc/bluemonday/css", "github.com/gorilla/css/scanner",
		"github.com/yuin/goldmark/extension", "github.com/yuin/goldmark/parser", "github.com/yuin/goldmark/util",
		"charm.land/glamour/v2/internal/autolink"} {
		if n := perPackage[pkg]; n > 300 {
			t.Errorf("%s: %d allocations at start-up, want at most 300: its regular expressions are compiled before main again", pkg, n)
		}
	}
	// atotto/clipboard searched $PATH for five programs in its initialiser
	// (~50 failed stat calls); third_party/clipboard does it on first use.
	if n, ok := perPackage["github.com/atotto/clipboard"]; ok {
		t.Errorf("github.com/atotto/clipboard runs an initialiser again (%d allocations): it searches $PATH before main", n)
	}
	// Parley's own packages declare their patterns with
	// internal/lazyregexp, compiled on first use: ~45 patterns were 2,900
	// allocations and ~0.8 ms before main (issue 50, round 5); 166 are left
	// (small maps and tables).
	own := 0
	for pkg, n := range perPackage {
		if strings.HasPrefix(pkg, "github.com/parleyhq/parley/") {
			own += n
		}
	}
	if own > 300 {
		t.Errorf("Parley's own package initialisers made %d allocations, want at most 300: a pattern is compiled at start-up again (declare it with lazyregexp.New)", own)
	}
	if total > 20000 {
		t.Errorf("the package initialisers made %d allocations, want at most 20,000 (15,000 in round 4, 30,000 in round 1)", total)
	}
	// The collector's first cycle starts when the heap reaches 4 MB. With
	// the initialisers at 4.5 MB, 20 runs of parley version (GODEBUG=gctrace=1)
	// collected 25 times, 12 after genai's cut (3.6 MB); at 2.1 MB (round 4)
	// none, and version's CPU fell by 5 ms where bluemonday's initialisers
	// took 2.5.
	if bytes > 3<<20 {
		t.Errorf("the package initialisers allocated %d bytes, want at most 3 MiB (2.1 MB in round 4): past 4 MB every command pays a garbage collection before main", bytes)
	}
}

// The gemini adapter speaks to the Gemini API with an API key, so
// third_party/genai is genai without Google Cloud authentication, whose
// transport brought opencensus, gRPC, s2a-go and protobuf into every
// process, and without the SDK's replay helper (go-cmp, testing): ~6 ms of
// the 23 ms a `parley version` cost (issue 50, round 4). The binary's build
// information lists every module that gave it a package, and
// GODEBUG=inittrace=1 every package whose initialiser ran; neither may name
// them again.
func TestStartupLinksNoCloudAuth(t *testing.T) {
	t.Parallel()
	bin := buildParley(t)
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	gone := []string{"go.opencensus.io", "google.golang.org/grpc", "google.golang.org/protobuf", "github.com/google/s2a-go",
		"github.com/google/go-cmp", "cloud.google.com/go/auth", "cloud.google.com/go/compute", "github.com/googleapis/enterprise-certificate-proxy"}
	linked := map[string]bool{}
	for _, m := range info.Deps {
		linked[m.Path] = true
	}
	if !linked["google.golang.org/genai"] || !linked["github.com/spf13/cobra"] {
		t.Fatalf("the build information lists %d modules, without genai or cobra", len(info.Deps))
	}
	for _, m := range gone {
		if linked[m] {
			t.Errorf("module %s is linked into parley again (go mod why -m %s)", m, m)
		}
	}
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("parley version: %v\n%s", err, out)
	}
	inits := initLine.FindAllStringSubmatch(string(out), -1)
	if len(inits) < 50 {
		t.Fatalf("read %d initialisers from GODEBUG=inittrace=1:\n%s", len(inits), out)
	}
	for _, m := range inits {
		for _, g := range gone {
			if m[1] == g || strings.HasPrefix(m[1], g+"/") {
				t.Errorf("%s runs its initialiser in every command again", m[1])
			}
		}
	}
}

// A script's `parley ask` allocates ~3.5 MB in all, which paid one garbage
// collection (~1.5 ms of CPU) at the collector's first 4 MB goal;
// startheap.Raise holds the first cycle until 16 MB, so a one-chunk ask
// collects nothing (GODEBUG=gctrace=1 prints a line a cycle).
func TestOneAskCollectsNoGarbage(t *testing.T) {
	t.Parallel()
	srv := providertest.OpenAI(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Chunks: []string{"w1 "}, Usage: providers.Usage{InputTokens: 10, OutputTokens: 1}}
	})
	dir := t.TempDir()
	yaml := "providers:\n  openai: {type: openai, base_url: " + srv.URL + ", api_key_env: PARLEY_TEST_OPENAI_KEY, max_retries: 0}\n"
	if err := os.WriteFile(filepath.Join(dir, "parley.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(buildParley(t), "ask", "@chatgpt hi")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"PARLEY_CACHE_DIR="+filepath.Join(dir, "cache"), "PARLEY_TEST_OPENAI_KEY=k", "OPENAI_API_KEY=", "PARLEY_DB="+filepath.Join(dir, "parley.db"),
		"GOGC=", "GODEBUG=gctrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("parley ask: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "[ChatGPT]: w1") {
		t.Fatalf("parley ask did not answer:\n%s", out)
	}
	if n := strings.Count("\n"+string(out), "\ngc "); n != 0 {
		t.Errorf("one ask ran %d garbage collections, want none before the heap's first 16 MB:\n%s", n, out)
	}
}
