package open_test

import (
	"context"
	"io"
	"log"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
)

// The tests here run every adapter against its fake over real HTTP.

func TestAdapterStreamsTextInOrder(t *testing.T) {
	for _, v := range vendors {
		t.Run(v.name, func(t *testing.T) {
			chunks := []string{"The", " quick", " brown", " fox", " — ünïcode ✓", "\n\nend."}
			srv := v.fake(t, func(providertest.Request) providertest.Reply {
				return providertest.Reply{Chunks: chunks, Usage: providers.Usage{InputTokens: 12, OutputTokens: 6}}
			})
			p, _ := openFake(t, v, srv, "good-key")
			o := run(t, p, context.Background(), simpleRequest(v.model))
			if o.err != nil {
				t.Fatalf("err = %v", o.err)
			}
			if !reflect.DeepEqual(o.deltas, chunks) {
				t.Fatalf("deltas = %q, want %q", o.deltas, chunks)
			}
			if o.res.FinishReason == "" {
				t.Error("no finish reason reported")
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("requests = %d, want 1", len(reqs))
			}
		})
	}
}

func TestAdapterReportsUsageWithCachedTokens(t *testing.T) {
	want := providers.Usage{InputTokens: 1200, OutputTokens: 37, CachedTokens: 1024}
	for _, v := range vendors {
		t.Run(v.name, func(t *testing.T) {
			srv := v.fake(t, func(providertest.Request) providertest.Reply {
				return providertest.Reply{Text: "a short answer", Usage: want}
			})
			p, _ := openFake(t, v, srv, "good-key")
			o := run(t, p, context.Background(), simpleRequest(v.model))
			if o.err != nil {
				t.Fatalf("err = %v", o.err)
			}
			if o.res.Usage != want {
				t.Fatalf("usage = %+v, want %+v", o.res.Usage, want)
			}
		})
	}
}

func TestAdapterRetriesRateLimitHonouringRetryAfter(t *testing.T) {
	for _, v := range vendors {
		t.Run(v.name, func(t *testing.T) {
			srv := v.fake(t, providertest.Sequence(
				providertest.Reply{Status: http.StatusTooManyRequests, RetryAfter: "1", Text: "slow down"},
				providertest.Reply{Text: "second time lucky"},
			))
			p, rec := openFake(t, v, srv, "good-key")
			var notices []providers.RetryNotice
			req := simpleRequest(v.model)
			req.OnRetry = func(n providers.RetryNotice) { notices = append(notices, n) }

			o := run(t, p, context.Background(), req)
			if o.err != nil {
				t.Fatalf("err = %v", o.err)
			}
			if o.text() != "second time lucky" {
				t.Fatalf("text = %q", o.text())
			}
			if got := rec.recorded(); !reflect.DeepEqual(got, []time.Duration{time.Second}) {
				t.Fatalf("waits = %v, want [1s]", got)
			}
			if len(notices) != 1 || notices[0].Attempt != 1 || notices[0].Wait != time.Second {
				t.Fatalf("notices = %+v, want one for attempt 1 waiting 1s", notices)
			}
			pe := wantKind(t, notices[0].Err, providers.KindRateLimit)
			if pe.Status != http.StatusTooManyRequests || !strings.Contains(pe.Message, "slow down") {
				t.Errorf("notice error = %+v, want status 429 with the vendor's message", pe)
			}
			if n := len(srv.Requests()); n != 2 {
				t.Fatalf("requests = %d, want 2", n)
			}
		})
	}
}

func TestAdapterRetriesServerErrors(t *testing.T) {
	for _, v := range vendors {
		for _, status := range []int{500, 502, 503, 504, 529} {
			t.Run(v.name+"/"+http.StatusText(status), func(t *testing.T) {
				srv := v.fake(t, providertest.Sequence(
					providertest.Reply{Status: status},
					providertest.Reply{Text: "recovered"},
				))
				p, rec := openFake(t, v, srv, "good-key")
				o := run(t, p, context.Background(), simpleRequest(v.model))
				if o.err != nil || o.text() != "recovered" {
					t.Fatalf("text = %q, err = %v", o.text(), o.err)
				}
				if got := rec.recorded(); len(got) != 1 || got[0] <= 0 || got[0] > providers.DefaultRetryBase {
					t.Fatalf("waits = %v, want one backoff within the first window", got)
				}
			})
		}
	}
}

func TestAdapterStreamCutKeepsPartialTextWithoutRetry(t *testing.T) {
	defer log.SetOutput(log.Writer())
	log.SetOutput(io.Discard) // genai logs a cut stream through the log package
	for _, v := range vendors {
		t.Run(v.name, func(t *testing.T) {
			srv := v.fake(t, func(providertest.Request) providertest.Reply {
				return providertest.Reply{Text: "one two three four five", CutAfter: 2,
					Usage: providers.Usage{InputTokens: 5, OutputTokens: 5}}
			})
			p, rec := openFake(t, v, srv, "good-key")
			o := run(t, p, context.Background(), simpleRequest(v.model))
			if o.text() != "one two" {
				t.Fatalf("partial text = %q, want %q", o.text(), "one two")
			}
			wantKind(t, o.err, providers.KindNetwork)
			if n := len(srv.Requests()); n != 1 {
				t.Fatalf("requests = %d, want 1 (no retry after text)", n)
			}
			if w := rec.recorded(); len(w) != 0 {
				t.Fatalf("waits = %v, want none", w)
			}
		})
	}
}

