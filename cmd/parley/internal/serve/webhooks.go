package serve

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/dialogue"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/store"
)

// Webhook headers. The signature is HMAC-SHA256, keyed with the secret of
// secret_env, over "<timestamp>.<body>" (the timestamp header's value, a
// dot, the raw body), hex-encoded after "sha256=". Receivers recompute it
// and refuse old timestamps to stop replays.
const (
	HeaderSignature = "X-Parley-Signature"
	HeaderTimestamp = "X-Parley-Timestamp"
	HeaderEvent     = "X-Parley-Event"
	HeaderDelivery  = "X-Parley-Delivery"
)

// Sign is the signature header's value for a body sent at timestamp.
func Sign(secret []byte, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(timestamp))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// delivery is one event on its way to one webhook.
type delivery struct {
	hook    config.WebhookSpec
	shown   string // the hook's URL redacted: what the log stores
	typ     string
	session string
	body    []byte
}

// webhooks posts matching events to the configured URLs from a few
// workers; the engine's subscriber only queues (a slow receiver never
// slows a debate). Deliveries and their outcomes are stored.
type webhooks struct {
	srv    *Server
	client *http.Client // refuses internal addresses
	open   *http.Client // for allow_private: true
	shown  []string     // each hook's URL redacted, once
	queue  chan delivery
	wg     sync.WaitGroup // workers
	mu     sync.Mutex
	active sync.WaitGroup // queued or in flight
	closed bool
	// stop ends the backoff waits at shutdown (the attempt in flight finishes).
	stop     chan struct{}
	stopOnce sync.Once
}

func newWebhooks(s *Server) *webhooks {
	h := &webhooks{srv: s, client: hookClient(false), open: hookClient(true), queue: make(chan delivery, 1024), stop: make(chan struct{})}
	for _, hook := range s.opts.Config.Webhooks {
		h.shown = append(h.shown, sanitize.URL(hook.URL))
	}
	for range 4 {
		h.wg.Add(1)
		go h.work()
	}
	return h
}

// event queues ev for every webhook that asked for its type; talks and
// agent runs that end also send session_finished.
func (h *webhooks) event(session string, ev debate.Event) {
	h.send(session, ev.EventType(), func() ([]byte, error) { return debate.MarshalEvent(ev) })
	switch ev.(type) {
	case dialogue.TalkFinished:
		h.finished(session, ev.EventType())
	case debate.AgentAnswered:
		h.finished(session, ev.EventType())
	}
}

// sessionFinished sends session_finished for a session that ended for
// another reason (a council asked over POST /magi decided, a deletion).
func (h *webhooks) sessionFinished(info debate.SessionInfo, reason string) {
	h.send(info.ID, "session_finished", func() ([]byte, error) {
		return json.Marshal(map[string]any{"type": "session_finished", "session": info, "reason": reason})
	})
}

func (h *webhooks) finished(session, reason string) {
	h.send(session, "session_finished", func() ([]byte, error) {
		return json.Marshal(map[string]any{"type": "session_finished", "session": map[string]string{"id": session}, "reason": reason})
	})
}

// payload is what a webhook receives.
type payload struct {
	Session string          `json:"session_id"`
	Event   json.RawMessage `json:"event"`
	Sent    time.Time       `json:"sent"`
}

func (h *webhooks) send(session, typ string, marshal func() ([]byte, error)) {
	var event []byte
	for i, hook := range h.srv.opts.Config.Webhooks {
		if !slices.Contains(hook.Events, typ) && !slices.Contains(hook.Events, "*") {
			continue
		}
		if event == nil {
			var err error
			if event, err = marshal(); err != nil {
				return
			}
		}
		// C1, bidi and invisible characters leave only as \u escapes, the
		// event inside included, as at every door.
		body, _ := sanitize.MarshalJSON(payload{Session: session, Event: event, Sent: time.Now().UTC()})
		h.mu.Lock() // held while queueing: close never closes the queue under a send
		if h.closed {
			h.mu.Unlock()
			return
		}
		h.active.Add(1)
		queued := true
		select {
		case h.queue <- delivery{hook: hook, shown: h.shown[i], typ: typ, session: session, body: body}:
		default: // a receiver far behind: record the drop rather than hold the debate
			queued = false
		}
		h.mu.Unlock()
		if !queued {
			h.record(delivery{hook: hook, shown: h.shown[i], typ: typ, session: session}, 0, 0, false, "dropped: delivery queue full")
			h.active.Done()
		}
	}
}

