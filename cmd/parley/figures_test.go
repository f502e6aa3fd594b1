package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// runBinary runs the real parley with stdin and extra environment, and
// returns its exit code and output.
func runBinary(t *testing.T, bin, stdin string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	if e := envOf(t); e != nil { // isolate's environment and folder, not the process's
		cmd.Env, cmd.Dir = append(e.env.Environ(), env...), e.dir
	}
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, out.String(), errOut.String()
}

// Break 1 of issue 42: NaN turned off every cap (every comparison with NaN
// is false), so under --max-cost NaN a provider reporting 5M+5M tokens a
// call ran every call at $60 each and exited 0. Every way in for a cap
// now refuses it as a configuration error (exit 2) before any call.
func TestNaNCapsAreRefusedBeforeAnyCall(t *testing.T) {
	bin := buildParley(t) // before isolate leaves the module
	t.Parallel()
	dir := isolate(t)
	srv := magiFakeVendors(t, func(string, int) providertest.Reply {
		return providertest.Reply{Text: "hi", Usage: providers.Usage{InputTokens: 5_000_000, OutputTokens: 5_000_000}}
	})
	calls := func() int {
		n := 0
		for _, s := range srv {
			n += len(s.Requests())
		}
		return n
	}
	db := dir + "/n.db"
	lines := "@claude a\n@claude b\n"
	if err := os.WriteFile(dir+"/nan.yaml", []byte("budget_usd: .nan\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"repl --max-cost NaN", nil, []string{"--db", db, "repl", "--max-cost", "NaN"}, "--max-cost: NaN is not a finite amount"},
		{"ask --max-cost nan", nil, []string{"--db", db, "ask", "--max-cost", "nan", "@claude a"}, "--max-cost: NaN is not a finite amount"},
		{"ask --max-cost +Inf", nil, []string{"--db", db, "ask", "--max-cost", "+Inf", "@claude a"}, "--max-cost: +Inf is not a finite amount"},
		{"magi --max-cost 1e9", nil, []string{"--db", db, "magi", "--max-cost", "1e9", "ship?"}, "--max-cost: 1e+09 is over $100,000"},
		{"PARLEY_BUDGET_USD=NaN", []string{"PARLEY_BUDGET_USD=NaN"}, []string{"--db", db, "repl"}, `PARLEY_BUDGET_USD="NaN" (budget_usd): NaN is not a finite amount`},
		{"budget_usd: .nan", nil, []string{"--config", dir + "/nan.yaml", "--db", db, "repl"}, "nan.yaml:1: budget_usd: NaN is not a finite amount"},
		{"config check", nil, []string{"--config", dir + "/nan.yaml", "config", "check"}, "nan.yaml:1: budget_usd: NaN is not a finite amount"},
		{"serve --max-cost NaN", nil, []string{"--db", db, "serve", "--addr", "127.0.0.1:0", "--max-cost", "NaN"}, "--max-cost: NaN is not a finite amount"},
		{"serve --max-cost-per-hour NaN", nil, []string{"--db", db, "serve", "--addr", "127.0.0.1:0", "--max-cost-per-hour", "NaN"}, "--max-cost-per-hour: NaN is not a finite amount"},
		{"serve --max-cost-per-day Inf", nil, []string{"--db", db, "serve", "--addr", "127.0.0.1:0", "--max-cost-per-day", "Inf"}, "--max-cost-per-day: +Inf is not a finite amount"},
		{"mcp --max-cost NaN", nil, []string{"--db", db, "mcp", "--max-cost", "NaN"}, "--max-cost: NaN is not a finite amount"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runBinary(t, bin, lines, c.env, c.args...)
			if code != cli.ExitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, cli.ExitUsage, c.want)
			}
			if n := calls(); n != 0 {
				t.Errorf("%d calls reached the providers", n)
			}
		})
	}
	// The same lines under a real cap: the first call costs $60, past the
	// cap of $1, and the second never starts.
	code, _, stderr := runBinary(t, bin, lines, nil, "--db", db, "repl", "--max-cost", "1")
	if code != cli.ExitCapReached || !strings.Contains(stderr, "cost cap reached") {
		t.Errorf("--max-cost 1: exit %d, %q; want the cap reached", code, stderr)
	}
	if n := calls(); n != 1 {
		t.Errorf("--max-cost 1: %d calls, want 1", n)
	}
}
