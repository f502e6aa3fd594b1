// Package adapt holds what every SDK adapter shares: the pull-stream
// wrapper with its error classification and deadline, the HTTP client that
// keeps response headers for Retry-After, base URL resolution and the
// provider that stands in when no key is set. Only the adapters under
// providers/ import it.
package adapt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/parleyhq/parley/providers"
)

// missingKey is the provider returned when no key is configured: it never
// touches the network and fails every request with a providers.KindMissingKey error.
type missingKey struct {
	name string
	err  *providers.Error
}

// MissingKey returns the provider of an entry without a key: every
// Stream fails with a KindMissingKey error naming the env var to set.
func MissingKey(name string, spec providers.Spec) providers.Provider {
	vars := providers.KeyVars(spec)
	return &missingKey{name: name, err: &providers.Error{
		Provider: name,
		Kind:     providers.KindMissingKey,
		Message:  fmt.Sprintf("no API key: set %s (or run with --demo)", strings.Join(vars, " or ")),
	}}
}

func (m *missingKey) Name() string { return m.name }

func (m *missingKey) Stream(context.Context, providers.Request) (providers.Stream, error) {
	return nil, m.err
}

// ResolveBaseURL picks the explicit base_url, else the vendor's env var
// (envVar may be empty), else the default, and checks it is an http(s) URL.
func ResolveBaseURL(spec providers.Spec, getenv func(string) string, envVar, def string) (string, error) {
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

// Timeout is the spec's bound on one request.
func Timeout(spec providers.Spec) time.Duration {
	if spec.Timeout > 0 {
		return spec.Timeout
	}
	return providers.DefaultTimeout
}

// NewHTTPClient returns the client every adapter uses: no client-wide
// timeout (a long answer may stream for minutes; each request gets a
// context deadline instead) and a transport that lets adapters read the
// headers of error responses, which some SDKs drop (Retry-After).
func NewHTTPClient() *http.Client {
	base := http.DefaultTransport.(*http.Transport).Clone()
	return &http.Client{Transport: &headerCapture{base: base}}
}

type headerSinkKey struct{}

// headerSink receives the headers and status of the last response of one
// request.
type headerSink struct {
	h      http.Header
	status int
}

// answered reports a 2xx response: the server took the request.
func (s *headerSink) answered() bool { return s != nil && s.status >= 200 && s.status < 300 }

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
	if patch, ok := r.Context().Value(bodyPatchKey{}).(func([]byte) []byte); ok && r.Body != nil {
		body, err := io.ReadAll(r.Body)
		_ = r.Body.Close()
		if err != nil {
			return nil, err
		}
		body = patch(body)
		r = r.Clone(r.Context())
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		r.ContentLength = int64(len(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(string(body))), nil }
	}
	resp, err := t.base.RoundTrip(r)
	if err == nil && resp != nil {
		if s, ok := r.Context().Value(headerSinkKey{}).(*headerSink); ok {
			s.h, s.status = resp.Header.Clone(), resp.StatusCode
		}
	}
	return resp, err
}

// ShortMessage trims a vendor message to something that fits a panel.
func ShortMessage(s string) string {
	s = strings.TrimSpace(s)
	const limit = 400
	if r := []rune(s); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return s
}

// NewPullStream starts the shared part of every adapter's stream: the
// request context with the spec's timeout and the response-header capture
// (for Retry-After). The adapter sets recv and closeSDK.
func NewPullStream(ctx context.Context, provider string, timeout time.Duration, vendorError func(error, http.Header) *providers.Error) *PullStream {
	reqCtx, cancel := context.WithTimeout(ctx, timeout)
	reqCtx, headers := withHeaderSink(reqCtx)
	return &PullStream{provider: provider, callerCtx: ctx, ReqCtx: reqCtx, Cancel: cancel, timeout: timeout,
		headers: headers, vendorError: vendorError}
}

// PullStream adapts an SDK's pull-style stream (one call per event) to
// Stream, with the error classification and deadline every adapter shares.
type PullStream struct {
	provider  string
	callerCtx context.Context // the caller's context: its end means cancel
	ReqCtx    context.Context // callerCtx plus the spec's timeout
	Cancel    context.CancelFunc
	timeout   time.Duration
	headers   *headerSink

	// recv returns the next text (possibly empty) and updates res; io.EOF
	// at the normal end.
	Recv func(res *providers.Result) (string, error)
	// vendorError maps an SDK error to *providers.Error, nil when it is not an API
	// error of that SDK.
	vendorError func(err error, h http.Header) *providers.Error
	CloseSDK    func() error

	delta string
	err   error
	res   providers.Result
	done  bool

	// recvMu is held while recv runs: Close from another goroutine cancels
	// the request (which ends a blocked recv) and then waits for it, since
	// not every SDK stream may be closed while it is being read (genai's
	// iter.Pull2 stop races with its next).
	recvMu    sync.Mutex
	closeOnce sync.Once
	closeErr  error
}

func (s *PullStream) Next() bool {
	if s.done {
		return false
	}
	for {
		s.recvMu.Lock()
		text, err := s.safeRecv()
		s.recvMu.Unlock()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.err = s.Classify(err)
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
func (s *PullStream) safeRecv() (text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			text, err = "", &providers.Error{Provider: s.provider, Kind: providers.KindOther,
				Message: fmt.Sprintf("malformed response from server: %v", r)}
		}
	}()
	if s.ReqCtx.Err() != nil {
		return "", s.ReqCtx.Err()
	}
	return s.Recv(&s.res)
}

func (s *PullStream) finish() {
	s.done = true
	s.delta = ""
	s.res.Answered = s.headers.answered()
	_ = s.Close()
}

