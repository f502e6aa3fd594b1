package providers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
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
		if got := s.Scrub(in); got != want {
			t.Errorf("Scrub(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

// A scrubbed *Error keeps what the retry policy and the console read, and
// a cancel stays a cancel; no text of the chain holds the key.
func TestScrubErrorKeepsKindAndCancel(t *testing.T) {
	t.Parallel()
	const key = "zq7Fh2LmP9xK4vB8nR3t"
	s := NewScrubber(key)
	inner := fmt.Errorf("POST https://x/v1?key=%s: %w", key, context.Canceled)
	pe := &Error{Provider: "gemini", Kind: KindRateLimit, Status: 429, RetryAfter: 3, Message: "quota for " + key, Err: inner}
	for _, err := range []error{pe, fmt.Errorf("wrapped: %w", pe)} {
		got := s.Error(err)
		if strings.Contains(got.Error(), key) {
			t.Fatalf("key in %q", got.Error())
		}
		gp, ok := AsError(got)
		if !ok || gp.Kind != KindRateLimit || gp.Status != 429 || gp.RetryAfter != 3 || !gp.Retryable() {
			t.Fatalf("lost the classification: %#v", gp)
		}
		for e := error(gp); e != nil; e = errors.Unwrap(e) {
			if strings.Contains(e.Error(), key) {
				t.Fatalf("key in the chain: %q", e.Error())
			}
		}
		if !errors.Is(got, context.Canceled) {
			t.Fatalf("%v is no longer a cancel", got)
		}
	}
	if s.Error(nil) != nil {
		t.Fatal("nil error became non-nil")
	}
}

func FuzzScrub(f *testing.F) {
	f.Add("API key not valid: zq7Fh2LmP9xK4vB8nR3t", "zq7Fh2LmP9xK4vB8nR3t")
	f.Add("Bearer sk-proj-0123456789abcdef0123", "sk-proj-0123456789abcdef0123")
	f.Add("?key=abc&key=def", "abcdefghij")
	f.Fuzz(func(t *testing.T, text, secret string) {
		s := NewScrubber(secret)
		got := s.Scrub(text)
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
		got := s.Scrub(in)
		if got != "upstream said: invalid key [redacted] (HTTP 401)" {
			t.Errorf("%s: Scrub(%q) = %q", name, in, got)
		}
	}
	if got := s.Scrub("a plain error about zq7 and xK4"); got != "a plain error about zq7 and xK4" {
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
		got := NewScrubber(key).Scrub(before + altered + after)
		if strings.Contains(got, altered) && !strings.Contains(before+Redacted+after, altered) {
			t.Fatalf("key %q altered as %q survived: %q", key, altered, got)
		}
	})
}
