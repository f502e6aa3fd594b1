package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
// fake OpenAI server that streams as fast as it can, beside two floors
// reading the same stream: curl -N (no decoding at all), sdkstream
// (testdata/sdkstream: go-openai, the SDK Parley's openai provider uses,
// decoding each event and writing the text, nothing of Parley's) and
// sdkstream's hand mode (the same with a bufio line reader and json into a
// two-field struct: how much of the SDK floor is the SDK). Each round
// runs the four in turn; each reports the child process's CPU for a
// one-token answer (NAME-fixed-ms: start-up and one exchange) and per token
// beyond it ((long − short) / 4,999: NAME-µs/token), so a process's
// start-up is not counted as streaming, and parley/curl is the issue's
// ratio.
//
//	go test -run '^$' -bench BenchmarkHeadlessStream -benchtime 5x ./cmd/parley/
func BenchmarkHeadlessStream(b *testing.B) {
	const long = 5000
	dir := b.TempDir()
	bin := buildParley(b)
	sdkBin := filepath.Join(dir, "sdkstream")
	if msg, err := exec.Command("go", "build", "-o", sdkBin, "./testdata/sdkstream").CombinedOutput(); err != nil {
		b.Fatalf("building sdkstream: %v\n%s", err, msg)
	}
	chunks := make([]string, long)
	for i := range chunks {
		chunks[i] = " word"
	}
	srv := providertest.OpenAI(b, func(r providertest.Request) providertest.Reply {
		if bytes.Contains(r.Body, []byte("once")) {
			return providertest.Reply{Chunks: chunks[:1], Usage: providers.Usage{InputTokens: 10, OutputTokens: 1}}
		}
		return providertest.Reply{Chunks: chunks, Usage: providers.Usage{InputTokens: 10, OutputTokens: long}}
	})
	yaml := fmt.Sprintf("providers:\n  openai: {type: openai, base_url: %s, api_key_env: PARLEY_BENCH_KEY, max_retries: 0}\n", srv.URL)
	if err := os.WriteFile(filepath.Join(dir, "parley.yaml"), []byte(yaml), 0o600); err != nil {
		b.Fatal(err)
	}
	env := append(os.Environ(), "PARLEY_BENCH_KEY=k", "XDG_DATA_HOME="+filepath.Join(dir, "data"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "HOME="+dir)
	// Each run reads the long answer, or the one-token one when question
	// says "once". The stream parley reads: chatgpt's model is served over
	// the Responses API, whose events are larger than Chat Completions'
	// chunks.
	runs := map[string]func(question string) *exec.Cmd{
		"parley": func(question string) *exec.Cmd {
			c := exec.Command(bin, "ask", "@chatgpt "+question)
			c.Dir, c.Env = dir, env
			return c
		},
		"sdk":  func(question string) *exec.Cmd { return exec.Command(sdkBin, "read", srv.URL, question) },
		"hand": func(question string) *exec.Cmd { return exec.Command(sdkBin, "hand", srv.URL, question) },
		"curl": func(question string) *exec.Cmd {
			body := fmt.Sprintf(`{"model":"gpt-6.1-sol","stream":true,"input":[{"role":"user","content":%q}]}`, question)
			return exec.Command("curl", "-sSN", "-o", os.DevNull, "-H", "Authorization: Bearer k", "-H", "Content-Type: application/json",
				"-d", body, srv.URL+"/responses")
		},
	}
	if _, err := exec.LookPath("curl"); err != nil {
		delete(runs, "curl")
	}
	cpuOf := func(b *testing.B, c *exec.Cmd) time.Duration {
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatalf("%s: %v\n%.500s", c.Path, err, out)
		}
		return c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	}
	for _, name := range []string{"sdk", "hand"} { // both decode the whole answer
		if out, err := runs[name]("count to five thousand").Output(); err != nil || string(out) != strings.Repeat(" word", long) {
			b.Fatalf("%s: %v: %d bytes of text, want %d", name, err, len(out), len(" word")*long)
		}
	}
	// Every round runs each program in turn, long answer then one token,
	// so a change in the machine's load falls on all of them alike; the
	// ratios are of the sums over the rounds.
	order := []string{"curl", "hand", "sdk", "parley"}
	var whole, fixed [4]time.Duration
	rounds := 0
	for b.Loop() {
		for i, name := range order {
			run, ok := runs[name]
			if !ok {
				continue
			}
			whole[i] += cpuOf(b, run("count to five thousand"))
			fixed[i] += cpuOf(b, run("say it once"))
		}
		rounds++
	}
	perToken := func(i int) float64 { return float64((whole[i] - fixed[i]).Microseconds()) / float64(rounds*(long-1)) }
	for i, name := range order {
		if _, ok := runs[name]; !ok {
			continue
		}
		b.ReportMetric(perToken(i), name+"-µs/token")
		b.ReportMetric(float64(fixed[i].Microseconds())/1000/float64(rounds), name+"-fixed-ms")
	}
	if _, ok := runs["curl"]; ok {
		b.ReportMetric(perToken(3)/perToken(0), "parley/curl")
		b.ReportMetric(perToken(1)/perToken(0), "hand/curl")
	}
	b.ReportMetric(perToken(3)/perToken(2), "parley/sdk")
}
