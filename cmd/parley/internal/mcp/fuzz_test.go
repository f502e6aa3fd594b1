package mcp

import (
	"strings"
	"testing"
)

// FuzzMentionLine: whatever a client sends as question and agents, the line
// the mention mode runs is refused with a reason or keeps the whole
// question, addressed to someone.
func FuzzMentionLine(f *testing.F) {
	f.Add("what is a monad?", "")
	f.Add("@claude why?", "")
	f.Add("mail me at a@b.c", "gemini")
	f.Add("  ", "claude")
	f.Add("hi", "@claude")
	f.Add("hi", "two words")
	f.Add("multi\nline @all", "")
	f.Fuzz(func(t *testing.T, question, agent string) {
		var agents []string
		if agent != "" {
			agents = []string{agent}
		}
		line, err := mentionLine(question, agents)
		if err != nil {
			if line != "" {
				t.Fatalf("error %v with a line %q", err, line)
			}
			return
		}
		q := strings.TrimSpace(question)
		if !strings.HasSuffix(line, q) || !strings.Contains(line, "@") {
			t.Fatalf("line %q lost the question %q or its address", line, q)
		}
	})
}

// FuzzParseCursor: a cursor from a client is a page offset this server
// gave, or an error; never a negative offset.
func FuzzParseCursor(f *testing.F) {
	f.Add(cursorAt(50))
	f.Add("")
	f.Add("!!")
	f.Add("LTE") // "-1"
	f.Fuzz(func(t *testing.T, c string) {
		n, err := parseCursor(c)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("cursor %q gave offset %d", c, n)
		}
		if back, err := parseCursor(cursorAt(n)); err != nil || back != n {
			t.Fatalf("offset %d does not survive its cursor: %d, %v", n, back, err)
		}
	})
}

// FuzzSessionRef: a resource URI names one session ID or prefix, or none.
func FuzzSessionRef(f *testing.F) {
	f.Add("parley://sessions/0123456789ab")
	f.Add("parley://sessions/")
	f.Add("parley://sessions/../x")
	f.Add("file:///etc/passwd")
	f.Add("parley://sessions/a%2Fb")
	f.Fuzz(func(t *testing.T, uri string) {
		ref, ok := sessionRef(uri)
		if !ok {
			return
		}
		if ref == "" || strings.ContainsAny(ref, "/?#%") || sessionURI+ref != uri {
			t.Fatalf("%q read as session %q", uri, ref)
		}
	})
}