func TestAdapterCutBeforeAnyTextIsRetried(t *testing.T) {
	defer log.SetOutput(log.Writer())
	log.SetOutput(io.Discard)
	for _, v := range vendors {
		t.Run(v.name, func(t *testing.T) {
			// Chunks start with an empty delta so the cut lands before any text.
			srv := v.fake(t, providertest.Sequence(
				providertest.Reply{Chunks: []string{"", "never"}, CutAfter: 1},
				providertest.Reply{Text: "fine now"},
			))
			p, rec := openFake(t, v, srv, "good-key")
			o := run(t, p, context.Background(), simpleRequest(v.model))
			if o.err != nil || o.text() != "fine now" {
				t.Fatalf("text = %q, err = %v", o.text(), o.err)
			}
			if len(rec.recorded()) != 1 || len(srv.Requests()) != 2 {
				t.Fatalf("waits = %v, requests = %d; want 1 and 2", rec.recorded(), len(srv.Requests()))
			}
		})
	}
}

func TestAdapterWrongKeyIsAuthErrorWithoutRetry(t *testing.T) {
	for _, v := range vendors {
		t.Run(v.name, func(t *testing.T) {
			srv := v.fake(t, func(providertest.Request) providertest.Reply {
				t.Error("handler called for a bad key")
				return providertest.Reply{}
			})
			p, rec := openFake(t, v, srv, providertest.BadKey)
			o := run(t, p, context.Background(), simpleRequest(v.model))
			pe := wantKind(t, o.err, providers.KindAuth)
			if pe.Status == 0 || pe.Message == "" || strings.Contains(pe.Message, "{") {
				t.Errorf("auth error = %+v, want a status and the vendor's plain message", pe)
			}
			if pe.Provider != v.name {
				t.Errorf("provider = %q, want %q", pe.Provider, v.name)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Fatalf("requests = %d, want exactly 1", n)
			}
			if w := rec.recorded(); len(w) != 0 {
				t.Fatalf("waits = %v, want none", w)
			}
		})
	}
}

func TestAdapterBadRequestIsNotRetried(t *testing.T) {
	for _, v := range vendors {
		t.Run(v.name, func(t *testing.T) {
			srv := v.fake(t, func(providertest.Request) providertest.Reply {
				return providertest.Reply{Status: 400, Text: "model does not exist"}
			})
			p, _ := openFake(t, v, srv, "good-key")
			o := run(t, p, context.Background(), simpleRequest(v.model))
			pe := wantKind(t, o.err, providers.KindBadRequest)
			if !strings.Contains(pe.Message, "model does not exist") {
				t.Errorf("message = %q", pe.Message)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Fatalf("requests = %d, want 1", n)
			}
		})
	}
}

func TestAdapterCancelMidStream(t *testing.T) {
	for _, v := range vendors {
		t.Run(v.name, func(t *testing.T) {
			srv := v.fake(t, func(providertest.Request) providertest.Reply {
				return providertest.Reply{Text: "a b c d e f g h", ChunkDelay: 30 * time.Millisecond}
			})
			p, rec := openFake(t, v, srv, "good-key")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s, err := p.Stream(ctx, simpleRequest(v.model))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if !s.Next() {
				t.Fatalf("no first delta: %v", s.Err())
			}
			cancel()
			start := time.Now()
			for s.Next() {
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Fatalf("cancel took %v", d)
			}
			wantKind(t, s.Err(), providers.KindCanceled)
			if len(rec.recorded()) != 0 {
				t.Fatal("retried after cancel")
			}
		})
	}
}

func TestAdapterServerErrorInsideStream(t *testing.T) {
	// An overloaded error event after the stream started, before any text.
	bodies := map[string]string{
		"openai":           "data: {\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n",
		"openai-responses": "event: error\ndata: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"The server had an error\",\"param\":null,\"sequence_number\":1}\n\n",
		"anthropic":        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
		"gemini":           "data: {\"error\":{\"code\":503,\"message\":\"The model is overloaded.\",\"status\":\"UNAVAILABLE\"}}\n\n",
	}
	for _, v := range vendors {
		t.Run(v.name, func(t *testing.T) {
			srv := v.fake(t, providertest.Sequence(
				providertest.Reply{Raw: []byte(bodies[v.name])},
				providertest.Reply{Text: "back again"},
			))
			p, rec := openFake(t, v, srv, "good-key")
			o := run(t, p, context.Background(), simpleRequest(v.model))
			if o.err != nil || o.text() != "back again" {
				t.Fatalf("text = %q, err = %v", o.text(), o.err)
			}
			if len(rec.recorded()) != 1 {
				t.Fatalf("waits = %v, want 1", rec.recorded())
			}
		})
	}
}

