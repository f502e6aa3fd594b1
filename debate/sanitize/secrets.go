package sanitize

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/parleyhq/parley/internal/lazyregexp"
)

// minSecret is the shortest configured value scrubbed: shorter values (a
// test's "x") would blank out ordinary words.
const minSecret = 8

// Scrubber is the one pass over text from outside that may carry a secret
// (an error a provider sends back, echoing the key as proxies and
// compatible servers do). Clean first normalises the text as Text does —
// control, bidi and invisible characters and escape sequences go — and only
// then removes the secrets: a key split by a character a door strips later
// would otherwise pass the scrubber in two pieces and be printed whole.
//
// It removes every configured key value however a message carries it (see
// Clean), and whatever looks like a key whether configured or not (Bearer
// tokens, key=… parameters, api-key headers, sk-… keys). A nil *Scrubber
// knows no key values and removes the key shapes only.
type Scrubber struct {
	keys []string // longest first, so a key containing another goes whole
	// forms match each key as a message may carry it altered or encoded.
	forms []*regexp.Regexp
}

// NewScrubber scrubs the given key values (empty and short ones ignored)
// and the key-shaped forms.
func NewScrubber(keys ...string) *Scrubber {
	var keep []string
	for _, k := range keys {
		k = strings.TrimSpace(k)
		// The key as it stands and as Text leaves it: a key holding a
		// character Clean strips is found in its stripped spelling.
		for _, v := range []string{k, strings.TrimSpace(Text(k))} {
			if len(v) >= minSecret && !slices.Contains(keep, v) {
				keep = append(keep, v)
			}
		}
	}
	slices.SortFunc(keep, func(a, b string) int { return len(b) - len(a) })
	s := &Scrubber{keys: keep}
	for _, k := range keep {
		s.forms = append(s.forms, alteredForm(k), hexForm(k))
		s.forms = append(s.forms, base64Forms(k)...)
	}
	return s
}

// Clean returns text normalised by Text and then without secrets: the
// configured keys in any letter case, split by line breaks (raw, JSON's \n,
// or percent-encoded) or spaces, each character as itself, percent-encoded
// (once or twice, as URLs nest) or JSON-escaped (\u00XX, \/); their hex
// (either case) and their base64 and base64url (at any alignment, so a key
// inside an encoded "user:key" is found too; the whole encoded word goes);
// and the key shapes. Its output is stable under Text and Visible, so no
// door that strips more later can join a secret back together.
func (s *Scrubber) Clean(text string) string {
	text = Text(text)
	if text == "" {
		return text
	}
	if s != nil {
		for _, k := range s.keys {
			text = strings.ReplaceAll(text, k, Redacted)
		}
		for _, re := range s.forms {
			text = re.ReplaceAllLiteralString(text, Redacted)
		}
	}
	for _, k := range keyShapes {
		text = k.re.ReplaceAllString(text, k.with)
	}
	return text
}

// gap is what may stand between two characters of a key in a message:
// white space, JSON's escaped line breaks and tabs, percent-encoded ones.
const gap = `(?:\s|\\[rnt]|%0[aAdD9])*`

// alteredForm matches key in any letter case, with gaps between its
// characters, and each character as itself, percent-encoded (once or
// twice) or JSON-escaped (\u00XX, \/).
func alteredForm(key string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?i)")
	for i, r := range key {
		if i > 0 {
			b.WriteString(gap)
		}
		alts := []string{regexp.QuoteMeta(string(r))}
		for _, v := range caseVariants(r) { // an escape spells one case
			var pct, pct2 strings.Builder
			for _, c := range []byte(string(v)) {
				fmt.Fprintf(&pct, "%%%02X", c)
				fmt.Fprintf(&pct2, "%%25%02X", c)
			}
			alts = append(alts, pct.String(), pct2.String())
			if v < 0x10000 {
				alts = append(alts, fmt.Sprintf(`\\u%04X`, v))
			}
		}
		if r == '/' {
			alts = append(alts, `\\/`)
		}
		b.WriteString("(?:" + strings.Join(alts, "|") + ")")
	}
	return regexp.MustCompile(b.String())
}

// hexForm matches the key's bytes in hex, in either case, with gaps.
func hexForm(key string) *regexp.Regexp {
	return regexp.MustCompile("(?i)" + spaced(hex.EncodeToString([]byte(key))))
}

// base64Forms match the key in standard and URL base64 wherever it starts
// in the encoded bytes. For each of the three alignments, the characters
// that only the key's bytes decide (its whole 3-byte groups) are the core;
// the whole base64 word around a core goes with it (the characters its edge
// groups share with the bytes around the key, and what else the word
// encodes: a "user:key" pair, a token holding the key).
func base64Forms(key string) []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, skip := range []int{0, 1, 2} {
		whole := (len(key) - skip) / 3 * 3
		if whole < 3 {
			continue
		}
		part := []byte(key[skip : skip+whole])
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			core := enc.EncodeToString(part)
			out = append(out, regexp.MustCompile(`[A-Za-z0-9+/_-]*`+spaced(core)+`[A-Za-z0-9+/_-]*={0,2}`))
		}
	}
	return out
}

// spaced is a pattern matching the characters of s in order with gaps.
func spaced(s string) string {
	parts := make([]string, 0, len(s))
	for _, r := range s {
		parts = append(parts, regexp.QuoteMeta(string(r)))
	}
	return strings.Join(parts, gap)
}

// keyShapes are the forms a credential takes in a message, whatever its value.
var keyShapes = []struct {
	re   *lazyregexp.Regexp
	with string
}{
	// Authorization: Bearer …  (and "Bearer …" alone)
	{lazyregexp.New(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}`), "${1} " + Redacted},
	// Header or JSON field forms: x-goog-api-key: …, "api_key": "…", x-api-key=…
	{lazyregexp.New(`(?i)\b(x-goog-api-key|x-api-key|api[_-]?key|access[_-]?token|client[_-]?secret)(["']?\s*[:=]\s*["']?)[^\s"'&,;)}]+`), "${1}${2}" + Redacted},
	// Query parameters: ?key=…, &token=…, secret=…
	{lazyregexp.New(`(?i)([?&;]|\b)(key|token|secret|password|sig|signature)=[^\s"'&,;)}]+`), "${1}${2}=" + Redacted},
	// Vendor key shapes: sk-…, sk-proj-…, sk-ant-…, gsk_…, xai-…, Google's AIza…
	{lazyregexp.New(`\b(?:sk|gk|pk|rk|gsk|xai)[-_][A-Za-z0-9_-]{16,}`), Redacted},
	{lazyregexp.New(`\bAIza[0-9A-Za-z_-]{30,}`), Redacted},
}

// caseVariants is r and every rune it equals ignoring case.
func caseVariants(r rune) []rune {
	out := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		out = append(out, f)
	}
	return out
}
