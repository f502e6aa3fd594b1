package headless

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/providers"
)

// SessionList prints the saved sessions as a table.
func SessionList(out io.Writer, list []store.Summary, now time.Time) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tLAST ACTIVITY\tMODE\tAGENTS\tTURNS\tTOKENS\tCOST\tTITLE")
	for _, s := range list {
		title := sanitize.Text(s.Title)
		if s.Parent != "" {
			title += fmt.Sprintf(" (fork of %s at turn %d)", short(s.Parent), s.ForkAt)
		}
		agents := strings.Join(s.Agents, ",")
		if agents == "" {
			agents = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", s.ID, debate.ActivityAgo(s.LastActivity, now), s.Mode, sanitize.Text(agents),
			s.Turns, Thousands(s.TokensIn+s.TokensOut), s.CostText(), title)
	}
	return tw.Flush()
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// Transcript shows a session as the headless commands print turns.
func Transcript(out io.Writer, info debate.SessionInfo, entries []debate.Entry) {
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
		case debate.KindNote:
			fmt.Fprintf(out, "%d (note): %s\n", en.Turn, text)
			continue
		case debate.KindVerdict:
			fmt.Fprintf(out, "%d verdict, round %d: %s\n", en.Turn, en.Round, sanitize.Text(en.Vote))
			continue
		case debate.KindError:
			fmt.Fprintf(out, "%d [%s]: (error) %s\n", en.Turn, label, sanitize.Text(en.Error))
			continue
		case debate.KindVote:
			label += " vote " + strings.ToUpper(sanitize.Text(en.Vote))
		}
		fmt.Fprintf(out, "%d [%s]: %s\n", en.Turn, label, TurnBody(en))
		for _, c := range en.ToolCalls {
			fmt.Fprintf(out, "   tool %s %s\n", sanitize.Text(c.Tool), sanitize.Text(fmt.Sprint(c.Parameters)))
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
	if calls > 0 {
		fmt.Fprintf(out, "\n%s\n", TotalsLine(calls, "call", "calls", usage, cost))
	}
}
