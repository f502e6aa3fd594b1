package serve

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/store"
)

// hmacHex is HMAC-SHA256 written out here, apart from Sign, for checking
// what a receiver gets.
func hmacHex(secret, message string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(message))
	return hex.EncodeToString(mac.Sum(nil))
}

// The signature is HMAC-SHA256 over "timestamp.body", checked against a
// value computed outside Go:
//
//	printf '%s.%s' 1767225600 '{"session_id":"abc123","event":{"type":"magi_decided"}}' \
//	  | openssl dgst -sha256 -hmac parley-test-secret
//
// (python3's hmac gives the same). An HMAC of the body alone, or with
// another separator, fails it.
func TestSignKnownAnswer(t *testing.T) {
	t.Parallel()
	const want = "sha256=eb704beae4932d599c602716f015d35d9637d245d6b16e1cfced8baa93d98f2a"
	got := Sign([]byte("parley-test-secret"), "1767225600", []byte(`{"session_id":"abc123","event":{"type":"magi_decided"}}`))
	if got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
}

// fixtureWithHooks is a server whose hooks are given, on a quick retry.
func fixtureWithHooks(t *testing.T, hooks ...config.WebhookSpec) *fixture {
	return newFixture(t, func(o *Options) {
		o.Config.Webhooks = hooks
		o.WebhookBackoff = time.Millisecond
		o.WebhookAttempts = 2
	})
}

// deliveriesAfterMagi asks a council, waits for every delivery and returns the log.
func (f *fixture) deliveriesAfterMagi() []store.Delivery {
	f.t.Helper()
	f.must(200, "POST", "/api/v1/magi", map[string]any{"question": "ship on friday?", "single_round": true})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.srv.hooks.idle(ctx); err != nil {
		f.t.Fatal(err)
	}
	log, err := f.st.Deliveries(context.Background(), 0)
	if err != nil {
		f.t.Fatal(err)
	}
	return log
}

// countingReceiver counts the requests it gets.
func countingReceiver(t *testing.T, status int) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if status == http.StatusFound {
			http.Redirect(w, r, "/elsewhere", status)
			return
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// A webhook cannot reach this machine or its network unless allowed: the
// check runs on the address each connection goes to, after the name is
// resolved, so "localhost" (or a name rebound to 127.0.0.1) is caught.
func TestWebhookRefusesInternalTargets(t *testing.T) {
	t.Parallel()
	recv, hits := countingReceiver(t, http.StatusNoContent)
	byName := strings.Replace(recv.URL, "127.0.0.1", "localhost", 1)
	f := fixtureWithHooks(t,
		config.WebhookSpec{URL: recv.URL, Events: []string{"magi_decided"}},
		config.WebhookSpec{URL: byName, Events: []string{"magi_decided"}},
	)
	log := f.deliveriesAfterMagi()
	if len(log) != 2 || hits.Load() != 0 {
		t.Fatalf("%d deliveries, the receiver got %d requests", len(log), hits.Load())
	}
	for _, d := range log {
		// One attempt: a refusal is not retried.
		if d.Delivered || d.Attempts != 1 || !strings.Contains(d.Error, "is a loopback address (allow_private: true on this webhook allows it)") {
			t.Errorf("delivery %+v", d)
		}
	}
}

// A redirect is not followed: the delivery fails with the 3xx and the
// place it points to never hears of it.
func TestWebhookRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	recv, hits := countingReceiver(t, http.StatusFound)
	f := fixtureWithHooks(t, config.WebhookSpec{URL: recv.URL + "/hook", Events: []string{"magi_decided"}, AllowPrivate: true})
	log := f.deliveriesAfterMagi()
	if len(log) != 1 || log[0].Delivered || log[0].Status != 302 || !strings.Contains(log[0].Error, "redirects are not followed") {
		t.Fatalf("log %+v", log)
	}
	if hits.Load() != 2 { // the two attempts, never /elsewhere
		t.Errorf("the receiver got %d requests, want 2", hits.Load())
	}
}

// A URL's password and secret-looking query values are never stored or
// printed: the log holds the redacted URL.
func TestWebhookURLRedactedInTheLog(t *testing.T) {
	t.Parallel()
	recv, hits := countingReceiver(t, http.StatusNoContent)
	secretURL := strings.Replace(recv.URL, "http://", "http://hook:hunter2-pass@", 1) + "/in?token=tok-SECRET-123&event=x"
	f := fixtureWithHooks(t, config.WebhookSpec{URL: secretURL, Events: []string{"magi_decided", "session_finished"}, AllowPrivate: true})
	log := f.deliveriesAfterMagi()
	if len(log) != 2 || hits.Load() != 2 {
		t.Fatalf("%d deliveries, %d received", len(log), hits.Load())
	}
	want := strings.Replace(recv.URL, "http://", "http://redacted@", 1) + "/in?token=[redacted]&event=x"
	for _, d := range log {
		if d.URL != want || !d.Delivered {
			t.Errorf("stored %+v, want URL %s", d, want)
		}
	}
	for _, asJSON := range []bool{false, true} {
		var out bytes.Buffer
		if err := WriteDeliveries(&out, append(log, store.Delivery{URL: secretURL, Event: "old row"}), asJSON); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), "hunter2") || strings.Contains(out.String(), "SECRET") {
			t.Errorf("webhooks log shows a secret:\n%s", out.String())
		}
	}
}
