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
	Cost           float64           `json:"cost_usd"`
	Messages       []ExportedMessage `json:"messages"`
}

// ExportedMessage is one entry of the JSON export.
type ExportedMessage struct {
	Turn        int               `json:"turn"`
	Role        string            `json:"role"` // user, assistant, system or tool
	Content     string            `json:"content"`
	Timestamp   time.Time         `json:"timestamp"`
	ToolCalls   []debate.ToolCall `json:"tool_calls"`
	Kind        debate.Kind       `json:"kind"`
	Speaker     string            `json:"speaker"`
	Display     string            `json:"display"`
	Provider    string            `json:"provider,omitempty"`
	Model       string            `json:"model,omitempty"`
	Mode        string            `json:"mode"`
	Round       int               `json:"round,omitempty"`
	Prompt      string            `json:"prompt,omitempty"`
	Vote        string            `json:"vote,omitempty"`
	IsModerator bool              `json:"is_moderator"`
	Status      debate.Status     `json:"status"`
	Error       string            `json:"error,omitempty"`
	Usage       providers.Usage   `json:"usage"`
	Cost        float64           `json:"cost_usd"`
	LatencyMS   int64             `json:"latency_ms"`
	Covers      int               `json:"covers,omitempty"` // a summary's last condensed turn
}

// ExportVersion is the version of the JSON export this Parley writes.
const ExportVersion = 1

// roleOf maps an entry to the chat role a reader of the export expects.
func roleOf(en debate.Entry) string {
	switch en.Kind {
	case debate.KindUser, debate.KindNote:
		return "user"
	case debate.KindToolResult:
		return "tool"
	case debate.KindVerdict, debate.KindError, debate.KindSummary:
		return "system"
	}
	if en.Speaker == debate.SpeakerSystem {
		return "system"
	}
	return "assistant"
}

