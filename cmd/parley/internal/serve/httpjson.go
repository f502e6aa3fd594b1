package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/serve/openaiapi"
)

// apiError is the one error shape of the API: {"error":{"code","message",
// "type","param"}}; type is OpenAI's name for the status, so the OpenAI door's
// clients read the guard's and the token's refusals too.
type apiError struct {
	Status  int     `json:"-"`
	Code    string  `json:"code"`
	Message string  `json:"message"`
	Type    string  `json:"type,omitempty"`
	Param   *string `json:"param"` // always null: OpenAI's clients expect the key
	// A spend window's refusal: what was spent of which limit, and when it
	// resets (RetryAfter is the Retry-After header).
	SpentUSD   *float64      `json:"spent_usd,omitempty"`
	LimitUSD   *float64      `json:"limit_usd,omitempty"`
	ResetsAt   string        `json:"resets_at,omitempty"`
	RetryAfter time.Duration `json:"-"`
}

func (e *apiError) Error() string { return e.Message }

func errorf(status int, code, format string, args ...any) *apiError {
	return &apiError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// writeJSON writes v with the status (the OpenAI door's writer: one
// place says how Parley's JSON answers go out).
func writeJSON(w http.ResponseWriter, status int, v any) { openaiapi.WriteJSON(w, status, v) }

// writeError writes err as the API's error object; errors that are not an
// *apiError are internal (500) and keep their message.
func writeError(w http.ResponseWriter, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = errorf(http.StatusInternalServerError, "internal", "%s", err.Error())
	}
	if ae.Type == "" {
		ae.Type = openaiapi.TypeOf(ae.Status)
	}
	if ae.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((ae.RetryAfter+time.Second-1)/time.Second)))
	}
	if ae.Status == http.StatusTooManyRequests && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, ae.Status, map[string]*apiError{"error": ae})
}

// decode reads a JSON body of at most limit bytes into v: 413 when it is
// longer, 400 when it is not one JSON object of the expected fields.
func decode(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	body := http.MaxBytesReader(w, r.Body, limit)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		var typeErr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &tooBig):
			return errorf(http.StatusRequestEntityTooLarge, "too_large", "the request body is larger than %d bytes", limit)
		case errors.Is(err, io.EOF):
			return errorf(http.StatusBadRequest, "bad_json", "the request needs a JSON object body")
		case errors.As(err, &typeErr):
			return errorf(http.StatusBadRequest, "bad_field", "field %q: expected %s, got %s", typeErr.Field, typeErr.Type, typeErr.Value)
		case strings.HasPrefix(err.Error(), "json: unknown field"):
			return errorf(http.StatusBadRequest, "bad_field", "%s", strings.TrimPrefix(err.Error(), "json: "))
		}
		return errorf(http.StatusBadRequest, "bad_json", "the body is not valid JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return errorf(http.StatusRequestEntityTooLarge, "too_large", "the request body is larger than %d bytes", limit)
		}
		return errorf(http.StatusBadRequest, "bad_json", "the body holds more than one JSON value")
	}
	return nil
}

// queryInt reads a non-negative integer query parameter (def when absent).
func queryInt(r *http.Request, name string, def, max int) (int, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, errorf(http.StatusBadRequest, "bad_query", "%s: %q is not a whole number ≥ 0", name, s)
	}
	if max > 0 && n > max {
		n = max
	}
	return n, nil
}

// Rate is a request budget for the requests that start work: Burst at
// once, refilled at PerMinute. Zero PerMinute means no limit. The same
// budget applies to each user_id, each client address and each credential
// (the token, or a browser's login session): a client that names a new
// user_id for every request still runs out.
type Rate struct {
	PerMinute int
	Burst     int
}

// maxBuckets bounds the limiter's memory: past it, full buckets (idle long
// enough to have refilled) are forgotten.
const maxBuckets = 10000

// limiter is a token bucket per key.
type limiter struct {
	rate Rate
	now  func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newLimiter(r Rate) *limiter {
	if r.Burst <= 0 {
		r.Burst = max(1, r.PerMinute/6)
	}
	return &limiter{rate: r, now: time.Now, buckets: map[string]*bucket{}}
}

// allow takes one token from each key's bucket when every one has one;
// otherwise it takes none and names the first empty key and how long
// until it has one again.
func (l *limiter) allow(keys ...string) (empty string, wait time.Duration) {
	if l.rate.PerMinute <= 0 {
		return "", 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	perSecond := float64(l.rate.PerMinute) / 60
	if len(l.buckets) > maxBuckets {
		l.forgetFull(now, perSecond)
	}
	for _, key := range keys {
		b := l.buckets[key]
		if b == nil {
			b = &bucket{tokens: float64(l.rate.Burst), last: now}
			l.buckets[key] = b
		}
		b.tokens = min(float64(l.rate.Burst), b.tokens+now.Sub(b.last).Seconds()*perSecond)
		b.last = now
		if b.tokens < 1 && empty == "" {
			empty, wait = key, time.Duration((1-b.tokens)/perSecond*float64(time.Second))
		}
	}
	if empty != "" {
		return empty, wait
	}
	for _, key := range keys {
		l.buckets[key].tokens--
	}
	return "", 0
}

func (l *limiter) forgetFull(now time.Time, perSecond float64) {
	for key, b := range l.buckets {
		if b.tokens+now.Sub(b.last).Seconds()*perSecond >= float64(l.rate.Burst) {
			delete(l.buckets, key)
		}
	}
}

// limit refuses the request with 429 when user's or the server's spend
// window has no room left, or when the rate budget of its user, its client
// address or its credential is spent.
func (s *Server) limit(w http.ResponseWriter, r *http.Request, user string) error {
	if err := s.spendRoom(r.Context(), user); err != nil {
		return err
	}
	return s.rateLimit(w, r, user)
}

// rateLimit takes one request from the rate budgets of user, the client
// address and the credential.
func (s *Server) rateLimit(w http.ResponseWriter, r *http.Request, user string) error {
	keys := []string{"user " + user, "address " + clientAddr(r)}
	if cred := credentialOf(r); cred != "" {
		keys = append(keys, "credential "+cred)
	}
	empty, wait := s.limiter.allow(keys...)
	if empty == "" {
		return nil
	}
	w.Header().Set("Retry-After", strconv.Itoa(int(wait/time.Second)+1))
	who := fmt.Sprintf("user %q", user)
	switch {
	case strings.HasPrefix(empty, "address "):
		who = "this client address (" + clientAddr(r) + ")"
	case strings.HasPrefix(empty, "credential "):
		who = "this token"
	}
	return errorf(http.StatusTooManyRequests, "rate_limited", "%s sent too many requests: try again in %s", who, wait.Round(time.Second)+time.Second)
}
