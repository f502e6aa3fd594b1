package serve

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/parleyhq/parley/debate/sanitize"
)

// sseBatch bounds how many buffered events one write takes.
const sseBatch = 256

// events streams a session's events as Server-Sent Events:
//
//	id: <seq>
//	event: <type>
//	data: <debate.MarshalEvent JSON>
//
// A client that reconnects with Last-Event-ID (or ?after=SEQ, for a first
// connection that follows GET /sessions/{id}'s last_event_id) gets what it
// missed from the session's replay buffer. A client further behind than the
// buffer, or with an id this session never gave (the server restarted),
// gets an event "reset" ({"type":"reset","lost":N}): reload the session,
// then go on. ": ping" comments keep proxies from closing the
// stream while nothing happens.
func (s *Server) events(w http.ResponseWriter, r *http.Request) error {
	ss, err := s.sessions.get(r.Context(), r.PathValue("id"), userOf(r))
	if err != nil {
		return err
	}
	release := s.streams.open(w, credentialOf(r))
	if release == nil {
		return nil
	}
	defer release()
	loginEnded, loginID := s.streamLogin(r)
	defer ss.watched(&s.sessions.mu)()
	after := ss.hub.last()
	cursor := r.Header.Get("Last-Event-ID")
	if cursor == "" {
		cursor = r.URL.Query().Get("after")
	}
	if cursor != "" {
		n, err := strconv.ParseUint(cursor, 10, 64)
		if err != nil {
			return errorf(http.StatusBadRequest, "bad_query", "Last-Event-ID: %q is not an event id", cursor)
		}
		after = n
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		return errorf(http.StatusInternalServerError, "internal", "streaming is not supported here")
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	out := bufio.NewWriterSize(w, 32<<10)
	flush := func() bool {
		if out.Flush() != nil {
			return false
		}
		flusher.Flush()
		return true
	}
	fmt.Fprint(out, "retry: 2000\n\n")
	if !flush() {
		return nil
	}
	ping := time.NewTicker(s.opts.PingEvery)
	defer ping.Stop()
	ctx := r.Context()
	for {
		batch, changed, reset, lost := ss.hub.since(after, sseBatch)
		if reset {
			fmt.Fprintf(out, "event: reset\ndata: {\"type\":\"reset\",\"lost\":%d}\n\n", lost)
			after = ss.hub.last()
			if len(batch) > 0 {
				after = batch[0].seq - 1
			}
		}
		for _, rec := range coalesce(batch) {
			// Bidi and hidden format controls never reach a page
			// (Trojan Source); they can only sit inside JSON strings.
			// C1 controls stay, as \u escapes (sanitize.EscapeJSON).
			data := sanitize.EscapeJSON([]byte(sanitize.Visible(string(rec.data))))
			fmt.Fprintf(out, "id: %d\nevent: %s\ndata: %s\n\n", rec.seq, rec.typ, data)
			after = rec.seq
		}
		if len(batch) > 0 {
			after = batch[len(batch)-1].seq
		}
		if (len(batch) > 0 || reset) && !flush() {
			return nil
		}
		if len(batch) == sseBatch {
			continue // more is waiting
		}
		if ss.hub.isClosed() {
			return nil
		}
		select {
		case <-changed:
		case <-ping.C:
			if loginID != "" && !s.auth.sessionValid(loginID) {
				return nil // the login expired: so does what it opened
			}
			fmt.Fprint(out, ": ping\n\n")
			if !flush() {
				return nil
			}
		case <-loginEnded: // logout
			return nil
		case <-ctx.Done():
			return nil
		case <-s.ctx.Done():
			return nil
		}
	}
}

// streamLogin is the login session a stream was opened with (its cookie),
// and a channel closed when it ends; both empty for a bearer token.
func (s *Server) streamLogin(r *http.Request) (<-chan struct{}, string) {
	if !strings.HasPrefix(credentialOf(r), "login:") {
		return nil, ""
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil, ""
	}
	return s.auth.loginDone(c.Value), c.Value
}
