package serve

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/parleyhq/parley/debate/config"
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

func limitsOf(c config.ServeConfig) connLimits {
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
// the cap a connection is read its request (within refuseWithin), answered
// 503 in JSON with Retry-After, like every other refusal, and closed. A
// trusted proxy's connections are not capped: it carries a whole team, and
// the limits count the clients it names.
type addrListener struct {
	net.Listener
	max      int
	tls      *tls.Config // nil: plain HTTP
	exempt   proxies
	refusing chan struct{} // a place per connection being refused

	mu   sync.Mutex
	open map[string]int
}

const (
	// refuseWithin bounds the time a refused connection is held.
	refuseWithin = 2 * time.Second
	// maxRefusing bounds the connections refused at once; past it one is
	// closed unanswered, so a flood costs no goroutine each.
	maxRefusing = 64
	// refuseReads bounds what is read of a refused request.
	refuseReads = 64 << 10
)

func newAddrListener(ln net.Listener, max int, tlsCfg *tls.Config, exempt proxies) *addrListener {
	return &addrListener{Listener: ln, max: max, tls: tlsCfg, exempt: exempt,
		refusing: make(chan struct{}, maxRefusing), open: map[string]int{}}
}

func (l *addrListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if ip, ok := peerIP(c.RemoteAddr().String()); ok && l.exempt.trusts(ip) {
			return c, nil
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
		select {
		case l.refusing <- struct{}{}:
			go func() {
				defer func() { <-l.refusing }()
				l.refuse(c)
			}()
		default:
			c.Close()
		}
	}
}

func (l *addrListener) release(host string) {
	l.mu.Lock()
	if l.open[host]--; l.open[host] <= 0 {
		delete(l.open, host)
	}
	l.mu.Unlock()
}

// refuse answers a connection over the cap: it reads the request first, so
// an HTTP client reads the answer as the answer to what it sent (written
// before the request, Go's client took it for an unsolicited response).
func (l *addrListener) refuse(raw net.Conn) {
	_ = raw.SetDeadline(time.Now().Add(refuseWithin))
	c := raw
	if l.tls != nil {
		c = tls.Server(raw, l.tls)
	}
	defer c.Close()
	in := bufio.NewReader(io.LimitReader(c, refuseReads))
	if req, err := http.ReadRequest(in); err == nil {
		_, _ = io.Copy(io.Discard, req.Body) // what fits in refuseReads: the client then reads the answer
	}
	var out bufferedResponse
	w := &out
	w.Header().Set("Retry-After", strconv.Itoa(int(retryAfter.Seconds())))
	writeError(w, errorf(http.StatusServiceUnavailable, "too_many_connections",
		"too many open connections from your address (at most %d); close one or retry later", l.max))
	resp := &http.Response{StatusCode: out.status, ProtoMajor: 1, ProtoMinor: 1, Header: out.header,
		ContentLength: int64(out.body.Len()), Body: io.NopCloser(&out.body), Close: true}
	_ = resp.Write(c)
}

// bufferedResponse is an answer written before it is sent whole.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header {
	if b.header == nil {
		b.header = http.Header{}
	}
	return b.header
}
func (b *bufferedResponse) WriteHeader(status int)      { b.status = status }
func (b *bufferedResponse) Write(p []byte) (int, error) { return b.body.Write(p) }

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