// EndOfStream is what an adapter's recv returns when the SDK's stream has
// no more events: io.EOF (a normal end) only once the vendor's finish
// reason arrived, else io.ErrUnexpectedEOF. A body that ends cleanly before
// the terminal event (a proxy or server that closed early) is a cut answer
// and must never pass as complete.
func EndOfStream(res *providers.Result) error {
	if res.FinishReason == "" {
		return io.ErrUnexpectedEOF
	}
	return io.EOF
}

func (s *PullStream) Delta() string            { return s.delta }
func (s *PullStream) Err() error               { return s.err }
func (s *PullStream) Result() providers.Result { return s.res }

// Close may be called from another goroutine to abort a blocked Next.
func (s *PullStream) Close() error {
	if s.Cancel != nil {
		s.Cancel() // first: it ends a recv in flight
	}
	s.recvMu.Lock()
	defer s.recvMu.Unlock()
	s.closeOnce.Do(func() {
		if s.CloseSDK != nil {
			func() {
				defer func() { _ = recover() }()
				s.closeErr = s.CloseSDK()
			}()
		}
	})
	return s.closeErr
}

func (s *PullStream) Classify(err error) error {
	return ClassifyError(s.provider, err, s.callerCtx, s.ReqCtx, s.timeout, s.headers.header(), s.vendorError)
}

// ClassifyError maps any failure of a request to *providers.Error: cancellation and
// deadlines first (an SDK error caused by them is not the server's fault),
// then the vendor's API errors, then transport failures.
func ClassifyError(provider string, err error, callerCtx, reqCtx context.Context, timeout time.Duration,
	h http.Header, vendor func(error, http.Header) *providers.Error) *providers.Error {
	if pe, ok := providers.AsError(err); ok {
		return pe
	}
	if callerCtx != nil && callerCtx.Err() != nil {
		cause := callerCtx.Err()
		if errors.Is(cause, context.Canceled) {
			return &providers.Error{Provider: provider, Kind: providers.KindCanceled, Message: "cancelled", Err: cause}
		}
		return &providers.Error{Provider: provider, Kind: providers.KindNetwork, Message: "deadline exceeded", Err: cause}
	}
	if reqCtx != nil && errors.Is(reqCtx.Err(), context.DeadlineExceeded) {
		// Not retried: each attempt gets the whole timeout again, so a
		// server that hangs would hold the turn for four times as long.
		return &providers.Error{Provider: provider, Kind: providers.KindTimeout, Err: err,
			Message: fmt.Sprintf("no complete answer within %s (raise providers.%s.timeout in the configuration)", timeout, provider)}
	}
	if vendor != nil {
		if pe := vendor(err, h); pe != nil {
			pe.Provider = provider
			pe.Message = ShortMessage(pe.Message)
			return pe
		}
	}
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &providers.Error{Provider: provider, Kind: providers.KindNetwork, Err: err,
			Message: "connection closed before the answer was complete"}
	case errors.Is(err, context.Canceled):
		return &providers.Error{Provider: provider, Kind: providers.KindCanceled, Message: "cancelled", Err: err}
	case isNetworkError(err):
		msg := err.Error()
		var opErr *net.OpError
		if errors.As(err, &opErr) && opErr.Op == "dial" && opErr.Addr != nil {
			msg = fmt.Sprintf("cannot reach %s: %v", opErr.Addr, opErr.Err)
		}
		return &providers.Error{Provider: provider, Kind: providers.KindNetwork, Err: err, Message: ShortMessage(msg)}
	}
	return &providers.Error{Provider: provider, Kind: providers.KindOther, Err: err, Message: ShortMessage(err.Error())}
}

func isNetworkError(err error) bool {
	var netErr net.Error
	var urlErr *url.Error
	var opErr *net.OpError
	return errors.As(err, &netErr) || errors.As(err, &urlErr) || errors.As(err, &opErr) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed)
}

// HTTPError builds the *providers.Error of an HTTP error response.
func HTTPError(status int, message string, h http.Header, err error) *providers.Error {
	if message == "" {
		message = http.StatusText(status)
	}
	return &providers.Error{
		Kind:       providers.KindForStatus(status),
		Status:     status,
		RetryAfter: providers.ParseRetryAfter(h, time.Now()),
		Message:    message,
		Err:        err,
	}
}

// IsMissingKey reports the stand-in provider of an entry without a key:
// it never sends, so the retry policy has nothing to wrap.
func IsMissingKey(p providers.Provider) bool {
	_, ok := p.(*missingKey)
	return ok
}

type bodyPatchKey struct{}

// WithBodyPatch returns a context whose requests have their JSON body
// rewritten by patch before sending. It exists for the one field an SDK
// cannot express: go-openai drops a zero temperature (omitempty), and
// local servers read a missing temperature as their own default, not 0.
func WithBodyPatch(ctx context.Context, patch func([]byte) []byte) context.Context {
	return context.WithValue(ctx, bodyPatchKey{}, patch)
}

// PrependJSONField returns body (a JSON object) with "key": raw as its
// first member; body is returned unchanged when it is not an object.
func PrependJSONField(body []byte, key, raw string) []byte {
	trimmed := strings.TrimLeft(string(body), " \t\r\n")
	if !strings.HasPrefix(trimmed, "{") {
		return body
	}
	rest := strings.TrimLeft(trimmed[1:], " \t\r\n")
	sep := ","
	if strings.HasPrefix(rest, "}") {
		sep = ""
	}
	return []byte(`{"` + key + `":` + raw + sep + rest)
}
