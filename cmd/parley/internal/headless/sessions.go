package headless

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers"
)

// SessionList prints the saved sessions as a table, the title first. In
// width columns it shows title, a short id (a prefix resolves), mode, last
// activity, turns and cost, the title cut with "…" to fit; wide shows every
// column (full id, agents, tokens) and whole titles.
func SessionList(out io.Writer, list []store.Summary, now time.Time, width int, wide bool) error {
	rows := make([][]string, 0, len(list)+1)
	if wide {
		rows = append(rows, []string{"TITLE", "ID", "LAST ACTIVITY", "MODE", "AGENTS", "TURNS", "TOKENS", "COST"})
	} else {
		rows = append(rows, []string{"TITLE", "ID", "MODE", "LAST ACTIVITY", "TURNS", "COST"})
	}
	forks := []string{""} // per row: the fork note, kept whole when the title is cut
	for _, s := range list {
		title, fork := sanitize.Text(s.Title), ""
		if s.Parent != "" {
			fork = fmt.Sprintf(" (fork of %s at turn %d)", short(s.Parent), s.ForkAt)
		}
		forks = append(forks, fork)
		if wide {
			title += fork
		}
		ago, turns, cost := debate.ActivityAgo(s.LastActivity, now), strconv.Itoa(s.Turns), s.CostText()
		if wide {
			agents := strings.Join(s.Agents, ",")
			if agents == "" {
				agents = "-"
			}
			rows = append(rows, []string{title, s.ID, ago, s.Mode, sanitize.Text(agents), turns, Thousands(s.TokensIn + s.TokensOut), cost})
			continue
		}
		rows = append(rows, []string{title, short(s.ID), s.Mode, ago, turns, cost})
	}
	if !wide {
		fitTitles(rows, forks, width)
	}
	return writeColumns(out, rows)
}

