package headless

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/dialogue"
	"github.com/parleyhq/parley/debate/evidence"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers"
)

// --- alternate ----------------------------------------------------------------

func (p *Printer) alternate(ev debate.Event) {
	step, ok := ev.(dialogue.AlternateStepFinished)
	if !ok {
		return
	}
	p.lastAlt = &step
	if p.opts.Format == JSON {
		if line, err := step.Turn.JSONLine(); err == nil {
			fmt.Fprintf(p.out, "%s\n", line)
		}
		return
	}
	label := "start"
	if step.Step > 0 {
		label = fmt.Sprintf("step %d", step.Step)
	}
	for _, en := range step.Turn.Entries {
		head := fmt.Sprintf("[%s] (%s, %s tok)", sanitize.Text(en.Display), label, Thousands(en.Usage.Total()))
		if en.Status == transcript.StatusError && strings.TrimSpace(en.Text) == "" {
			fmt.Fprintf(p.out, "%s: %s\n", head, TurnBody(en))
			continue
		}
		fmt.Fprintf(p.out, "%s: %s\n\n", head, TurnBody(en))
	}
	fmt.Fprintf(p.out, "%s\n\n", sanitize.Text(step.Sentence))
}

// --- talk ---------------------------------------------------------------------

// talkLine is one turn in talk --json output, in the shape of the store's log rows.
type talkLine struct {
	Turn        int     `json:"turn"`
	Round       int     `json:"round"`
	Speaker     string  `json:"speaker"`
	Display     string  `json:"display"`
	Model       string  `json:"model"`
	IsModerator bool    `json:"is_moderator"`
	Status      string  `json:"status"`
	Text        string  `json:"text"`
	Error       string  `json:"error,omitempty"`
	TokensIn    int     `json:"tokens_in"`
	TokensOut   int     `json:"tokens_out"`
	Cost        float64 `json:"cost_usd"`
}

func (p *Printer) talkJSON(en transcript.Entry) {
	b, _ := json.Marshal(talkLine{Turn: en.Turn, Round: en.Round, Speaker: en.Speaker, Display: en.Display, Model: en.Model,
		IsModerator: en.IsModerator, Status: string(en.Status), Text: en.Text, Error: en.Error,
		TokensIn: en.Usage.InputTokens, TokensOut: en.Usage.OutputTokens, Cost: en.Cost})
	fmt.Fprintf(p.out, "%s\n", b)
}

// --- agent --------------------------------------------------------------------

func (p *Printer) agent(ev debate.Event) {
	switch ev := ev.(type) {
	case debate.ToolActivity:
		if ev.Done {
			p.flushSlip()
			fmt.Fprintf(p.err, "  %s\n", sanitize.Text(ToolLine(ev.Call)))
		}
	case debate.EntryAdded:
		if en := ev.Entry; en.Kind == transcript.KindToolResult && en.Error != "" {
			if en.Error != p.slip {
				p.flushSlip()
			}
			p.slip = en.Error
			p.slips++
		}
	case debate.AgentAnswered:
		p.flushSlip()
		p.answered = true
		if ev.Complete {
			fmt.Fprintf(p.out, "%s\n", strings.TrimSpace(sanitize.Text(ev.Answer)))
		}
		n, calls := ev.Steps, len(ev.ToolCalls)
		fmt.Fprintf(p.err, "— %d %s, %d tool %s, %s tokens (%s in, %s out), %s\n",
			n, Plural(n, "step", "steps"), calls, Plural(calls, "call", "calls"),
			Thousands(ev.Usage.Total()), Thousands(ev.Usage.InputTokens), Thousands(ev.Usage.OutputTokens),
			providers.FormatUsageCost(ev.Cost, ev.Usage))
	}
}

// flushSlip shows the pending streak of one protocol error once, with its
// count: a model that repeats a slip gets one line, not one per reply.
func (p *Printer) flushSlip() {
	if p.slips == 0 {
		return
	}
	line := fmt.Sprintf("  ! reply had no usable tool call (%s); asked to retry", sanitize.Text(p.slip))
	if p.slips > 1 {
		line += fmt.Sprintf(" (%d times)", p.slips)
	}
	fmt.Fprintln(p.err, line)
	p.slip, p.slips = "", 0
}

// agentSummary is the last line of `parley agent --json`.
type agentSummary struct {
	Type      string                `json:"type"` // "summary"
	Agent     string                `json:"agent"`
	Status    string                `json:"status"` // ok or error
	Summary   string                `json:"summary"`
	Error     string                `json:"error,omitempty"`
	Steps     int                   `json:"steps"`      // model replies
	ToolCalls int                   `json:"tool_calls"` // list_file and read_file calls run
	Calls     []transcript.ToolCall `json:"calls"`      // those calls, with their results
	Usage     providers.Usage       `json:"usage"`
	Cost      float64               `json:"cost_usd"`
}

