package open_test

import (
	"context"
	"io"
	"log"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
)

// openStalling opens v on srv with tiny stall limits.
func openStalling(t *testing.T, v vendor, srv *providertest.Server, idle, firstByte time.Duration) providers.Provider {
	t.Helper()
	clearVendorEnv(t)
	spec := providers.Spec{Type: v.typ, API: v.api, BaseURL: srv.URL, APIKeyEnv: "PARLEY_TEST_KEY",
		Timeout: time.Minute, IdleTimeout: idle, FirstByteTimeout: firstByte}
	p, err := open.WithPolicy(v.name, spec, envMap("PARLEY_TEST_KEY", "good-key"), providers.RetryPolicy{Max: -1})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A stream that stops sending ends after idle_timeout, through every
// adapter: the text so far is kept and the error says it stalled, for
// how long and which setting to raise — long before the total timeout.
func TestStalledStreamEndsAfterTheIdleTimeout(t *testing.T) {
	defer log.SetOutput(log.Writer())
	log.SetOutput(io.Discard) // genai logs the aborted stream
	for _, v := range vendors {
		t.Run(v.name, func(t *testing.T) {
			srv := v.fake(t, func(providertest.Request) providertest.Reply {
				return providertest.Reply{Text: "one two three four", StallAfter: 2}
			})
			p := openStalling(t, v, srv, 150*time.Millisecond, 0)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			o := run(t, p, ctx, simpleRequest(v.model))
			if ctx.Err() != nil {
				t.Fatal("the stalled stream ran into the test's deadline")
			}
			if o.text() != "one two" {
				t.Fatalf("text = %q, want the two chunks sent", o.text())
			}
			pe := wantKind(t, o.err, providers.KindTimeout)
			if !strings.Contains(pe.Message, "no bytes for 150ms") || !strings.Contains(pe.Message, "providers."+v.name+".idle_timeout") {
				t.Fatalf("message %q", pe.Message)
			}
		})
	}
}

// Before the first byte the first_byte_timeout applies.
func TestSilentStreamEndsAfterTheFirstByteTimeout(t *testing.T) {
	v := vendorNamed("openai")
	srv := v.fake(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: "never", Delay: time.Minute}
	})
	p := openStalling(t, v, srv, time.Minute, 150*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	o := run(t, p, ctx, simpleRequest(v.model))
	pe := wantKind(t, o.err, providers.KindTimeout)
	if o.text() != "" || !strings.Contains(pe.Message, "no first byte for 150ms") || !strings.Contains(pe.Message, "first_byte_timeout") {
		t.Fatalf("text %q, message %q", o.text(), pe.Message)
	}
}
