package mcp_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkDemoMagi is the protocol's overhead as a user pays it: one demo
// MAGI council (three rounds, the demo agents' realistic pace) asked of
// parley mcp over stdio by a client that keeps the server running, beside
// parley --demo magi run as a process, in one run.
//
//	go test ./cmd/parley/internal/mcp -run '^$' -bench DemoMagi -benchtime 5x
func BenchmarkDemoMagi(b *testing.B) {
	const question = "Ship on Friday?"
	b.Run("cli", func(b *testing.B) {
		db := filepath.Join(b.TempDir(), "cli.db")
		env := cleanEnv(b)
		for b.Loop() {
			cmd := exec.Command(parleyBin, "--demo", "--db", db, "magi", question)
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("parley --demo magi: %v\n%s", err, out)
			}
		}
	})
	b.Run("mcp-stdio", func(b *testing.B) {
		c := stdioClient(b, filepath.Join(b.TempDir(), "mcp.db"), nil, "--demo")
		var out struct{ Verdict string }
		for b.Loop() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			c.call(b, ctx, "magi", map[string]any{"question": question}, &out, nil)
			cancel()
			if out.Verdict == "" {
				b.Fatal("no verdict")
			}
		}
	})
}
