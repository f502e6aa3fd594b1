package serve

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/parleyhq/parley/debate"
)

// connLimits are serve's defences against clients that hold it: timeouts
// on reading a request, on idle connections, and caps on connections per
// client address and on event streams. They are apart from the rate and
// spend limits, which meter work, not connections.
type connLimits struct {
	readHeader, read, idle time.Duration
	perAddr                int
	streams, perUser       int
}

func limitsOf(c debate.ServeConfig) connLimits {
	or := func(v, def time.Duration) time.Duration {
		if v > 0 {
			return v
		}
		return def
	}
	orInt := func(v, def int) int {
		if v > 0 {
			return v
		}
		return def
	}
	return connLimits{
		readHeader: or(c.ReadHeaderTimeout, 10*time.Second),
		read:       or(c.ReadTimeout, 30*time.Second),
		idle:       or(c.IdleTimeout, 60*time.Second),
		perAddr:    orInt(c.MaxConnsPerAddr, 64),
		streams:    orInt(c.MaxStreams, 512),
		perUser:    orInt(c.MaxStreamsPerUser, 32),
	}
}

// retryAfter is what a refused connection or stream is told to wait.
const retryAfter = 5 * time.Second

// addrListener caps the open connections from one client address: past
// the cap a connection is answered 503 with Retry-After (plain HTTP) or
// closed (TLS) before any request is read.
type addrListener struct {
	net.Listener
	max   int
	plain bool

	mu   sync.Mutex
	open map[string]int
}

func (l *addrListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		host := addrKey(c.RemoteAddr().String()) // as the back-off counts them
		l.mu.Lock()
		full := l.open[host] >= l.max
		if !full {
			l.open[host]++
		}
		l.mu.Unlock()
		if !full {
			return &countedConn{Conn: c, release: func() { l.release(host) }}, nil
		}
		go l.refuse(c)
	}
}

func (l *addrListener) release(host string) {
	l.mu.Lock()
	if l.open[host]--; l.open[host] <= 0 {
		delete(l.open, host)
	}
	l.mu.Unlock()
}

// refuse answers a connection over the cap without reading its request.
func (l *addrListener) refuse(c net.Conn) {
	defer c.Close()
	if !l.plain {
		return
	}
	_ = c.SetWriteDeadline(time.Now().Add(2 * time.Second))
	body := "too many connections from your address; retry later\n"
	_, _ = io.WriteString(c, "HTTP/1.1 503 Service Unavailable\r\nRetry-After: "+strconv.Itoa(int(retryAfter.Seconds()))+
		"\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
}

// countedConn gives its place back once, when closed.
type countedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *countedConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}

// streams counts the open event streams, in all and per user (the token,
// or each login).
type streams struct {
	max, perUser int

	mu     sync.Mutex
	total  int
	byUser map[string]int
}

// open takes a place for a stream of user, or answers 503 with
// Retry-After and returns nil; the func returned gives the place back.
func (st *streams) open(w http.ResponseWriter, user string) func() {
	st.mu.Lock()
	full := st.total >= st.max || st.byUser[user] >= st.perUser
	if !full {
		st.total++
		st.byUser[user]++
	}
	st.mu.Unlock()
	if full {
		w.Header().Set("Retry-After", strconv.Itoa(int(retryAfter.Seconds())))
		writeError(w, errorf(http.StatusServiceUnavailable, "too_many_streams",
			"too many open event streams (at most %d, %d per token or login); close one or retry later", st.max, st.perUser))
		return nil
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			st.mu.Lock()
			st.total--
			if st.byUser[user]--; st.byUser[user] <= 0 {
				delete(st.byUser, user)
			}
			st.mu.Unlock()
		})
	}
}

// count is the open streams (for tests and figures).
func (st *streams) count() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.total
}

// maxUpfront bounds a request body untimed reads before the handler (the
// handlers' own limits are lower: 1 MiB for the API, 4 MiB for /mcp).
const maxUpfront = 8 << 20

// untimed receives a request's body whole, within ReadTimeout, then lifts
// the read deadline: ReadTimeout is for receiving the request, and a long
// answer (an event stream, an exchange that waits for the models) must not
// be cut by it — net/http cancels a request's context when it passes.
func untimed(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			data, err := io.ReadAll(io.LimitReader(r.Body, maxUpfront+1))
			switch {
			case err != nil: // too slow (ReadTimeout) or cut
				writeError(w, errorf(http.StatusRequestTimeout, "timeout", "the request body did not arrive in time"))
				return
			case len(data) > maxUpfront:
				writeError(w, errorf(http.StatusRequestEntityTooLarge, "too_large", "the request body is larger than %d bytes", maxUpfront))
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(data))
		}
		_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
		next.ServeHTTP(w, r)
	})
}
