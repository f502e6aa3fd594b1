package mcp_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkDemoMagi is the protocol's overhead as a user pays it: one demo
// MAGI council (three rounds, the demo agents' realistic pace) asked of
// parley mcp over stdio by a client that keeps the server running, beside
// parley --demo magi run as a process, in one run; wall time per council
// (ns/op) and the parley process's CPU per council (cpu-ms/op).
//
//	go test ./cmd/parley/internal/mcp -run '^$' -bench DemoMagi -benchtime 5x
func BenchmarkDemoMagi(b *testing.B) {
	const question = "Ship on Friday?"
	b.Run("cli", func(b *testing.B) {
		db := filepath.Join(b.TempDir(), "cli.db")
		env := cleanEnv(b)
		var cpu time.Duration
		for b.Loop() {
			cmd := exec.Command(parleyBin(b), "--demo", "--db", db, "magi", question)
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("parley --demo magi: %v\n%s", err, out)
			}
			cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
	})
	b.Run("mcp-stdio", func(b *testing.B) {
		cmd := exec.Command(parleyBin(b), "--demo", "--db", filepath.Join(b.TempDir(), "mcp.db"), "mcp")
		cmd.Env = cleanEnv(b)
		c := connect(b, &mcp.CommandTransport{Command: cmd})
		var out struct{ Verdict string }
		var cpu time.Duration
		for b.Loop() {
			before := processCPU(b, cmd.Process.Pid)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			c.call(b, ctx, "magi", map[string]any{"question": question}, &out, nil)
			cancel()
			cpu += processCPU(b, cmd.Process.Pid) - before
			if out.Verdict == "" {
				b.Fatal("no verdict")
			}
		}
		b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
	})
}

// processCPU is a running process's user and system time (Linux /proc).
func processCPU(b *testing.B, pid int) time.Duration {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Skipf("process CPU needs /proc: %v", err)
	}
	// Fields after the command name (which may hold spaces) start at ")".
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		b.Fatalf("/proc/%d/stat: %q", pid, stat)
	}
	const ticksPerSecond = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticksPerSecond
}
