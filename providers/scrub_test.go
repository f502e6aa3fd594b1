package providers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/sanitize"
)

// A scrubbed *Error keeps what the retry policy and the console read, and
// a cancel stays a cancel; no text of the chain holds the key.
func TestScrubErrorKeepsKindAndCancel(t *testing.T) {
	t.Parallel()
	const key = "zq7Fh2LmP9xK4vB8nR3t"
	s := sanitize.NewScrubber(key)
	inner := fmt.Errorf("POST https://x/v1?key=%s: %w", key, context.Canceled)
	pe := &Error{Provider: "gemini", Kind: KindRateLimit, Status: 429, RetryAfter: 3, Message: "quota for " + key, Err: inner}
	for _, err := range []error{pe, fmt.Errorf("wrapped: %w", pe)} {
		got := ScrubError(s, err)
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
	if ScrubError(s, nil) != nil {
		t.Fatal("nil error became non-nil")
	}
}