func TestAdapterHugeChunk(t *testing.T) {
	huge := strings.Repeat("word ", 200_000) // one 1 MB delta: one 1 MB SSE line
	for _, v := range vendors {
		t.Run(v.name, func(t *testing.T) {
			srv := v.fake(t, func(providertest.Request) providertest.Reply {
				return providertest.Reply{Chunks: []string{"start ", huge, "end"}}
			})
			p, _ := openFake(t, v, srv, "good-key")
			o := run(t, p, context.Background(), simpleRequest(v.model))
			if o.err != nil {
				t.Fatalf("err = %v", o.err)
			}
			if o.text() != "start "+huge+"end" {
				t.Fatalf("text of %d bytes, want %d", len(o.text()), len(huge)+9)
			}
		})
	}
}

func TestAdapterForbiddenIsAuth(t *testing.T) {
	for _, v := range vendors {
		t.Run(v.name, func(t *testing.T) {
			srv := v.fake(t, func(providertest.Request) providertest.Reply {
				return providertest.Reply{Status: http.StatusForbidden, Text: "permission denied"}
			})
			p, _ := openFake(t, v, srv, "good-key")
			o := run(t, p, context.Background(), simpleRequest(v.model))
			wantKind(t, o.err, providers.KindAuth)
			if n := len(srv.Requests()); n != 1 {
				t.Fatalf("requests = %d, want 1", n)
			}
		})
	}
}

func TestAdapterConnectionRefusedIsRetriedNetworkError(t *testing.T) {
	for _, v := range vendors {
		t.Run(v.name, func(t *testing.T) {
			srv := v.fake(t, nil)
			srv.Close() // nothing listens there any more
			p, rec := openFake(t, v, srv, "good-key")
			o := run(t, p, context.Background(), simpleRequest(v.model))
			wantKind(t, o.err, providers.KindNetwork)
			if n := len(rec.recorded()); n != providers.DefaultMaxRetries {
				t.Fatalf("waits = %d, want %d", n, providers.DefaultMaxRetries)
			}
		})
	}
}

// A request that outlives the provider's timeout is not retried: each retry
// would wait the whole timeout again, holding the turn four times as long.
func TestAdapterTimeoutIsNotRetried(t *testing.T) {
	for _, v := range vendors {
		t.Run(v.name, func(t *testing.T) {
			srv := v.fake(t, func(providertest.Request) providertest.Reply {
				return providertest.Reply{Text: "too late", Delay: 2 * time.Second}
			})
			clearVendorEnv(t)
			spec := providers.Spec{Type: v.typ, BaseURL: srv.URL, APIKeyEnv: "PARLEY_TEST_KEY", Timeout: 200 * time.Millisecond}
			rec := &sleepRecorder{}
			p, err := open.WithPolicy(v.name, spec, envMap("PARLEY_TEST_KEY", "good-key"), providers.RetryPolicy{Sleep: rec.sleep})
			if err != nil {
				t.Fatal(err)
			}
			o := run(t, p, context.Background(), simpleRequest(v.model))
			pe := wantKind(t, o.err, providers.KindTimeout)
			if !strings.Contains(pe.Error(), "200ms") {
				t.Errorf("error %q does not say which timeout ran out", pe)
			}
			if w := rec.recorded(); len(w) != 0 {
				t.Fatalf("waits = %v, want no retry", w)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Fatalf("requests = %d, want 1", n)
			}
		})
	}
}

// Close from another goroutine (the engine cancelling a turn) ends a Next
// blocked on a slow stream promptly, without a data race in any SDK.
func TestAdapterCloseFromAnotherGoroutine(t *testing.T) {
	defer log.SetOutput(log.Writer())
	log.SetOutput(io.Discard)
	for _, v := range vendors {
		t.Run(v.name, func(t *testing.T) {
			srv := v.fake(t, func(providertest.Request) providertest.Reply {
				return providertest.Reply{Chunks: []string{"a", "b", "c"}, ChunkDelay: 3 * time.Second}
			})
			p, rec := openFake(t, v, srv, "good-key")
			s, err := p.Stream(context.Background(), simpleRequest(v.model))
			if err != nil {
				t.Fatal(err)
			}
			// Close while the first chunk is three seconds away; whenever it
			// lands, Next must give up at once.
			closed := make(chan struct{})
			time.AfterFunc(200*time.Millisecond, func() {
				defer close(closed)
				_ = s.Close()
			})
			start := time.Now()
			for s.Next() {
			}
			<-closed
			if d := time.Since(start); d > 20*time.Second {
				t.Fatalf("Next returned %v after Close", d)
			}
			pe := wantKind(t, s.Err(), providers.KindCanceled)
			if strings.Contains(pe.Error(), "retry") {
				t.Errorf("error %q speaks of a retry that never was", pe)
			}
			if w := rec.recorded(); len(w) != 0 {
				t.Errorf("waits = %v, want none", w)
			}
		})
	}
}
