package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/parleyhq/parley/providers/providertest"
)

// The cut-stream scenario, measured: an OpenAI stream of 3,000
// words cut after 2,500, asked fifteen times in parley repl --max-cost
// 0.30 (fake provider). Every attempt is charged its prompt and the 2,500
// words it streamed (estimated), the cap stops the run before the call
// whose worst case no longer fits, and the exit is 4. The figures are
// logged for the closing note (go test ./cmd/parley -run TestCutStreamFigures -v).
func TestCutStreamFigures(t *testing.T) {
	t.Parallel()
	words := make([]string, 3000)
	for i := range words {
		words[i] = "word "
	}
	srv := providertest.OpenAI(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Chunks: words, CutAfter: 2500}
	})
	isolate(t)
	setenv(t, "OPENAI_API_KEY", "k1")
	setenv(t, "OPENAI_BASE_URL", srv.URL)
	lines := strings.Repeat("@chatgpt tell me a long story\n", 15)
	code, out, stderr := runCLI(t, lines, "--max-cost", "0.30", "repl")
	if code != 4 {
		t.Fatalf("exit %d, want 4 (cap reached):\n%s\n%s", code, out, stderr)
	}
	attempts := len(srv.Requests())
	code, listed, errOut := runCLI(t, "", "sessions", "list", "--json")
	var sessions []struct {
		TokensIn  int      `json:"tokens_in"`
		TokensOut int      `json:"tokens_out"`
		CostUSD   *float64 `json:"cost_usd"`
		Estimated bool     `json:"estimated"`
		Turns     int      `json:"turns"`
	}
	if err := json.Unmarshal([]byte(listed), &sessions); code != 0 || err != nil || len(sessions) != 1 {
		t.Fatalf("sessions list --json: exit %d, %v: %s %s", code, err, listed, errOut)
	}
	s := sessions[0]
	capLine := ""
	for _, l := range strings.Split(stderr+out, "\n") {
		if strings.Contains(l, "cost cap reached") {
			capLine = l
			break
		}
	}
	t.Logf("attempts sent %d; recorded %d in + %d out tokens, cost %v (estimated %v), %d turns; %s",
		attempts, s.TokensIn, s.TokensOut, *s.CostUSD, s.Estimated, s.Turns, capLine)
	// Five calls, each charged 3,125 output tokens (2,500 words of 5 bytes
	// at four bytes a token) and its estimated prompt; the sixth's worst
	// case ($0.1037) would pass $0.30.
	const wantCap = "parley: cost cap reached: the next call (ChatGPT on gpt-6.1-sol, up to $0.1037) could pass the cap of $0.30; spent $0.2388"
	if s.CostUSD == nil || *s.CostUSD < 0.238783 || *s.CostUSD > 0.238785 || !s.Estimated || attempts != 5 ||
		s.TokensOut != 5*3125 || s.TokensIn != 41267 || capLine != wantCap {
		t.Fatalf("cut streams not charged as streamed: %+v after %d attempts; cap line %q", s, attempts, capLine)
	}
}
