package store

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// Export writes session id as "md" (for people) or "json" (for machines;
// an agent session in the seed's AgentConversation shape). "session" is
// the whole session in the JSON export's shape whatever its mode: what
// ReadJSON reads back (json is the same but for agent sessions).
func (s *Store) Export(ctx context.Context, w io.Writer, id, format string) error {
	if format != "md" && format != "markdown" && format != "json" && format != "session" {
		return fmt.Errorf("unknown export format %q (md, json or session)", format)
	}
	info, entries, err := s.Load(ctx, id)
	if err != nil {
		return err
	}
	if format == "json" && info.Mode == "agent" {
		return WriteAgentJSON(w, info, entries) // the seed's agent conversation
	}
	if format == "json" || format == "session" {
		return WriteJSON(w, info, entries)
	}
	return WriteMarkdown(w, info, entries)
}

// ExportedSession is the JSON export: the seed's
// {conversation_id, messages:[{role, content, timestamp, tool_calls}]}
// with who said it, with which model, and what it cost.
type ExportedSession struct {
	// FormatVersion is ExportVersion when written; Import refuses a newer
	// one (0: written before the field existed, read as version 1).
	FormatVersion  int               `json:"format_version"`
	ConversationID string            `json:"conversation_id"`
	Title          string            `json:"title"`
	Mode           string            `json:"mode"`
	Topic          string            `json:"topic,omitempty"`
	Created        time.Time         `json:"created"`
	Parent         string            `json:"parent,omitempty"`
	ForkAt         int               `json:"fork_at,omitempty"`
	State          map[string]string `json:"state,omitempty"`
	Usage          providers.Usage   `json:"usage"`
	// Cost is null when a turn's model had no price (never 0; Usage's
	// price_unknown says so, and CostAtLeast is the priced turns' part).
	Cost        *float64          `json:"cost_usd"`
	CostAtLeast float64           `json:"cost_usd_at_least,omitempty"`
	Messages    []ExportedMessage `json:"messages"`
}

// costJSON is a cost as the JSON export writes it: null with the priced
// part apart when a price was unknown.
func costJSON(cost float64, unknown bool) (usd *float64, atLeast float64) {
	if unknown {
		return nil, cost
	}
	return &cost, 0
}

// ExportedMessage is one entry of the JSON export.
type ExportedMessage struct {
	Turn        int                   `json:"turn"`
	Role        string                `json:"role"` // user, assistant, system or tool
	Content     string                `json:"content"`
	Timestamp   time.Time             `json:"timestamp"`
	ToolCalls   []transcript.ToolCall `json:"tool_calls"`
	Kind        transcript.Kind       `json:"kind"`
	Speaker     string                `json:"speaker"`
	Display     string                `json:"display"`
	Provider    string                `json:"provider,omitempty"`
	Model       string                `json:"model,omitempty"`
	Mode        string                `json:"mode"`
	Round       int                   `json:"round,omitempty"`
	Prompt      string                `json:"prompt,omitempty"`
	Vote        string                `json:"vote,omitempty"`
	IsModerator bool                  `json:"is_moderator"`
	Status      transcript.Status     `json:"status"`
	Error       string                `json:"error,omitempty"`
	Usage       providers.Usage       `json:"usage"`
	Cost        *float64              `json:"cost_usd"` // null: the model had no price (usage.price_unknown)
	LatencyMS   int64                 `json:"latency_ms"`
	Covers      int                   `json:"covers,omitempty"` // a summary's last condensed turn
}

// ExportVersion is the version of the JSON export this Parley writes.
const ExportVersion = 1

// roleOf maps an entry to the chat role a reader of the export expects.
func roleOf(en transcript.Entry) string {
	switch en.Kind {
	case transcript.KindUser, transcript.KindNote:
		return "user"
	case transcript.KindToolResult:
		return "tool"
	case transcript.KindVerdict, transcript.KindError, transcript.KindSummary, transcript.KindOutcome:
		return "system"
	}
	if en.Speaker == transcript.SpeakerSystem {
		return "system"
	}
	return "assistant"
}