func (h *webhooks) work() {
	defer h.wg.Done()
	for d := range h.queue {
		h.deliver(d)
		h.active.Done()
	}
}

// deliver tries a delivery until a 2xx, with a doubling backoff.
func (h *webhooks) deliver(d delivery) {
	attempts := h.srv.opts.WebhookAttempts
	if attempts <= 0 {
		attempts = 4
	}
	wait := h.srv.opts.WebhookBackoff
	if wait <= 0 {
		wait = time.Second
	}
	var secret []byte
	if getenv := h.srv.opts.Getenv; getenv != nil {
		secret = []byte(getenv(d.hook.SecretEnv))
	}
	status, lastErr := 0, ""
	for attempt := 1; attempt <= attempts; attempt++ {
		var final bool
		status, lastErr, final = h.post(d, secret, attempt)
		if lastErr == "" {
			h.record(d, attempt, status, true, "")
			return
		}
		if final { // another attempt would fail the same way
			h.record(d, attempt, status, false, lastErr)
			return
		}
		if attempt == attempts {
			break
		}
		select {
		case <-time.After(wait):
		case <-h.stop:
			h.record(d, attempt, status, false, lastErr+" (server stopped before the next attempt)")
			return
		}
		wait *= 2
	}
	h.record(d, attempts, status, false, lastErr)
}

// post makes one attempt; final says a retry cannot help (a URL that does
// not parse, a target that is refused).
func (h *webhooks) post(d delivery, secret []byte, attempt int) (status int, problem string, final bool) {
	req, err := http.NewRequest(http.MethodPost, d.hook.URL, bytes.NewReader(d.body))
	if err != nil {
		return 0, deliveryProblem(err), true
	}
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "parley-webhooks")
	req.Header.Set(HeaderEvent, d.typ)
	req.Header.Set(HeaderTimestamp, ts)
	req.Header.Set(HeaderDelivery, strconv.Itoa(attempt))
	if len(secret) > 0 {
		req.Header.Set(HeaderSignature, Sign(secret, ts, d.body))
	}
	client := h.client
	if d.hook.AllowPrivate {
		client = h.open
	}
	resp, err := client.Do(req)
	if err != nil {
		var internal *errInternalTarget
		return 0, deliveryProblem(err), errors.As(err, &internal)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode <= 399:
		return resp.StatusCode, fmt.Sprintf("HTTP %d (redirects are not followed: configure the final URL)", resp.StatusCode), false
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return resp.StatusCode, fmt.Sprintf("HTTP %d", resp.StatusCode), false
	}
	return resp.StatusCode, "", false
}

func (h *webhooks) record(d delivery, attempts, status int, ok bool, problem string) {
	err := h.srv.opts.Store.AddDelivery(context.Background(), store.Delivery{URL: d.shown, Event: d.typ, Session: d.session,
		Attempts: attempts, Status: status, Delivered: ok, Error: problem})
	if err != nil {
		h.srv.logf("webhook delivery log: %v", err)
	}
}

// idle waits until every queued delivery has been made (tests, shutdown).
func (h *webhooks) idle(ctx context.Context) error {
	done := make(chan struct{})
	go func() { h.active.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// close gives the queued deliveries a moment, then stops the workers.
func (h *webhooks) close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	h.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	if h.idle(ctx) != nil {
		h.stopOnce.Do(func() { close(h.stop) })
	}
	cancel()
	close(h.queue)
	h.wg.Wait()
}

// WriteDeliveries prints the delivery log (parley webhooks log): a table,
// or {"deliveries":[…]} as JSON. URLs are redacted again, for rows stored
// before they were redacted on the way in.
func WriteDeliveries(w io.Writer, list []store.Delivery, asJSON bool) error {
	list = slices.Clone(list)
	for i := range list {
		list[i].URL = sanitize.URL(list[i].URL)
	}
	if asJSON {
		return sanitize.NewJSONEncoder(w).Encode(map[string]any{"deliveries": list})
	}
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tEVENT\tURL\tSESSION\tATTEMPTS\tOUTCOME")
	for _, d := range list {
		outcome := fmt.Sprintf("delivered (HTTP %d)", d.Status)
		if !d.Delivered {
			outcome = "failed: " + d.Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", d.Time.Local().Format(time.DateTime), sanitize.Text(d.Event),
			sanitize.Text(d.URL), sanitize.Text(d.Session), d.Attempts, sanitize.Text(outcome))
	}
	return tw.Flush()
}
