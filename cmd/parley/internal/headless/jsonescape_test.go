package headless

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
)

// hiddenText holds what the audit found raw in --json/--jsonl (issue 31):
// the C1 CSI, a right-to-left override, tag characters, and DEL.
const hiddenText = "pay \u009b31m \u202eevil\u202c ok\U000e0041\U000e0042 \x7f end"

// rawForbidden reports a rune of out that should have been escaped.
func rawForbidden(out []byte) (rune, bool) {
	for _, r := range string(out) {
		if r == 0x7f || r >= 0x80 && r < 0xa0 || r == '\u202e' || r == '\u202c' || r >= 0xe0000 && r <= 0xe007f {
			return r, true
		}
	}
	return 0, false
}

// findString reports whether want is a string somewhere in a decoded value.
func findString(v any, want string) bool {
	switch v := v.(type) {
	case string:
		return v == want
	case []any:
		for _, x := range v {
			if findString(x, want) {
				return true
			}
		}
	case map[string]any:
		for _, x := range v {
			if findString(x, want) {
				return true
			}
		}
	}
	return false
}

func TestJSONLinesEscapeHiddenCharacters(t *testing.T) {
	var out, errs bytes.Buffer
	p := New(Options{Out: &out, Err: &errs, Format: JSONL, Style: Conversation})
	en := transcript.Entry{Turn: 1, Speaker: "claude", Display: "Claude", Kind: transcript.KindReply, Status: transcript.StatusComplete, Text: hiddenText}
	p.Sink(debate.TurnStarted{Entry: en})
	p.Sink(debate.TurnFinished{Entry: en})
	if out.Len() == 0 {
		t.Fatal("no JSON lines")
	}
	if r, bad := rawForbidden(out.Bytes()); bad {
		t.Fatalf("U+%04X is raw in the JSON lines:\n%s", r, out.String())
	}
	if !strings.Contains(out.String(), `\u202e`) {
		t.Fatalf("no \\u202e escape:\n%s", out.String())
	}
	found := false
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		found = found || findString(v, hiddenText)
	}
	if !found {
		t.Fatalf("the text is not exactly the same after decoding:\n%s", out.String())
	}
}
