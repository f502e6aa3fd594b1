package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// BenchmarkStartup runs `parley version` as a process beside a hello-world
// cobra + viper binary built from the same module versions
// (testdata/hellocli): the floor a Go CLI of this kind pays to start.
func BenchmarkStartup(b *testing.B) {
	dir := b.TempDir()
	bins := map[string]string{"parley": buildParley(b), "hellocli": filepath.Join(dir, "hellocli")}
	if msg, err := exec.Command("go", "build", "-o", bins["hellocli"], "./testdata/hellocli").CombinedOutput(); err != nil {
		b.Fatalf("building hellocli: %v\n%s", err, msg)
	}
	for _, name := range []string{"hellocli", "parley"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if out, err := exec.Command(bins[name], "version").CombinedOutput(); err != nil {
					b.Fatalf("%s version: %v\n%s", name, err, out)
				}
			}
		})
	}
}

// BenchmarkHeadlessStream: `parley ask` reading a 5,000-token answer from a
// fake OpenAI server that streams as fast as it can, beside curl reading
// the same stream; both report the child process's CPU time.
func BenchmarkHeadlessStream(b *testing.B) {
	dir := b.TempDir()
	bin := buildParley(b)
	chunks := make([]string, 5000)
	for i := range chunks {
		chunks[i] = " word"
	}
	srv := providertest.OpenAI(b, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Chunks: chunks, Usage: providers.Usage{InputTokens: 10, OutputTokens: 5000}}
	})
	yaml := fmt.Sprintf("providers:\n  openai: {type: openai, base_url: %s, api_key_env: PARLEY_BENCH_KEY, max_retries: 0}\n", srv.URL)
	if err := os.WriteFile(filepath.Join(dir, "parley.yaml"), []byte(yaml), 0o600); err != nil {
		b.Fatal(err)
	}
	env := append(os.Environ(), "PARLEY_BENCH_KEY=k", "XDG_DATA_HOME="+filepath.Join(dir, "data"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "HOME="+dir)
	// The stream parley reads: chatgpt's model is served over the Responses
	// API, whose events are larger than Chat Completions' chunks.
	body := `{"model":"gpt-6.1-sol","stream":true,"input":[{"role":"user","content":"hi"}]}`
	runs := map[string]func() *exec.Cmd{
		"parley": func() *exec.Cmd {
			c := exec.Command(bin, "ask", "@chatgpt count to five thousand")
			c.Dir, c.Env = dir, env
			return c
		},
		"curl": func() *exec.Cmd {
			return exec.Command("curl", "-sSN", "-o", os.DevNull, "-H", "Authorization: Bearer k", "-H", "Content-Type: application/json",
				"-d", body, srv.URL+"/responses")
		},
	}
	if _, err := exec.LookPath("curl"); err != nil {
		delete(runs, "curl")
	}
	for _, name := range []string{"curl", "parley"} {
		run, ok := runs[name]
		if !ok {
			continue
		}
		b.Run(name, func(b *testing.B) {
			var cpu time.Duration
			n := 0
			for b.Loop() {
				c := run()
				if out, err := c.CombinedOutput(); err != nil {
					b.Fatalf("%s: %v\n%.500s", name, err, out)
				}
				cpu += c.ProcessState.UserTime() + c.ProcessState.SystemTime()
				n++
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(n), "ms-cpu/op")
		})
	}
}
