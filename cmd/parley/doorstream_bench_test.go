package main

import (
	"bufio"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkDoorStream: the server's CPU per streamed chunk of an
// OpenAI-door completion (stream: true, model chatgpt, 2,000 chunks from
// the wire-level fake) beside a minimal Go SSE relay (testdata/sserelay)
// passing the same upstream stream through, each process's CPU from /proc,
// five requests each in turn.
//
//	go test -run '^$' -bench BenchmarkDoorStream -benchtime 1x ./cmd/parley/
func BenchmarkDoorStream(b *testing.B) {
	const n, rounds = 2000, 5
	fake := chunkFake(b, n)
	relayBin := filepath.Join(b.TempDir(), "sserelay")
	if out, err := exec.Command("go", "build", "-o", relayBin, "./testdata/sserelay").CombinedOutput(); err != nil {
		b.Fatalf("building sserelay: %v\n%s", err, out)
	}
	relay := exec.Command(relayBin, fake.URL+"/responses")
	out, err := relay.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := relay.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = relay.Process.Kill(); _ = relay.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	relayURL := strings.TrimSpace(line)
	srv := startSoakServer(b, fake.URL)
	defer srv.stop(b)
	relayProc := &soakServer{cmd: relay}
	client := &http.Client{Timeout: 5 * time.Minute}
	drain := func(url, body string) {
		resp, err := client.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(data), "w9") {
			b.Fatalf("POST %s: %d %.300s", url, resp.StatusCode, data)
		}
	}
	for range b.N {
		var door, floor time.Duration
		for range rounds {
			c0 := srv.cpu(b)
			drain(srv.base+"/v1/chat/completions", `{"model":"chatgpt","stream":true,"messages":[{"role":"user","content":"count"}]}`)
			door += srv.cpu(b) - c0
			r0 := relayProc.cpu(b)
			drain(relayURL, `{"model":"gpt-6.1-sol","stream":true,"input":[{"role":"user","content":"count"}]}`)
			floor += relayProc.cpu(b) - r0
		}
		perDoor, perRelay := float64(door)/rounds/n/1e3, float64(floor)/rounds/n/1e3
		b.Logf("door %.1f µs of server CPU a streamed chunk, minimal relay %.1f µs (%.2f×)", perDoor, perRelay, perDoor/perRelay)
		b.ReportMetric(perDoor, "door-µs/chunk")
		b.ReportMetric(perRelay, "relay-µs/chunk")
	}
}
