package mcp

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/sessionid"
)

// FuzzCheckpointInput: the checkpoint tool's check never panics, and an
// answer it lets through has a real session id, a known action, a bounded
// UTF-8 text and short names without control characters.
func FuzzCheckpointInput(f *testing.F) {
	f.Add("abc123", "note", "The budget was cut.", "", "")
	f.Add("../../etc", "stop", "", "", "")
	f.Add("-rf", "drop", "", "casper", "")
	f.Add("abc", "swap", "", "casper\x1b[2J", "gpt")
	f.Add("abc", "deny", strings.Repeat("é", 4001), "", "")
	f.Fuzz(func(t *testing.T, id, action, text, member, with string) {
		in := CheckpointInput{SessionID: id, Action: action, Text: text, Member: member, With: with}
		a, err := in.check()
		if err != nil {
			if len(err.Error()) > 2*maxName+200 {
				t.Fatalf("an error of %d bytes quotes too much back", len(err.Error()))
			}
			return
		}
		if sessionid.Check(id) != nil || !utf8.ValidString(a.Text) || utf8.RuneCountInString(a.Text) > checkpoint.MaxText ||
			len(a.Member) > maxName || len(a.With) > maxName || strings.ContainsAny(a.Member+a.With, "\x00\x1b\n\r\x7f") {
			t.Fatalf("let through: %+v", in)
		}
		switch a.Action {
		case checkpoint.Continue, checkpoint.Note, checkpoint.Drop, checkpoint.Swap, checkpoint.Approve, checkpoint.Deny, checkpoint.Stop:
		default:
			t.Fatalf("an unknown action let through: %q", a.Action)
		}
	})
}