func (p *Printer) agentSummary(a debate.AgentAnswered) {
	p.answered = true
	if p.opts.Format != JSON {
		return
	}
	out := agentSummary{Type: "summary", Agent: a.Agent, Status: "ok", Summary: a.Answer,
		Steps: a.Steps, ToolCalls: len(a.ToolCalls), Calls: a.ToolCalls, Usage: a.Usage, Cost: a.Cost}
	if out.Calls == nil {
		out.Calls = []transcript.ToolCall{}
	}
	if !a.Complete {
		out.Status, out.Summary, out.Error = "error", "", a.Error
	}
	b, _ := json.Marshal(out)
	fmt.Fprintf(p.out, "%s\n", b)
}

// --- magi ---------------------------------------------------------------------

var magiRoundNames = map[int]string{1: "independent", 2: "deliberation", 3: "final vote"}

// MagiHeader is the text printed before a council: question and members.
func MagiHeader(question string, members []*debate.Agent) string {
	var parts []string
	for _, a := range members {
		parts = append(parts, fmt.Sprintf("%s (%s/%s)", a.Label(), a.Provider.Name(), a.Model))
	}
	return fmt.Sprintf("MAGI council: %s\nmembers: %s\n", sanitize.Text(firstLineOf(question)), sanitize.Text(strings.Join(parts, " · ")))
}

func (p *Printer) magi(ev debate.Event) {
	switch ev := ev.(type) {
	case verdict.MagiRoundFinished:
		if p.opts.Format == Text {
			p.magiRound(ev.Round, ev.Votes)
		}
	case verdict.MagiDecided:
		if p.opts.Format == JSON {
			_ = WriteMagiJSON(p.out, p.session, ev.MagiResult)
			return
		}
		p.magiOutcome(ev.MagiResult)
	}
}

func (p *Printer) magiRound(round int, votes []verdict.MagiVote) {
	w := p.out
	fmt.Fprintf(w, "\nRound %d · %s\n", round, magiRoundNames[round])
	width := 0
	for _, v := range votes {
		width = max(width, len(v.Display))
	}
	for _, v := range votes {
		line := sanitize.Text(v.Summary)
		if !v.Valid {
			line = sanitize.Text(v.Error)
		}
		if v.Attempts > 1 {
			line += " (asked twice)"
		}
		fmt.Fprintf(w, "  %-*s  %-7s  %s\n", width, sanitize.Text(v.Display), strings.ToUpper(string(v.Vote)), strings.TrimSpace(line))
		if p.opts.Verbose && v.Valid {
			for _, l := range strings.Split(strings.TrimSpace(sanitize.Text(v.Reasoning)), "\n") {
				fmt.Fprintf(w, "  %*s           %s\n", width, "", l)
			}
		}
	}
}

func (p *Printer) magiOutcome(res verdict.MagiResult) {
	w := p.out
	displays := map[string]string{}
	for _, u := range res.Agents {
		displays[u.Agent] = sanitize.Text(u.Display)
	}
	if len(res.Rounds) > 1 {
		fmt.Fprintln(w, "\nVote changes")
		if len(res.Flips) == 0 {
			fmt.Fprintln(w, "  none")
		}
		for _, f := range res.Flips {
			said := fmt.Sprintf("argued (%s)", verdict.NewWordsPhrase(f.NewWords))
			if f.Conformity {
				said = fmt.Sprintf("CONFORMITY: no new argument (%s)", verdict.NewWordsPhrase(f.NewWords))
			}
			fmt.Fprintf(w, "  %s  round %d→%d  %s → %s  %s\n", displays[f.Agent], f.FromRound, f.ToRound, f.From, f.To, said)
		}
	}
	fmt.Fprintln(w)
	if res.Cancelled && p.capped {
		printBanner(w, "MAGI: stopped at the cost cap, no verdict")
	} else if res.Cancelled {
		printBanner(w, "MAGI: cancelled, no verdict")
	} else {
		printBanner(w, fmt.Sprintf("MAGI VERDICT: %s", sanitize.Text(string(res.Verdict))))
		fmt.Fprintln(w, sanitize.Text(res.Sentence))
	}
	fmt.Fprintln(w, "\nTokens and cost")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	calls := 0
	for _, u := range res.Agents {
		fmt.Fprintf(tw, "  %s\t%s/%s\t%s\t%s\t%s\n", sanitize.Text(u.Display), u.Provider, sanitize.Text(u.Model),
			Plural(u.Calls, "1 call", fmt.Sprintf("%d calls", u.Calls)), TokenLine(u.Usage), providers.FormatUsageCost(u.Cost, u.Usage))
		calls += u.Calls
	}
	fmt.Fprintf(tw, "  total\t\t%d calls\t%s\t%s\n", calls, TokenLine(res.Usage), providers.FormatUsageCost(res.Cost, res.Usage))
	_ = tw.Flush()
}

// TokenLine is "N in (C cached) · M out".
func TokenLine(u providers.Usage) string {
	s := Thousands(u.InputTokens) + " in"
	if u.CachedTokens > 0 {
		s += " (" + Thousands(u.CachedTokens) + " cached)"
	}
	s += " · " + Thousands(u.OutputTokens) + " out"
	if u.ReasoningTokens > 0 {
		s += " (" + Thousands(u.ReasoningTokens) + " reasoning)"
	}
	return s
}

