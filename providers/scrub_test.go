package providers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestScrubRemovesKeysAndKeyShapes(t *testing.T) {
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
