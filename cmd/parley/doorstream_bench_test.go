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
// the wire-level fake) beside two floors passing the same upstream stream
// through: a minimal Go SSE relay (testdata/sserelay: lines copied, no
// decoding) and the SDK relay (testdata/sdkstream relay: go-openai, the
// SDK Parley's provider uses, decoding each event, one JSON chunk out per
// delta, nothing of Parley's); each process's CPU from /proc, five
// requests each in turn.
//
//	go test -run '^$' -bench BenchmarkDoorStream -benchtime 1x ./cmd/parley/
func BenchmarkDoorStream(b *testing.B) {
	const n, rounds = 2000, 5
	fake := chunkFake(b, n)
	dir := b.TempDir()
	relay := startRelay(b, filepath.Join(dir, "sserelay"), "./testdata/sserelay", fake.URL+"/responses")
	sdk := startRelay(b, filepath.Join(dir, "sdkstream"), "./testdata/sdkstream", "relay", fake.URL)
	srv := startSoakServer(b, fake.URL)
	defer srv.stop(b)
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
	const upstream = `{"model":"gpt-6.1-sol","stream":true,"input":[{"role":"user","content":"count"}]}`
	for range b.N {
		var door, floor, sdkFloor time.Duration
		for range rounds {
			c0 := srv.cpu(b)
			drain(srv.base+"/v1/chat/completions", `{"model":"chatgpt","stream":true,"messages":[{"role":"user","content":"count"}]}`)
			door += srv.cpu(b) - c0
			r0 := relay.cpu(b)
			drain(relay.base, upstream)
			floor += relay.cpu(b) - r0
			s0 := sdk.cpu(b)
			drain(sdk.base, upstream)
			sdkFloor += sdk.cpu(b) - s0
		}
		perChunk := func(d time.Duration) float64 { return float64(d) / rounds / n / 1e3 }
		perDoor, perRelay, perSDK := perChunk(door), perChunk(floor), perChunk(sdkFloor)
		b.Logf("door %.1f µs of server CPU a streamed chunk, minimal relay %.1f µs (%.2f×), SDK relay %.1f µs (%.2f×)",
			perDoor, perRelay, perDoor/perRelay, perSDK, perDoor/perSDK)
		b.ReportMetric(perDoor, "door-µs/chunk")
		b.ReportMetric(perRelay, "relay-µs/chunk")
		b.ReportMetric(perSDK, "sdk-relay-µs/chunk")
	}
}

// startRelay builds the floor program pkg into bin, starts it with args
// and reads the address it prints first.
func startRelay(b *testing.B, bin, pkg string, args ...string) *soakServer {
	b.Helper()
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		b.Fatalf("building %s: %v\n%s", pkg, err, out)
	}
	cmd := exec.Command(bin, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("%s: %v", pkg, err)
	}
	return &soakServer{cmd: cmd, base: strings.TrimSpace(line)}
}
