package open_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
)

// vendorEnvVars are the variables the SDKs or Open could read from the
// machine; every adapter test clears them so nothing leaks in.
var vendorEnvVars = []string{
	"OPENAI_API_KEY", "OPENAI_BASE_URL",
	"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_PROFILE",
	"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_GENAI_USE_VERTEXAI",
	"GOOGLE_GENAI_USE_ENTERPRISE", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION",
}

func clearVendorEnv(t *testing.T) {
	t.Helper()
	for _, v := range vendorEnvVars {
		t.Setenv(v, "")
	}
}

// envMap is a getenv over a fixed map.
func envMap(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// vendor describes one adapter under test with its fake server.
type vendor struct {
	name  string
	typ   string
	model string
	fake  func(testing.TB, func(providertest.Request) providertest.Reply) *providertest.Server
	api   string // OpenAI's API: responses or chat
}

// vendors are the adapters every adapter test runs against: OpenAI's two
// APIs, Anthropic and Gemini.
var vendors = []vendor{
	{"openai", "openai", "gpt-5", providertest.OpenAI, "chat"},
	{"openai-responses", "openai", "gpt-6.1-sol", providertest.OpenAI, "responses"},
	{"anthropic", "anthropic", "claude-sonnet-4-6", providertest.Anthropic, ""},
	{"gemini", "gemini", "gemini-3-flash-preview", providertest.Gemini, ""},
}

// sleepRecorder stands in for providers.RetryPolicy.Sleep: it records the waits and
// returns at once (or with ctx's error when ctx is done).
type sleepRecorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (r *sleepRecorder) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	r.waits = append(r.waits, d)
	r.mu.Unlock()
	return ctx.Err()
}

func (r *sleepRecorder) recorded() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Duration(nil), r.waits...)
}

// openFake opens v's adapter against srv with key, wrapped in a retry
// policy whose waits are recorded instead of slept.
func openFake(t *testing.T, v vendor, srv *providertest.Server, key string) (providers.Provider, *sleepRecorder) {
	t.Helper()
	clearVendorEnv(t)
	spec := providers.Spec{Type: v.typ, API: v.api, BaseURL: srv.URL, APIKeyEnv: "PARLEY_TEST_KEY", Timeout: time.Minute} // a loaded machine: no stall counts as a timeout here
	rec := &sleepRecorder{}
	pol := providers.RetryPolicy{Sleep: rec.sleep, Rand: func() float64 { return 0.5 }}
	p, err := open.WithPolicy(v.name, spec, envMap("PARLEY_TEST_KEY", key), pol)
	if err != nil {
		t.Fatalf("open %s: %v", v.name, err)
	}
	return p, rec
}

// outcome is everything a stream produced.
type outcome struct {
	deltas []string
	err    error
	res    providers.Result
}

func (o outcome) text() string { return strings.Join(o.deltas, "") }

// run streams req to the end; an error from Stream itself is reported like
// one from Next, as callers handle both the same way.
func run(t *testing.T, p providers.Provider, ctx context.Context, req providers.Request) outcome {
	t.Helper()
	s, err := p.Stream(ctx, req)
	if err != nil {
		return outcome{err: err}
	}
	defer s.Close()
	var o outcome
	for s.Next() {
		o.deltas = append(o.deltas, s.Delta())
	}
	o.err = s.Err()
	o.res = s.Result()
	return o
}

func simpleRequest(model string) providers.Request {
	return providers.Request{Model: model, Messages: []providers.Message{{Role: providers.RoleUser, Content: "Hello?"}}}
}

// wantKind fails unless err is a *providers.Error of kind.
func wantKind(t *testing.T, err error, kind providers.ErrorKind) *providers.Error {
	t.Helper()
	var pe *providers.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v (%T), want *providers.Error of kind %s", err, err, kind)
	}
	if pe.Kind != kind {
		t.Fatalf("kind = %s, want %s (error: %v)", pe.Kind, kind, err)
	}
	return pe
}

func vendorNamed(name string) vendor {
	for _, v := range vendors {
		if v.name == name {
			return v
		}
	}
	panic("no vendor " + name)
}
