package providers

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Redacted replaces a secret in scrubbed text.
const Redacted = "[redacted]"

// minSecret is the shortest configured value scrubbed literally: shorter
// values (a test's "x") would blank out ordinary words.
const minSecret = 8

// Scrubber removes secrets from text a provider sends back — an error
// message that echoes the key, as proxies and compatible servers do —
// before anything shows, stores, exports or streams it: every configured
// key value, and whatever looks like a key whether configured or not
// (Bearer tokens, key=… parameters, api-key headers, sk-… keys).
type Scrubber struct {
	secrets []string // longest first, so a key containing another goes whole
	// altered match each secret as a message may carry it altered: in any
	// case, split by line breaks, percent- (URL-) or JSON-escaped.
	altered []*regexp.Regexp
}

// NewScrubber scrubs the given key values (empty and short ones ignored)
// and the key-shaped forms.
func NewScrubber(secrets ...string) *Scrubber {
	var keep []string
	for _, s := range secrets {
		if s = strings.TrimSpace(s); len(s) >= minSecret && !slices.Contains(keep, s) {
			keep = append(keep, s)
		}
	}
	slices.SortFunc(keep, func(a, b string) int { return len(b) - len(a) })
	sc := &Scrubber{secrets: keep}
	for _, k := range keep {
		sc.altered = append(sc.altered, alteredForm(k))
	}
	return sc
}

// alteredForm matches secret in any letter case, with line breaks (raw,
// JSON's \n, or percent-encoded) or spaces between its characters, and
// each character as itself, percent-encoded (once or twice, as URLs nest)
// or JSON-escaped (\u00XX, \/).
func alteredForm(secret string) *regexp.Regexp {
	const gap = `(?:\s|\\[rnt]|%0[aAdD9])*`
	var b strings.Builder
	b.WriteString("(?i)")
	for i, r := range secret {
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

// keyShapes are the forms a credential takes in a message, whatever its value.
var keyShapes = []struct {
	re   *regexp.Regexp
	with string
}{
	// Authorization: Bearer …  (and "Bearer …" alone)
	{regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}`), "${1} " + Redacted},
	// Header or JSON field forms: x-goog-api-key: …, "api_key": "…", x-api-key=…
	{regexp.MustCompile(`(?i)\b(x-goog-api-key|x-api-key|api[_-]?key|access[_-]?token|client[_-]?secret)(["']?\s*[:=]\s*["']?)[^\s"'&,;)}]+`), "${1}${2}" + Redacted},
	// Query parameters: ?key=…, &token=…, secret=…
	{regexp.MustCompile(`(?i)([?&;]|\b)(key|token|secret|password|sig|signature)=[^\s"'&,;)}]+`), "${1}${2}=" + Redacted},
	// Vendor key shapes: sk-…, sk-proj-…, sk-ant-…, gsk_…, xai-…, Google's AIza…
	{regexp.MustCompile(`\b(?:sk|gk|pk|rk|gsk|xai)[-_][A-Za-z0-9_-]{16,}`), Redacted},
	{regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{30,}`), Redacted},
}

// caseVariants is r and every rune it equals ignoring case.
func caseVariants(r rune) []rune {
	out := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		out = append(out, f)
	}
	return out
}

// Scrub returns text without secrets.
func (s *Scrubber) Scrub(text string) string {
	if text == "" {
		return text
	}
	if s != nil {
		for _, secret := range s.secrets {
			text = strings.ReplaceAll(text, secret, Redacted)
		}
		for _, re := range s.altered {
			text = re.ReplaceAllLiteralString(text, Redacted)
		}
	}
	for _, k := range keyShapes {
		text = k.re.ReplaceAllString(text, k.with)
	}
	return text
}

// Error returns err with every message in it scrubbed. A *Error keeps its
// kind, status and retry hint (the retry policy and the console need them);
// the chain below it keeps context.Canceled and DeadlineExceeded findable
// but says nothing the scrubber would remove.
func (s *Scrubber) Error(err error) error {
	if err == nil {
		return nil
	}
	if pe, ok := AsError(err); ok {
		out := *pe
		out.Message = s.Scrub(pe.Message)
		if pe.Err != nil {
			out.Err = &scrubbedError{msg: s.Scrub(pe.Err.Error()), inner: pe.Err}
		}
		if err == error(pe) {
			return &out
		}
		return &scrubbedError{msg: s.Scrub(err.Error()), inner: &out}
	}
	return &scrubbedError{msg: s.Scrub(err.Error()), inner: err}
}

// scrubbedError is an error whose text was scrubbed; Unwrap keeps
// errors.Is working for the sentinel errors (context.Canceled, …).
type scrubbedError struct {
	msg   string
	inner error
}

func (e *scrubbedError) Error() string { return e.msg }

func (e *scrubbedError) Is(target error) bool { return errors.Is(e.inner, target) }

// Unwrap gives the *Error a scrubbed *Error wraps, and nothing else: the
// raw error below would print the secret again.
func (e *scrubbedError) Unwrap() error {
	if pe, ok := e.inner.(*Error); ok {
		return pe
	}
	return nil
}
