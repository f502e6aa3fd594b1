package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
)

// parley serve --demo: the first line names the address; the API, the
// page and a council answer; cancelling (as SIGTERM does) exits 0.
func TestServeCommandDemo(t *testing.T) {
	t.Parallel()
	isolate(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, errOut, code := startServe(ctx, t, "--demo", "serve", "--addr", "127.0.0.1:0")
	for _, path := range []string{"/api/v1/openapi.json", "/"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s: %d", path, resp.StatusCode)
		}
	}
	resp, err := http.Post(base+"/api/v1/magi", "application/json", strings.NewReader(`{"question":"ship on friday?","single_round":true}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"verdict"`) {
		t.Errorf("magi: %d %s", resp.StatusCode, body)
	}
	cancel()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d: %s", c, errOut.String())
	}
	c, out, _ := runCLI(t, "", "webhooks", "log")
	if c != 0 || !strings.HasPrefix(out, "TIME") {
		t.Errorf("webhooks log: exit %d: %q", c, out)
	}
}

// startServe runs parley with args (a serve command) in process until ctx
// ends: its base URL from its first line, its stderr, and its exit code
// once it has ended.
func startServe(ctx context.Context, t *testing.T, args ...string) (base string, errOut *bytes.Buffer, code <-chan int) {
	t.Helper()
	return startServeWith(ctx, t, modes.All(), args...)
}

// startServeWith is startServe for a program that knows the modes known.
func startServeWith(ctx context.Context, t *testing.T, known config.ModeList, args ...string) (base string, errOut *bytes.Buffer, code <-chan int) {
	t.Helper()
	pr, pw := io.Pipe()
	errOut = &bytes.Buffer{}
	exit := make(chan int, 1)
	go func() {
		exit <- executeWith(t, ctx, known, args, strings.NewReader(""), pw, errOut)
		pw.Close()
	}()
	deadline := time.AfterFunc(30*time.Second, func() { pr.CloseWithError(errors.New("no first line within 30s")) })
	line, err := bufio.NewReader(pr).ReadString('\n')
	deadline.Stop()
	if err != nil {
		t.Fatalf("%v (stderr: %s)", err, errOut.String())
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if !regexp.MustCompile(`^listening on http://127\.0\.0\.1:\d+\n$`).MatchString(line) {
		t.Fatalf("first line %q", line)
	}
	return strings.TrimSpace(strings.TrimPrefix(line, "listening on ")), errOut, exit
}

// Any address but loopback needs PARLEY_SERVE_TOKEN.
func TestServeRefusesOpenAddressWithoutToken(t *testing.T) {
	t.Parallel()
	isolate(t)
	setenv(t, "PARLEY_SERVE_TOKEN", "")
	code, _, stderr := runCLI(t, "", "--demo", "serve", "--addr", "0.0.0.0:0")
	if code != 2 || !strings.Contains(stderr, "PARLEY_SERVE_TOKEN") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

// A token shorter than 16 characters is refused for an open address, and
// --tls-cert needs --tls-key.
func TestServeRefusesShortTokenAndHalfTLS(t *testing.T) {
	t.Parallel()
	isolate(t)
	setenv(t, "PARLEY_SERVE_TOKEN", "short-token")
	code, _, stderr := runCLI(t, "", "--demo", "serve", "--addr", "0.0.0.0:0")
	if code != 2 || !strings.Contains(stderr, "16 or more") {
		t.Fatalf("short token: exit %d: %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "", "--demo", "serve", "--addr", "127.0.0.1:0", "--tls-cert", "cert.pem")
	if code != 2 || !strings.Contains(stderr, "--tls-key") {
		t.Fatalf("half TLS: exit %d: %s", code, stderr)
	}
}
