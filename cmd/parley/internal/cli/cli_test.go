package cli

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
)

func TestExitCodes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{errors.New("provider down"), ExitRuntime},
		{Usage(errors.New("bad flag")), ExitUsage},
		{fmt.Errorf("wrapped: %w", Usage(errors.New("bad flag"))), ExitUsage},
		{&config.ConfigError{File: "f", Key: "k", Problem: "p"}, ExitUsage},
		{&debate.UnknownAgentError{Name: "x"}, ExitUsage},
		{NoDecisionError{Reason: "INCOMPLETE"}, ExitNoDecision},
	} {
		if got := ExitCode(c.err); got != c.want {
			t.Errorf("ExitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
	if Usage(nil) != nil {
		t.Error("Usage(nil) is not nil")
	}
}

func TestReadQuestion(t *testing.T) {
	t.Parallel()
	if q, err := ReadQuestion([]string{"is", "it", "ok?"}, nil); err != nil || q != "is it ok?" {
		t.Fatalf("args: %q %v", q, err)
	}
	if q, err := ReadQuestion([]string{"-"}, strings.NewReader("  from stdin \n")); err != nil || q != "from stdin" {
		t.Fatalf("stdin: %q %v", q, err)
	}
	if _, err := ReadQuestion([]string{"-"}, strings.NewReader("  ")); ExitCode(err) != ExitUsage {
		t.Fatalf("empty question: %v", err)
	}
}
