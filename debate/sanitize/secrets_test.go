package sanitize

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parleyhq/parley/debate/sanitize/sanitizetest"
)

func TestScrubRemovesKeysAndKeyShapes(t *testing.T) {
	t.Parallel()
	s := NewScrubber("zq7Fh2LmP9xK4vB8nR3t", "", "short")
	cases := map[string]string{
		"API key not valid: zq7Fh2LmP9xK4vB8nR3t was rejected":                             "API key not valid: [redacted] was rejected",
		"sent Authorization: Bearer abc.DEF-123_456 upstream":                              "sent Authorization: Bearer [redacted] upstream",
		"GET /v1beta/models?key=AIzaSyA-1234&alt=sse failed":                               "GET /v1beta/models?key=[redacted]&alt=sse failed",
		"header x-goog-api-key: hunter2hunter2 refused":                                    "header x-goog-api-key: [redacted] refused",
		`{"api_key": "abcd1234efgh"}`:                                                      `{"api_key": "[redacted]"}`,
		"Incorrect API key provided: sk-proj-AbCdEf0123456789xyz.":                         "Incorrect API key provided: [redacted].",
		"key sk-ant-api03-AAAAAAAAAAAAAAAAAAAA and AIzaSyD0123456789abcdefghijklmnopqrstu": "key [redacted] and [redacted]",
		"short stays short; API key not valid":                                             "short stays short; API key not valid",
		"rate limited: retry in 20s (HTTP 429)":                                            "rate limited: retry in 20s (HTTP 429)",
		"no API key: set OPENAI_API_KEY (or run with --demo)":                              "no API key: set OPENAI_API_KEY (or run with --demo)",
	}
	for in, want := range cases {
		if got := s.Clean(in); got != want {
			t.Errorf("Clean(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

func FuzzScrub(f *testing.F) {
	f.Add("API key not valid: zq7Fh2LmP9xK4vB8nR3t", "zq7Fh2LmP9xK4vB8nR3t")
	f.Add("Bearer sk-proj-0123456789abcdef0123", "sk-proj-0123456789abcdef0123")
	f.Add("?key=abc&key=def", "abcdefghij")
	f.Fuzz(func(t *testing.T, text, secret string) {
		s := NewScrubber(secret)
		got := s.Clean(text)
		secret = strings.TrimSpace(secret)
		if len(secret) >= minSecret && strings.Contains(got, secret) && !strings.Contains(Redacted, secret) {
			// A secret may reappear only when the redaction marks themselves
			// spell it, which the check above excludes.
			t.Fatalf("secret %q survived in %q", secret, got)
		}
	})
}

// keyTransforms are the ways a message may carry a key altered (issue 31:
// an uppercased key, a key split by a newline and a percent-encoded key in
// a provider error were printed and stored as they were).
var keyTransforms = map[string]func(key string, at int) string{
	"upper":        func(k string, _ int) string { return strings.ToUpper(k) },
	"lower":        func(k string, _ int) string { return strings.ToLower(k) },
	"newline":      func(k string, at int) string { return k[:at] + "\n" + k[at:] },
	"crlf":         func(k string, at int) string { return k[:at] + "\r\n  " + k[at:] },
	"percent":      func(k string, _ int) string { return percentAll(k) },
	"percent-some": func(k string, at int) string { return k[:at] + percentAll(k[at:]) },
	"url-query":    func(k string, _ int) string { return url.QueryEscape(k) },
	"url-twice":    func(k string, _ int) string { return url.QueryEscape(url.QueryEscape(k)) },
	"json-split": func(k string, at int) string {
		b, _ := json.Marshal(k[:at] + "\n" + k[at:])
		return string(b[1 : len(b)-1])
	},
	"json-unicode": func(k string, _ int) string {
		var b strings.Builder
		for _, r := range k {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		return b.String()
	},
	"upper-percent": func(k string, _ int) string { return percentAll(strings.ToUpper(k)) },
}

func percentAll(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		fmt.Fprintf(&b, "%%%02x", c)
	}
	return b.String()
}

func TestScrubFindsAlteredKeys(t *testing.T) {
	const key = "zq7Fh2LmP9/xK4vB8nR3t+w="
	s := NewScrubber(key)
	for name, alter := range keyTransforms {
		in := "upstream said: invalid key " + alter(key, 7) + " (HTTP 401)"
		got := s.Clean(in)
		if got != "upstream said: invalid key [redacted] (HTTP 401)" {
			t.Errorf("%s: Clean(%q) = %q", name, in, got)
		}
	}
	if got := s.Clean("a plain error about zq7 and xK4"); got != "a plain error about zq7 and xK4" {
		t.Errorf("a message without the key changed: %q", got)
	}
}

// FuzzScrubAlteredKeys: whatever the key and the message around it, the
// key altered by any of keyTransforms is not in the scrubbed text.
func FuzzScrubAlteredKeys(f *testing.F) {
	f.Add("zq7Fh2LmP9xK4vB8nR3t", "error: ", " was rejected", uint8(0), uint8(3))
	f.Add("sk-proj-AbCdEf/0123+456=", "?key=", "&alt=sse", uint8(4), uint8(9))
	f.Add("ÄÖÜ-secret-ß-value", `{"message":"`, `"}`, uint8(8), uint8(5))
	names := slices.Sorted(maps.Keys(keyTransforms))
	f.Fuzz(func(t *testing.T, key, before, after string, which, at uint8) {
		key = strings.TrimSpace(key)
		if len(key) < minSecret || !utf8.ValidString(key) {
			return
		}
		cut := int(at) % len(key)
		for !utf8.RuneStart(key[cut]) {
			cut--
		}
		altered := keyTransforms[names[int(which)%len(names)]](key, cut)
		got := NewScrubber(key).Clean(before + altered + after)
		if strings.Contains(got, altered) && !strings.Contains(before+Redacted+after, altered) {
			t.Fatalf("key %q altered as %q survived: %q", key, altered, got)
		}
	})
}

// The provider error of issue 42: a key split by any character a door
// strips is found after the split is gone, and nothing of it is left.
func TestCleanFindsKeysSplitByStrippedCharacters(t *testing.T) {
	t.Parallel()
	const key = "zq7Xv9Lm2Pq4Rt8Wy1Bn"
	s := NewScrubber(key)
	for name, sep := range sanitizetest.Separators {
		for _, at := range []int{1, 9, len(key) - 1} {
			in := "API key not valid: " + key[:at] + sep + key[at:] + " (HTTP 400)"
			got := s.Clean(in)
			if got != "API key not valid: [redacted] (HTTP 400)" {
				t.Errorf("%s at %d: Clean(%q) = %q", name, at, in, got)
			}
		}
	}
}

// encodings are the ways a message may carry a configured key encoded.
var encodings = map[string]func(key string) string{
	"raw":           func(k string) string { return k },
	"base64":        func(k string) string { return base64.StdEncoding.EncodeToString([]byte(k)) },
	"base64 raw":    func(k string) string { return base64.RawStdEncoding.EncodeToString([]byte(k)) },
	"base64url":     func(k string) string { return base64.URLEncoding.EncodeToString([]byte(k)) },
	"base64url raw": func(k string) string { return base64.RawURLEncoding.EncodeToString([]byte(k)) },
	"basic auth":    func(k string) string { return base64.StdEncoding.EncodeToString([]byte("user:" + k)) },
	"basic auth 2":  func(k string) string { return base64.StdEncoding.EncodeToString([]byte("me:" + k + "@x")) },
	"hex":           func(k string) string { return hex.EncodeToString([]byte(k)) },
	"HEX":           func(k string) string { return strings.ToUpper(hex.EncodeToString([]byte(k))) },
	"percent":       func(k string) string { return percentAll(k) },
	"query":         func(k string) string { return url.QueryEscape(k) },
}

// The encoded forms of a configured key go, whole, and the message
// around them stays.
func TestCleanFindsEncodedKeys(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"zq7Xv9Lm2Pq4Rt8Wy1Bn", "zq7Fh2LmP9/xK4vB8nR3t+w=", "abcdefgh", "abcdefghi", "abcdefghij"} {
		s := NewScrubber(key)
		for name, enc := range encodings {
			in := "upstream said: " + enc(key) + " is not valid"
			got := s.Clean(in)
			if got != "upstream said: [redacted] is not valid" {
				t.Errorf("%s of %q: Clean(%q) = %q", name, key, in, got)
			}
		}
	}
	const key = "zq7Xv9Lm2Pq4Rt8Wy1Bn"
	plain := "model gpt-6 answered 0123456789abcdef in 12 ms; see https://example.com/docs"
	if got := NewScrubber(key).Clean(plain); got != plain {
		t.Errorf("a message without the key changed: %q", got)
	}
}

// FuzzClean is the property of the one pass: whatever the key (a
// printable token, as keys are), the message around it, the encoding it
// travels in and the stripped character splitting it, neither the key nor
// any encoded form of it is in the output, and the output carries no
// control, bidi or invisible character (so no door stripping later can
// join anything back).
func FuzzClean(f *testing.F) {
	f.Add("zq7Xv9Lm2Pq4Rt8Wy1Bn", "API key not valid: ", " (HTTP 400)", uint8(0), uint8(0), uint8(9))
	f.Add("sk-proj-AbCdEf/0123+456=", `{"error":"`, `"}`, uint8(3), uint8(5), uint8(2))
	f.Add("abcdefgh", "\x1b]0;", "\a", uint8(7), uint8(10), uint8(4))
	encNames := slices.Sorted(maps.Keys(encodings))
	sepNames := slices.Sorted(maps.Keys(sanitizetest.Separators))
	f.Fuzz(func(t *testing.T, key, before, after string, enc, sep, at uint8) {
		if len(key) < minSecret || strings.IndexFunc(key, func(r rune) bool { return r <= ' ' || r > '~' || r == '[' || r == ']' }) >= 0 {
			return // keys are printable tokens
		}
		encoded := encodings[encNames[int(enc)%len(encNames)]](key)
		cut := int(at) % len(encoded)
		in := before + encoded[:cut] + sanitizetest.Separators[sepNames[int(sep)%len(sepNames)]] + encoded[cut:] + after
		got := NewScrubber(key).Clean(in)
		for name, form := range encodings {
			if e := form(key); strings.Contains(got, e) && !strings.Contains(before+Redacted+after, e) {
				t.Fatalf("%s form %q of key %q survived: %q", name, e, key, got)
			}
		}
		for i, r := range got {
			if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0) || Invisible(r) || r == '\u200d' || r == '\ufe0f' {
				t.Fatalf("control %U at byte %d of %q", r, i, got)
			}
		}
		if Text(got) != got || Visible(got) != got {
			t.Fatalf("a later strip changes %q", got)
		}
	})
}
