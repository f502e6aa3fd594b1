package providers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DefaultTimeout bounds one whole request when Spec.Timeout is zero.
const DefaultTimeout = 5 * time.Minute

// Open builds the provider a configuration entry describes, wrapped in the
// shared retry policy (the demo provider is not wrapped). getenv reads keys
// and endpoint overrides; nil means os.Getenv.
//
// Only an invalid spec is an error (unknown type, unparsable base URL). A
// missing key is not: the provider is returned and every Stream fails with
// a KindMissingKey *Error naming the env var to set, so the other agents
// keep working.
func Open(name string, spec Spec, getenv func(string) string) (Provider, error) {
	return OpenWithPolicy(name, spec, getenv, RetryPolicy{})
}

// OpenWithPolicy is Open with a chosen retry policy, e.g. one whose Sleep
// records waits in tests. spec.MaxRetries applies when pol.Max is 0.
func OpenWithPolicy(name string, spec Spec, getenv func(string) string, pol RetryPolicy) (Provider, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	var (
		p   Provider
		err error
	)
	switch spec.Type {
	case "demo":
		return NewDemo(name), nil
	case "openai", "openai-compatible":
		p, err = newOpenAI(name, spec, getenv)
	case "anthropic":
		p, err = newAnthropic(name, spec, getenv)
	case "gemini":
		p, err = newGemini(name, spec, getenv)
	case "":
		return nil, fmt.Errorf("provider %q: type is missing (one of %s)", name, strings.Join(Types, ", "))
	default:
		return nil, fmt.Errorf("provider %q: unknown type %q (one of %s)", name, spec.Type, strings.Join(Types, ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("provider %q: %w", name, err)
	}
	if _, missing := p.(*missingKey); missing {
		return p, nil // nothing to retry: it never sends
	}
	if pol.Max == 0 && spec.MaxRetries != nil {
		pol.Max = *spec.MaxRetries
		if pol.Max <= 0 {
			pol.Max = -1 // configured 0: no retries (Max 0 means the default)
		}
	}
	return WithRetry(p, pol), nil
}

// KeyVars lists the env vars a spec reads its API key from, in order of
// preference; empty for demo and for openai-compatible servers that need
// no key.
func KeyVars(spec Spec) []string {
	if spec.APIKeyEnv != "" && spec.Type != "demo" {
		return []string{spec.APIKeyEnv}
	}
	switch spec.Type {
	case "openai":
		return []string{"OPENAI_API_KEY"}
	case "anthropic":
		return []string{"ANTHROPIC_API_KEY"}
	case "gemini":
		return []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}
	}
	return nil
}

// HasKey reports whether the spec can authenticate: one of its KeyVars is
// set, or it needs no key at all (demo, keyless openai-compatible servers).
func HasKey(spec Spec, getenv func(string) string) bool {
	vars := KeyVars(spec)
	if len(vars) == 0 {
		return true
	}
	return lookupKey(spec, getenv) != ""
}

// lookupKey returns the first non-empty value of the spec's KeyVars.
func lookupKey(spec Spec, getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	for _, v := range KeyVars(spec) {
		if key := strings.TrimSpace(getenv(v)); key != "" {
			return key
		}
	}
	return ""
}

// missingKey is the provider returned when no key is configured: it never
// touches the network and fails every request with a KindMissingKey error.
type missingKey struct {
	name string
	err  *Error
}

func newMissingKey(name string, spec Spec) Provider {
	vars := KeyVars(spec)
	return &missingKey{name: name, err: &Error{
		Provider: name,
		Kind:     KindMissingKey,
		Message:  fmt.Sprintf("no API key: set %s (or run with --demo)", strings.Join(vars, " or ")),
	}}
}

func (m *missingKey) Name() string { return m.name }

func (m *missingKey) Stream(context.Context, Request) (Stream, error) { return nil, m.err }

// resolveBaseURL picks the explicit base_url, else the vendor's env var
// (envVar may be empty), else the default, and checks it is an http(s) URL.
func resolveBaseURL(spec Spec, getenv func(string) string, envVar, def string) (string, error) {
	raw, from := strings.TrimSpace(spec.BaseURL), "base_url"
	if raw == "" && envVar != "" {
		raw, from = strings.TrimSpace(getenv(envVar)), envVar
	}
	if raw == "" {
		if def == "" {
			return "", errors.New("base_url is required for type " + spec.Type)
		}
		return def, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%s %q is not a valid URL: %v", from, raw, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s %q is not a valid URL: want http(s)://host[:port][/path]", from, raw)
	}
	return strings.TrimRight(raw, "/"), nil
}