// WriteJSON writes the machine export of a session: the whole log,
// tool calls included, indented.
func WriteJSON(w io.Writer, info debate.SessionInfo, entries []debate.Entry) error {
	out := ExportedSession{
		FormatVersion:  ExportVersion,
		ConversationID: info.ID, Title: info.Title, Mode: info.Mode, Topic: info.Topic,
		Created: info.Created.UTC(), Parent: info.Parent, ForkAt: info.ForkAt, State: info.State,
		Messages: make([]ExportedMessage, 0, len(entries)),
	}
	for _, en := range entries {
		calls := en.ToolCalls
		if calls == nil {
			calls = []debate.ToolCall{}
		}
		out.Usage = out.Usage.Add(en.Usage)
		out.Cost += en.Cost
		out.Messages = append(out.Messages, ExportedMessage{
			Turn: en.Turn, Role: roleOf(en), Content: en.Text, Timestamp: en.Started.UTC(), ToolCalls: calls,
			Kind: en.Kind, Speaker: en.Speaker, Display: en.Display, Provider: en.Provider, Model: en.Model,
			Mode: en.Mode, Round: en.Round, Prompt: en.Prompt, Vote: en.Vote, IsModerator: en.IsModerator,
			Status: en.Status, Error: en.Error, Usage: en.Usage, Cost: en.Cost, LatencyMS: en.Latency().Milliseconds(),
			Covers: en.Covers,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteMarkdown writes a session for people: a header, then every entry
// under its speaker, with votes, verdicts and tool calls spelled out.
func WriteMarkdown(w io.Writer, info debate.SessionInfo, entries []debate.Entry) error {
	var b strings.Builder
	title := info.Title
	if title == "" {
		title = info.Topic
	}
	if title == "" {
		title = "Parley session " + info.ID
	}
	fmt.Fprintf(&b, "# %s\n\n", mdInline(oneLine(clean(title))))
	fmt.Fprintf(&b, "- Session: `%s`\n", info.ID)
	fmt.Fprintf(&b, "- Mode: %s\n", info.Mode)
	if !info.Created.IsZero() {
		fmt.Fprintf(&b, "- Started: %s\n", info.Created.UTC().Format("2006-01-02 15:04 UTC"))
	}
	if info.Topic != "" && info.Topic != title {
		fmt.Fprintf(&b, "- Topic: %s\n", mdInline(oneLine(clean(info.Topic))))
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
		fmt.Fprintf(&b, "- Agents: %s\n", mdInline(clean(strings.Join(agents, ", "))))
	}
	fmt.Fprintf(&b, "- Tokens: %d in, %d out%s; cost %s\n", usage.InputTokens, usage.OutputTokens,
		reasoningNote(usage), providers.FormatCost(cost, usage.PriceUnknown))
	for _, en := range entries {
		b.WriteString("\n")
		writeEntryMarkdown(&b, en)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeEntryMarkdown(b *strings.Builder, en debate.Entry) {
	text := strings.TrimSpace(mdText(clean(en.Text)))
	switch en.Kind {
	case debate.KindNote:
		fmt.Fprintf(b, "**Note (turn %d):** %s\n", en.Turn, text)
		return
	case debate.KindVerdict:
		fmt.Fprintf(b, "## Verdict%s: %s\n", roundSuffix(en.Round), mdInline(oneLine(clean(en.Vote))))
		if text != "" {
			fmt.Fprintf(b, "\n%s\n", text)
		}
		return
	case debate.KindError:
		fmt.Fprintf(b, "> **Error (turn %d, %s):** %s\n", en.Turn, mdInline(clean(en.Display)), mdInline(oneLine(clean(firstNonEmpty(en.Error, en.Text)))))
		return
	case debate.KindSummary:
		// Prompts carry it in place of the turns it covers; the export keeps both.
		fmt.Fprintf(b, "> **Summary of the turns up to %d (turn %d), for the prompts:**\n>\n", en.Covers, en.Turn)
		for _, l := range strings.Split(text, "\n") {
			fmt.Fprintf(b, "> %s\n", l)
		}
		return
	}
	heading := mdInline(oneLine(clean(en.Display)))
	if heading == "" {
		heading = mdInline(oneLine(clean(en.Speaker)))
	}
	if en.Kind == debate.KindModerator || en.IsModerator {
		heading += " (moderator)"
	}
	if en.Model != "" {
		heading += " · " + mdInline(oneLine(clean(en.Model)))
	}
	fmt.Fprintf(b, "### %d. %s%s\n\n", en.Turn, heading, roundSuffix(en.Round))
	switch en.Kind {
	case debate.KindVote:
		writeVoteMarkdown(b, en, text)
	case debate.KindToolCall, debate.KindToolResult:
		writeToolsMarkdown(b, en, text)
	default:
		if text != "" {
			b.WriteString(text + "\n")
		}
	}
	switch en.Status {
	case debate.StatusPartial:
		fmt.Fprintf(b, "\n*(cut off: %s)*\n", mdInline(oneLine(clean(en.Error))))
	case debate.StatusCancelled:
		b.WriteString("\n*(cancelled)*\n")
	case debate.StatusError:
		fmt.Fprintf(b, "\n*(failed: %s)*\n", mdInline(oneLine(clean(en.Error))))
	}
	if en.IsAgentTurn() && (en.Usage.Total() > 0 || en.Cost > 0) {
		fmt.Fprintf(b, "\n*%d in / %d out tokens%s · %s · %.1f s*\n",
			en.Usage.InputTokens, en.Usage.OutputTokens, reasoningNote(en.Usage),
			providers.FormatCost(en.Cost, en.Usage.PriceUnknown), en.Latency().Seconds())
	}
}

// writeVoteMarkdown shows the vote word and the reasoning rather than the
// raw JSON answer when the answer parses.
func writeVoteMarkdown(b *strings.Builder, en debate.Entry, text string) {
	var v struct {
		Vote      string `json:"vote"`
		Reasoning string `json:"reasoning"`
		Summary   string `json:"summary"`
	}
	vote := en.Vote
	if vote == "" {
		vote = "invalid"
	}
	fmt.Fprintf(b, "**Vote: %s**", mdInline(oneLine(strings.ToUpper(clean(vote)))))
	if json.Unmarshal([]byte(strings.TrimSpace(clean(en.Text))), &v) == nil && (v.Reasoning != "" || v.Summary != "") {
		if v.Summary != "" {
			fmt.Fprintf(b, " — %s", mdInline(oneLine(clean(v.Summary))))
		}
		b.WriteString("\n")
		if v.Reasoning != "" {
			fmt.Fprintf(b, "\n%s\n", strings.TrimSpace(mdText(clean(v.Reasoning))))
		}
		return
	}
	b.WriteString("\n")
	if text != "" {
		fmt.Fprintf(b, "\n%s\n", text)
	}
}

// writeToolsMarkdown shows a tool call with its result, fenced, once. The
// tool_result entry that follows is the same result as the model received
// it: only what differs from the call's (a retry message) is shown there.
func writeToolsMarkdown(b *strings.Builder, en debate.Entry, text string) {
	if en.Kind == debate.KindToolResult {
		if en.Error != "" {
			writeFenced(b, clean(en.Text))
		} else {
			b.WriteString("*(the result above, returned to the agent)*\n")
		}
		return
	}
	if text != "" {
		b.WriteString(text + "\n")
	}
	for _, c := range en.ToolCalls {
		var params []string
		for _, k := range slices.Sorted(maps.Keys(c.Parameters)) {
			params = append(params, k+"="+c.Parameters[k])
		}
		fmt.Fprintf(b, "\n- `%s` %s\n", strings.ReplaceAll(clean(c.Tool), "`", "'"), mdInline(oneLine(clean(strings.Join(params, " ")))))
		result := c.Result
		if c.Error != "" {
			result = "error: " + c.Error
		}
		writeFenced(b, clean(result))
	}
}

// writeFenced puts text in a code fence longer than any run of backticks
// in it, so nothing in it can close the fence.
func writeFenced(b *strings.Builder, text string) {
	if text = strings.TrimRight(text, "\n"); text == "" {
		return
	}
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	fmt.Fprintf(b, "\n%s\n%s\n%s\n", fence, truncateLines(text, 40), fence)
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