// WriteJSON writes the machine export of a session: the whole log,
// tool calls included, indented.
func WriteJSON(w io.Writer, info debate.SessionInfo, entries []transcript.Entry) error {
	out := ExportedSession{
		FormatVersion:  ExportVersion,
		ConversationID: info.ID, Title: info.Title, Mode: info.Mode, Topic: info.Topic,
		Created: info.Created.UTC(), Parent: info.Parent, ForkAt: info.ForkAt, State: info.State,
		Messages: make([]ExportedMessage, 0, len(entries)),
	}
	var total float64
	for _, en := range entries {
		calls := en.ToolCalls
		if calls == nil {
			calls = []transcript.ToolCall{}
		}
		out.Usage = out.Usage.Add(en.Usage)
		total += en.Cost
		cost, _ := costJSON(en.Cost, en.Usage.PriceUnknown)
		out.Messages = append(out.Messages, ExportedMessage{
			Turn: en.Turn, Role: roleOf(en), Content: en.Text, Timestamp: en.Started.UTC(), ToolCalls: calls,
			Kind: en.Kind, Speaker: en.Speaker, Display: en.Display, Provider: en.Provider, Model: en.Model,
			Mode: en.Mode, Round: en.Round, Prompt: en.Prompt, Vote: en.Vote, IsModerator: en.IsModerator,
			Status: en.Status, Error: en.Error, Usage: en.Usage, Cost: cost, LatencyMS: en.Latency().Milliseconds(),
			Covers: en.Covers,
		})
	}
	out.Cost, out.CostAtLeast = costJSON(total, out.Usage.PriceUnknown)
	enc := json.NewEncoder(sanitize.JSONWriter(w)) // C1 and bidi leave only as \u escapes
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteMarkdown writes a session for people: a header, then every entry
// under its speaker, with votes, verdicts and tool calls spelled out.
func WriteMarkdown(w io.Writer, info debate.SessionInfo, entries []transcript.Entry) error {
	var b strings.Builder
	title := info.Title
	if title == "" {
		title = info.Topic
	}
	if title == "" {
		title = "Parley session " + info.ID
	}
	fmt.Fprintf(&b, "# %s\n\n", inlineMarkdown(clean(title)))
	fmt.Fprintf(&b, "- Session: `%s`\n", info.ID)
	fmt.Fprintf(&b, "- Mode: %s\n", info.Mode)
	if !info.Created.IsZero() {
		fmt.Fprintf(&b, "- Started: %s\n", info.Created.UTC().Format("2006-01-02 15:04 UTC"))
	}
	if info.Topic != "" && info.Topic != title {
		fmt.Fprintf(&b, "- Topic: %s\n", inlineMarkdown(clean(info.Topic)))
	}
	if info.Parent != "" {
		fmt.Fprintf(&b, "- Forked from `%s` after turn %d\n", info.Parent, info.ForkAt)
	}
	var usage providers.Usage
	var cost float64
	var agents []string
	seen := map[string]bool{}
	for _, en := range entries {
		usage, cost = usage.Add(en.Usage), cost+en.Cost
		if en.IsAgentTurn() && !seen[en.Speaker] {
			seen[en.Speaker] = true
			agents = append(agents, fmt.Sprintf("%s (%s)", en.Display, en.Model))
		}
	}
	if len(agents) > 0 {
		fmt.Fprintf(&b, "- Agents: %s\n", inlineMarkdown(clean(strings.Join(agents, ", "))))
	}
	fmt.Fprintf(&b, "- Tokens: %d in, %d out%s; cost %s\n", usage.InputTokens, usage.OutputTokens,
		reasoningNote(usage), providers.FormatUsageCost(cost, usage))
	tables := councilTables(entries)
	lastResult := ""
	for i, en := range entries {
		if en.Kind == transcript.KindToolCall && len(en.ToolCalls) > 0 {
			lastResult = en.ToolCalls[len(en.ToolCalls)-1].Result
		}
		// What the model was sent back is the result the call above shows.
		repeated := en.Kind == transcript.KindToolResult && en.Error == "" && lastResult != "" && strings.HasPrefix(en.Text, lastResult)
		b.WriteString("\n")
		writeEntryMarkdown(&b, en, repeated)
		if en.Kind == transcript.KindVerdict && en.Mode == "magi" {
			if board := magiBoard(entries, i); board != "" {
				b.WriteString("\n" + board)
			}
		}
		if t := tables[en.Turn]; t != "" {
			b.WriteString("\n" + t)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeEntryMarkdown writes one turn; repeated: a tool result the call
// before it already shows, fenced.
func writeEntryMarkdown(b *strings.Builder, en transcript.Entry, repeated bool) {
	text := strings.TrimSpace(clean(en.Text))
	switch en.Kind {
	case transcript.KindNote:
		fmt.Fprintf(b, "**Note (turn %d):**\n\n%s", en.Turn, modelMarkdown(text))
		return
	case transcript.KindOutcome:
		fmt.Fprintf(b, "**%s outcome (turn %d):** %s\n", inlineMarkdown(clean(en.Display)), en.Turn, inlineMarkdown(text))
		return
	case transcript.KindVerdict:
		fmt.Fprintf(b, "## Verdict%s: %s\n", turnSuffix(en), inlineMarkdown(clean(en.Vote)))
		if text != "" {
			fmt.Fprintf(b, "\n%s", modelMarkdown(text))
		}
		return
	case transcript.KindError:
		fmt.Fprintf(b, "> **Error (turn %d, %s):** %s\n", en.Turn, inlineMarkdown(clean(en.Display)), inlineMarkdown(clean(firstNonEmpty(en.Error, en.Text))))
		return
	case transcript.KindSummary:
		// Prompts carry it in place of the turns it covers; the export keeps both.
		fmt.Fprintf(b, "> **Summary of the turns up to %d (turn %d), for the prompts:**\n>\n", en.Covers, en.Turn)
		for _, l := range strings.Split(strings.TrimRight(modelMarkdown(text), "\n"), "\n") {
			fmt.Fprintf(b, "> %s\n", l)
		}
		return
	}
	heading := clean(en.Display)
	if heading == "" {
		heading = clean(en.Speaker)
	}
	if en.Kind == transcript.KindModerator || en.IsModerator {
		heading += " (moderator)"
	}
	if en.Model != "" {
		heading += " · " + clean(en.Model)
	}
	fmt.Fprintf(b, "### %d. %s%s\n\n", en.Turn, inlineMarkdown(heading), turnSuffix(en))
	switch en.Kind {
	case transcript.KindVote:
		writeVoteMarkdown(b, en, text)
	case transcript.KindToolCall:
		writeToolsMarkdown(b, en, text)
	case transcript.KindToolResult:
		if repeated {
			b.WriteString("*(the result above, returned to the agent)*\n")
		} else if text != "" { // what the model was told, not Markdown
			b.WriteString(fenced(text))
		}
	default:
		if text != "" {
			b.WriteString(modelMarkdown(text))
		}
	}
	switch en.Status {
	case transcript.StatusPartial:
		fmt.Fprintf(b, "\n*(cut off: %s)*\n", inlineMarkdown(clean(en.Error)))
	case transcript.StatusCancelled:
		b.WriteString("\n*(cancelled)*\n")
	case transcript.StatusError:
		fmt.Fprintf(b, "\n*(failed: %s)*\n", inlineMarkdown(clean(en.Error)))
	}
	if en.IsAgentTurn() && (en.Usage.Total() > 0 || en.Cost > 0) {
		fmt.Fprintf(b, "\n*%d in / %d out tokens%s · %s · %.1f s*\n",
			en.Usage.InputTokens, en.Usage.OutputTokens, reasoningNote(en.Usage),
			providers.FormatUsageCost(en.Cost, en.Usage), en.Latency().Seconds())
	}
}

// writeVoteMarkdown shows the vote word and the reasoning rather than the
// raw JSON answer when the answer parses.
func writeVoteMarkdown(b *strings.Builder, en transcript.Entry, text string) {
	var v struct {
		Vote      string `json:"vote"`
		Reasoning string `json:"reasoning"`
		Summary   string `json:"summary"`
	}
	vote := en.Vote
	if vote == "" {
		vote = "invalid"
	}
	fmt.Fprintf(b, "**Vote: %s**", inlineMarkdown(strings.ToUpper(clean(vote))))
	if json.Unmarshal([]byte(text), &v) == nil && (v.Reasoning != "" || v.Summary != "") {
		if v.Summary != "" {
			fmt.Fprintf(b, " — %s", inlineMarkdown(clean(v.Summary)))
		}
		b.WriteString("\n")
		if v.Reasoning != "" {
			fmt.Fprintf(b, "\n%s", modelMarkdown(strings.TrimSpace(clean(v.Reasoning))))
		}
		return
	}
	b.WriteString("\n")
	if text != "" {
		fmt.Fprintf(b, "\n%s", modelMarkdown(text))
	}
}

func writeToolsMarkdown(b *strings.Builder, en transcript.Entry, text string) {
	if text != "" {
		b.WriteString(modelMarkdown(text))
	}
	for i, c := range en.ToolCalls {
		if i > 0 || text != "" {
			b.WriteString("\n")
		}
		var params []string
		for _, k := range slices.Sorted(maps.Keys(c.Parameters)) {
			params = append(params, k+"="+c.Parameters[k])
		}
		fmt.Fprintf(b, "- %s %s\n", codeSpan(clean(c.Tool)), inlineMarkdown(clean(strings.Join(params, " "))))
		result := c.Result
		if c.Error != "" {
			result = "error: " + c.Error
		}
		if result = strings.TrimRight(clean(result), "\n"); result != "" {
			b.WriteString("\n" + fenced(truncateLines(result, 40)))
		}
	}
}

func roundSuffix(round int) string {
	if round == 0 {
		return ""
	}
	return fmt.Sprintf(" — round %d", round)
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func truncateLines(s string, max int) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= max {
		return s
	}
	return strings.Join(lines[:max], "\n") + fmt.Sprintf("\n… (%d more lines)", len(lines)-max)
}

// clean drops terminal escape sequences and control characters a model may
// have sent, keeping newlines and tabs, so an export never drives a terminal.
func clean(s string) string { return sanitize.Text(s) }

// reasoningNote says how many output tokens went to reasoning, when any did.
func reasoningNote(u providers.Usage) string {
	if u.ReasoningTokens == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d reasoning)", u.ReasoningTokens)
}