func printBanner(w interface{ Write([]byte) (int, error) }, text string) {
	bar := strings.Repeat("═", len([]rune(text))+4)
	fmt.Fprintf(w, "╔%s╗\n║  %s  ║\n╚%s╝\n", bar, text, bar)
}

func firstLineOf(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// MagiDocUsage is tokens and cost in the MAGI document.
type MagiDocUsage struct {
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CachedTokens     int     `json:"cached_tokens"` // part of prompt_tokens
	CostUSD          float64 `json:"cost_usd"`
}

// MagiDocVote is one member's vote of one round in the MAGI document.
type MagiDocVote struct {
	Agent      string       `json:"agent"`
	Provider   string       `json:"provider"`
	Model      string       `json:"model"`
	Round      int          `json:"round"`
	Vote       string       `json:"vote"`
	Answer     string       `json:"answer,omitempty"` // answer-type councils
	Confidence *float64     `json:"confidence,omitempty"`
	Reasoning  string       `json:"reasoning"`
	Summary    string       `json:"summary"`
	Valid      bool         `json:"valid"`
	Error      string       `json:"error"`
	Usage      MagiDocUsage `json:"usage"`
	// Evidence is what the vote says it rests on; Citations the core's
	// check of it (set when the council's members had tools; docs/tools.md).
	Evidence  []string        `json:"evidence,omitempty"`
	Citations *evidence.Check `json:"citations,omitempty"`
}

// MagiDocument is parley magi --json's document: the HTTP API's and the
// MCP magi tool's result too.
type MagiDocument struct {
	// SessionID is the session the council was saved in (MCP's magi
	// tool sets its own, with the cancelled flag beside it).
	SessionID string `json:"session_id,omitempty"`
	Question  string `json:"question"`
	Verdict   string `json:"verdict"`
	// Sentence is the outcome as every door words it
	// (verdict.VerdictSentence); absent for a cancelled council.
	Sentence string `json:"sentence,omitempty"`
	// AnswerType and Answer are set for answer-type councils only, so the
	// approve/reject document stays as it was.
	AnswerType   string `json:"answer_type,omitempty"`
	Answer       string `json:"answer,omitempty"`
	EarlyStopped bool   `json:"early_stopped,omitempty"`
	// How the council decided (adaptive stop, guard); see verdict.MagiResult.
	StopReason string          `json:"stop_reason,omitempty"`
	CallsSaved int             `json:"calls_saved,omitempty"`
	Rule       string          `json:"rule,omitempty"`
	Discounted []string        `json:"discounted,omitempty"`
	Rounds     [][]MagiDocVote `json:"rounds"`
	Flips      []verdict.Flip  `json:"flips"`
	Usage      MagiDocUsage    `json:"usage"`
	// Evidence is the council's evidence policy (optional, required) when
	// its votes' citations were checked.
	Evidence string `json:"evidence,omitempty"`
}

func jsonUsage(u providers.Usage, cost float64) MagiDocUsage {
	return MagiDocUsage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, CachedTokens: u.CachedTokens, CostUSD: cost}
}

// WriteMagiJSON prints the council as one JSON object: parley magi --json
// and the HTTP API's POST /api/v1/magi.
func WriteMagiJSON(w io.Writer, session string, res verdict.MagiResult) error {
	enc := sanitize.NewJSONEncoder(w)
	enc.SetIndent("", "  ")
	doc := MagiJSON(res)
	doc.SessionID = session
	return enc.Encode(doc)
}

// MagiJSON is the council's result as parley magi --json prints it.
func MagiJSON(res verdict.MagiResult) MagiDocument {
	out := MagiDocument{Question: res.Question, Verdict: string(res.Verdict), Sentence: res.Sentence, Flips: res.Flips, Usage: jsonUsage(res.Usage, res.Cost),
		AnswerType: string(res.AnswerType), Answer: res.Answer, EarlyStopped: res.EarlyStopped,
		StopReason: res.StopReason, CallsSaved: res.CallsSaved, Rule: res.Rule, Discounted: res.Discounted,
		Rounds: make([][]MagiDocVote, 0, len(res.Rounds)), Evidence: res.Evidence}
	if res.Cancelled {
		out.Verdict = "CANCELLED"
	}
	if out.Flips == nil {
		out.Flips = []verdict.Flip{}
	}
	for _, round := range res.Rounds {
		row := make([]MagiDocVote, 0, len(round))
		for _, v := range round {
			jv := MagiDocVote{Agent: v.Agent, Provider: v.Provider, Model: v.Model, Round: v.Round,
				Vote: string(v.Vote), Reasoning: v.Reasoning, Summary: v.Summary, Valid: v.Valid, Error: v.Error,
				Usage: jsonUsage(v.Usage, v.Cost), Evidence: v.Evidence}
			if res.Evidence != "" {
				c := v.Citations
				jv.Citations = &c
			}
			if res.AnswerType != "" && v.Valid {
				c := v.Confidence
				jv.Answer, jv.Confidence = v.Answer, &c
			}
			row = append(row, jv)
		}
		out.Rounds = append(out.Rounds, row)
	}
	return out
}