func specTimeout(spec Spec) time.Duration {
	if spec.Timeout > 0 {
		return spec.Timeout
	}
	return DefaultTimeout
}

// newHTTPClient returns the client every adapter uses: no client-wide
// timeout (a long answer may stream for minutes; each request gets a
// context deadline instead) and a transport that lets adapters read the
// headers of error responses, which some SDKs drop (Retry-After).
func newHTTPClient() *http.Client {
	base := http.DefaultTransport.(*http.Transport).Clone()
	return &http.Client{Transport: &headerCapture{base: base}}
}

type headerSinkKey struct{}

// headerSink receives the headers of the last response of one request.
type headerSink struct{ h http.Header }

// withHeaderSink returns a context whose requests record their response
// headers into the returned sink. A request is driven by one goroutine at a
// time, so the sink needs no lock beyond the happens-before of the call.
func withHeaderSink(ctx context.Context) (context.Context, *headerSink) {
	s := &headerSink{}
	return context.WithValue(ctx, headerSinkKey{}, s), s
}

func (s *headerSink) header() http.Header {
	if s == nil || s.h == nil {
		return http.Header{}
	}
	return s.h
}

type headerCapture struct{ base http.RoundTripper }

func (t *headerCapture) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err == nil && resp != nil {
		if s, ok := r.Context().Value(headerSinkKey{}).(*headerSink); ok {
			s.h = resp.Header.Clone()
		}
	}
	return resp, err
}

// shortMessage trims a vendor message to something that fits a panel.
func shortMessage(s string) string {
	s = strings.TrimSpace(s)
	const limit = 400
	if r := []rune(s); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return s
}

// newPullStream starts the shared part of every adapter's stream: the
// request context with the spec's timeout and the response-header capture
// (for Retry-After). The adapter sets recv and closeSDK.
func newPullStream(ctx context.Context, provider string, timeout time.Duration, vendorError func(error, http.Header) *Error) *pullStream {
	reqCtx, cancel := context.WithTimeout(ctx, timeout)
	reqCtx, headers := withHeaderSink(reqCtx)
	return &pullStream{provider: provider, callerCtx: ctx, reqCtx: reqCtx, cancel: cancel, timeout: timeout,
		headers: headers, vendorError: vendorError}
}

// pullStream adapts an SDK's pull-style stream (one call per event) to
// Stream, with the error classification and deadline every adapter shares.
type pullStream struct {
	provider  string
	callerCtx context.Context // the caller's context: its end means cancel
	reqCtx    context.Context // callerCtx plus the spec's timeout
	cancel    context.CancelFunc
	timeout   time.Duration
	headers   *headerSink

	// recv returns the next text (possibly empty) and updates res; io.EOF
	// at the normal end.
	recv func(res *Result) (string, error)
	// vendorError maps an SDK error to *Error, nil when it is not an API
	// error of that SDK.
	vendorError func(err error, h http.Header) *Error
	closeSDK    func() error

	delta string
	err   error
	res   Result
	done  bool

	// recvMu is held while recv runs: Close from another goroutine cancels
	// the request (which ends a blocked recv) and then waits for it, since
	// not every SDK stream may be closed while it is being read (genai's
	// iter.Pull2 stop races with its next).
	recvMu    sync.Mutex
	closeOnce sync.Once
	closeErr  error
}

func (s *pullStream) Next() bool {
	if s.done {
		return false
	}
	for {
		s.recvMu.Lock()
		text, err := s.safeRecv()
		s.recvMu.Unlock()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.err = s.classify(err)
			}
			s.finish()
			return false
		}
		if text != "" {
			s.delta = text
			return true
		}
	}
}