// writeColumns writes rows as columns two cells apart, each as wide as its
// widest cell in terminal cells (a wide character counts two, where
// text/tabwriter counted one and misaligned every row after a CJK title),
// the last column unpadded; one write.
func writeColumns(out io.Writer, rows [][]string) error {
	cols := len(rows[0])
	widths := make([]int, cols)
	cells := make([]int, len(rows)*cols) // one allocation, not one a row
	size := 0
	for i, r := range rows {
		for col, c := range r {
			cells[i*cols+col] = cellWidth(c)
			widths[col] = max(widths[col], cells[i*cols+col])
			size += len(c)
		}
	}
	for _, w := range widths {
		size += (w + 2) * len(rows) // at most the padding: the buffer grows once
	}
	var b strings.Builder
	b.Grow(size)
	for i, r := range rows {
		for col, c := range r {
			b.WriteString(c)
			if col < len(r)-1 {
				pad(&b, widths[col]-cells[i*cols+col]+2)
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(out, b.String())
	return err
}

// spaces is what pad writes from, a slice at a time (strings.Repeat
// allocated for every cell).
const spaces = "                                                                "

// pad writes n spaces to b.
func pad(b *strings.Builder, n int) {
	for n > 0 {
		k := min(n, len(spaces))
		b.WriteString(spaces[:k])
		n -= k
	}
}

// fitTitles cuts the first column so that every row fits in width cells:
// what the other columns need (and two cells between columns) is taken
// first, and the title gets the rest, at least 12 cells, its fork note
// included.
func fitTitles(rows [][]string, forks []string, width int) {
	need := 0
	for col := 1; col < len(rows[0]); col++ {
		w := 0
		for _, r := range rows {
			w = max(w, cellWidth(r[col]))
		}
		need += w + 2
	}
	room := max(width-need, 12)
	for i, r := range rows {
		if limit := max(room-cellWidth(forks[i]), 4); cellWidth(r[0]) > limit {
			r[0] = truncateCells(r[0], limit)
		}
		r[0] += forks[i]
	}
}

// cellWidth is ansi.StringWidth with a fast path for the text most cells
// are (oneCell: ASCII, Latin-1, the dashes, quotes and "…" of titles):
// measuring every cell of 10,000 rows by grapheme clusters was a quarter
// of `sessions list`.
func cellWidth(s string) int {
	if !allOneCell(s) {
		return ansi.StringWidth(s)
	}
	return utf8.RuneCountInString(s)
}

// truncateCells is ansi.Truncate(s, n, "…") with cellWidth's fast path.
func truncateCells(s string, n int) string {
	if n < 1 || !allOneCell(s) {
		return ansi.Truncate(s, n, "…")
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut, kept := 0, 0
	for kept < n-1 {
		_, size := utf8.DecodeRuneInString(s[cut:])
		cut += size
		kept++
	}
	return s[:cut] + "…"
}

// allOneCell reports whether every character of s is oneCell (invalid
// UTF-8 is not).
func allOneCell(s string) bool {
	for _, r := range s {
		if !oneCell(r) {
			return false
		}
	}
	return true
}

// oneCell reports whether r is a character a terminal draws in one cell
// that starts no grapheme cluster of several characters and joins none:
// printable ASCII, Latin-1 but the soft hyphen, and the dashes, quotes,
// bullet and ellipsis of General Punctuation (FuzzCellWidth holds it to
// ansi.StringWidth).
func oneCell(r rune) bool {
	return (r >= 0x20 && r < 0x7f) || (r >= 0xa0 && r < 0x300 && r != 0xad) || (r >= 0x2010 && r <= 0x2027)
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// Transcript shows a session as the headless commands print turns.
func Transcript(out io.Writer, info debate.SessionInfo, entries []transcript.Entry) {
	title := info.Title
	if title == "" {
		title = info.Topic
	}
	fmt.Fprintf(out, "session %s · %s · %s\n", info.ID, info.Mode, info.Created.Local().Format("2006-01-02 15:04"))
	if title != "" {
		fmt.Fprintf(out, "title: %s\n", sanitize.Text(title))
	}
	if info.Parent != "" {
		fmt.Fprintf(out, "forked from %s at turn %d\n", info.Parent, info.ForkAt)
	}
	var usage providers.Usage
	var cost float64
	calls := 0
	for _, en := range entries {
		fmt.Fprintln(out)
		label := sanitize.Text(en.Display)
		if label == "" {
			label = sanitize.Text(en.Speaker)
		}
		text := strings.TrimSpace(sanitize.Text(en.Text))
		switch en.Kind {
		case transcript.KindNote:
			fmt.Fprintf(out, "%d (note): %s\n", en.Turn, text)
			continue
		case transcript.KindOutcome:
			fmt.Fprintf(out, "%d [%s outcome]: %s\n", en.Turn, label, text)
			continue
		case transcript.KindVerdict:
			if text == "" { // saved before verdicts had their sentence
				text = sanitize.Text(en.Vote)
			}
			fmt.Fprintf(out, "%d [verdict]: %s\n", en.Turn, text)
			continue
		case transcript.KindError:
			fmt.Fprintf(out, "%d [%s]: (error) %s\n", en.Turn, label, sanitize.Text(en.Error))
			continue
		case transcript.KindVote:
			label += " vote " + strings.ToUpper(sanitize.Text(en.Vote))
			if prose, ok := ballotProse(en); ok {
				fmt.Fprintf(out, "%d [%s]: %s\n", en.Turn, label, prose)
				continue
			}
		}
		fmt.Fprintf(out, "%d [%s]: %s\n", en.Turn, label, TurnBody(en))
		for i, c := range en.ToolCalls { // worded as the console's panels and transcript word it
			fmt.Fprintf(out, "   tool %s\n", sanitize.Text(c.Marked(en.CallEvidence(i))))
		}
		if en.Warning != "" {
			fmt.Fprintf(out, "   warning: %s\n", sanitize.Text(en.Warning))
		}
		if en.IsAgentTurn() {
			calls++
			usage = usage.Add(en.Usage)
			cost += en.Cost
		}
	}
	writeLedger(out, entries)
	if calls > 0 {
		fmt.Fprintf(out, "\n%s\n", TotalsLine(calls, "call", "calls", usage, cost))
	}
}

// writeLedger lists the session's evidence records (docs/tools.md): id,
// source and title, the tool and who called it, when, and the digest.
func writeLedger(out io.Writer, entries []transcript.Entry) {
	head := false
	for _, en := range entries {
		for _, r := range en.Evidence {
			if !head {
				fmt.Fprintf(out, "\nevidence:\n")
				head = true
			}
			src := sanitize.Text(r.Source)
			if r.Title != "" {
				src += " — " + sanitize.Text(r.Title)
			}
			fmt.Fprintf(out, "  %s  %s · %s by %s, turn %d, %s · %s\n", sanitize.Text(r.ID), src, sanitize.Text(r.Tool),
				sanitize.Text(r.Agent), r.Turn, r.Taken.UTC().Format(time.RFC3339), sanitize.Clip(r.Digest, 19))
		}
	}
}

// ballotProse is a saved vote as the console and the export word it (its
// summary, then its reasoning), not its JSON; false when the text is not
// a ballot (an invalid vote: shown as sent).
func ballotProse(en transcript.Entry) (string, bool) {
	var b verdict.Ballot
	if en.Status != transcript.StatusComplete || json.Unmarshal([]byte(en.Text), &b) != nil || b.Reasoning == "" && b.Summary == "" {
		return "", false
	}
	parts := []string{}
	for _, s := range []string{b.Summary, b.Reasoning} {
		if s = strings.TrimSpace(sanitize.Text(s)); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " — "), true
}
