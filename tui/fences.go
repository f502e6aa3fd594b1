package tui

import (
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2/lexers"
)

// plainFences names a language on every code fence that has none, or one
// the highlighter does not know: "text", drawn as plain code. Without it,
// every render of such a block has the highlighter search its whole
// registry by filename patterns and guess from the content, on every
// frame while the block streams.
func plainFences(md string) string {
	if !strings.Contains(md, "```") && !strings.Contains(md, "~~~") {
		return md
	}
	var b strings.Builder
	b.Grow(len(md) + 16)
	fence := "" // the open fence's marker, "" outside a block
	for rest := md; rest != ""; {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = ""
		}
		marker, info, ok := fenceLine(line)
		switch {
		case !ok:
		case fence == "":
			fence = marker
			if lang := strings.TrimSpace(info); !knownLanguage(lang) {
				b.WriteString(line[:strings.Index(line, marker)+len(marker)])
				b.WriteString("text")
				if strings.HasSuffix(line, "\n") {
					b.WriteByte('\n')
				}
				continue
			}
		case strings.HasPrefix(marker, fence) && strings.TrimSpace(info) == "":
			fence = ""
		}
		b.WriteString(line)
	}
	return b.String()
}

// fenceLine reads a line that opens or closes a code fence: its marker
// (``` or ~~~, or longer) and what follows it.
func fenceLine(line string) (marker, info string, ok bool) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return "", "", false
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	info = strings.TrimRight(t[n:], "\r\n")
	if n < 3 || (t[0] == '`' && strings.Contains(info, "`")) {
		return "", "", false // inline code at the start of a line, not a fence
	}
	return t[:n], info, true
}

// knownLanguages caches, per fence language, whether the highlighter has
// a lexer for it: each name is looked up once per process. Past
// maxLanguages names (a model inventing them), a new name is plain text
// without a lookup.
var (
	knownLanguages sync.Map
	languagesMu    sync.Mutex
	languagesN     int
)

const maxLanguages = 512

func knownLanguage(lang string) bool {
	if lang == "" {
		return false
	}
	if known, ok := knownLanguages.Load(lang); ok {
		return known.(bool)
	}
	languagesMu.Lock()
	defer languagesMu.Unlock()
	if languagesN >= maxLanguages {
		return false
	}
	languagesN++
	known := lexers.Get(strings.Fields(lang)[0]) != nil
	knownLanguages.Store(lang, known)
	return known
}