// safeRecv turns a panic inside an SDK's decoding of server bytes into an
// error: nothing a server sends may crash the program.
func (s *pullStream) safeRecv() (text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			text, err = "", &Error{Provider: s.provider, Kind: KindOther,
				Message: fmt.Sprintf("malformed response from server: %v", r)}
		}
	}()
	if s.reqCtx.Err() != nil {
		return "", s.reqCtx.Err()
	}
	return s.recv(&s.res)
}

func (s *pullStream) finish() {
	s.done = true
	s.delta = ""
	_ = s.Close()
}

func (s *pullStream) Delta() string  { return s.delta }
func (s *pullStream) Err() error     { return s.err }
func (s *pullStream) Result() Result { return s.res }

// Close may be called from another goroutine to abort a blocked Next.
func (s *pullStream) Close() error {
	if s.cancel != nil {
		s.cancel() // first: it ends a recv in flight
	}
	s.recvMu.Lock()
	defer s.recvMu.Unlock()
	s.closeOnce.Do(func() {
		if s.closeSDK != nil {
			func() {
				defer func() { _ = recover() }()
				s.closeErr = s.closeSDK()
			}()
		}
	})
	return s.closeErr
}

func (s *pullStream) classify(err error) error {
	return classifyError(s.provider, err, s.callerCtx, s.reqCtx, s.timeout, s.headers.header(), s.vendorError)
}

// classifyError maps any failure of a request to *Error: cancellation and
// deadlines first (an SDK error caused by them is not the server's fault),
// then the vendor's API errors, then transport failures.
func classifyError(provider string, err error, callerCtx, reqCtx context.Context, timeout time.Duration,
	h http.Header, vendor func(error, http.Header) *Error) *Error {
	if pe, ok := AsError(err); ok {
		return pe
	}
	if callerCtx != nil && callerCtx.Err() != nil {
		cause := callerCtx.Err()
		if errors.Is(cause, context.Canceled) {
			return &Error{Provider: provider, Kind: KindCanceled, Message: "cancelled", Err: cause}
		}
		return &Error{Provider: provider, Kind: KindNetwork, Message: "deadline exceeded", Err: cause}
	}
	if reqCtx != nil && errors.Is(reqCtx.Err(), context.DeadlineExceeded) {
		// Not retried: each attempt gets the whole timeout again, so a
		// server that hangs would hold the turn for four times as long.
		return &Error{Provider: provider, Kind: KindTimeout, Err: err,
			Message: fmt.Sprintf("no complete answer within %s (raise providers.%s.timeout in the configuration)", timeout, provider)}
	}
	if vendor != nil {
		if pe := vendor(err, h); pe != nil {
			pe.Provider = provider
			pe.Message = shortMessage(pe.Message)
			return pe
		}
	}
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &Error{Provider: provider, Kind: KindNetwork, Err: err,
			Message: "connection closed before the answer was complete"}
	case errors.Is(err, context.Canceled):
		return &Error{Provider: provider, Kind: KindCanceled, Message: "cancelled", Err: err}
	case isNetworkError(err):
		msg := err.Error()
		var opErr *net.OpError
		if errors.As(err, &opErr) && opErr.Op == "dial" && opErr.Addr != nil {
			msg = fmt.Sprintf("cannot reach %s: %v", opErr.Addr, opErr.Err)
		}
		return &Error{Provider: provider, Kind: KindNetwork, Err: err, Message: shortMessage(msg)}
	}
	return &Error{Provider: provider, Kind: KindOther, Err: err, Message: shortMessage(err.Error())}
}

func isNetworkError(err error) bool {
	var netErr net.Error
	var urlErr *url.Error
	var opErr *net.OpError
	return errors.As(err, &netErr) || errors.As(err, &urlErr) || errors.As(err, &opErr) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed)
}

// httpError builds the *Error of an HTTP error response.
func httpError(status int, message string, h http.Header, err error) *Error {
	if message == "" {
		message = http.StatusText(status)
	}
	return &Error{
		Kind:       KindForStatus(status),
		Status:     status,
		RetryAfter: parseRetryAfter(h, time.Now()),
		Message:    message,
		Err:        err,
	}
}
