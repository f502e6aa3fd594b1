// Package pgtest starts a throwaway PostgreSQL cluster for tests: a copy
// of a cluster initdb made once (template.go) in a temporary folder, a
// free port, its unix socket in that folder, and everything stopped and
// removed at the end. Without PostgreSQL's programs a test skips with a
// line saying so, except under CI=true, where it fails: CI installs
// Debian's postgresql package (.ci/run).
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Cluster is a running throwaway PostgreSQL.
type Cluster struct {
	dir    string // holds data/, the socket and the log
	bin    string // PostgreSQL's programs
	port   int
	cred   *syscall.Credential // who runs it (initdb refuses root)
	schema atomic.Int64
	stop   sync.Once
}

// ErrMissing: PostgreSQL's programs are not installed.
var ErrMissing = errors.New("PostgreSQL is not installed (Debian: apt-get install postgresql)")

// binDir finds initdb: Debian's /usr/lib/postgresql/N/bin (the newest),
// else the PATH.
func binDir() (string, error) {
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	slices.SortFunc(found, func(a, b string) int { return version(b) - version(a) })
	if len(found) > 0 {
		return filepath.Dir(found[0]), nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", ErrMissing
}

func version(initdb string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return n
}

// Start initialises and starts a cluster. Its superuser is "parley", who
// connects over the socket without a password.
func Start(ctx context.Context) (*Cluster, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgtest") // short: a socket path has at most 107 bytes
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, bin: bin}
	if os.Geteuid() == 0 { // initdb and postgres refuse to run as root
		if c.cred, err = unprivileged(); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
		if err := os.Chown(dir, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
	}
	if c.port, err = freePort(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if err := c.initData(ctx); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	// synchronous_commit=off is SQLite's synchronous=NORMAL: a commit is
	// safe from a killed process, not from a power cut. A throwaway
	// cluster needs no safety from a power cut at all: fsync=off and
	// full_page_writes=off spare its checkpoints the disk's flushes, which
	// on a loaded runner took seconds of the store's test run.
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=300 "+
		"-c synchronous_commit=off -c fsync=off -c full_page_writes=off", c.port, dir)
	if err := c.run(ctx, "pg_ctl", "-D", c.data(), "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "-o", opts, "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("%w\n%s", err, log)
	}
	return c, nil
}

func (c *Cluster) data() string { return filepath.Join(c.dir, "data") }

// run runs one of PostgreSQL's programs as the cluster's user.
func (c *Cluster) run(ctx context.Context, prog string, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, prog), args...)
	cmd.Dir = c.dir
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w: %s", prog, err, out)
	}
	return nil
}

// unprivileged is the user a root process runs PostgreSQL as: Debian's
// postgres, else nobody.
func unprivileged() (*syscall.Credential, error) {
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
	}
	return nil, errors.New("running as root, and no postgres or nobody user to run PostgreSQL as")
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Stop stops the cluster at once and removes its folder.
func (c *Cluster) Stop() {
	c.stop.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = c.run(ctx, "pg_ctl", "-D", c.data(), "-m", "immediate", "-w", "stop")
		_ = os.RemoveAll(c.dir)
	})
}

// URL is the address of database db over the cluster's socket.
func (c *Cluster) URL(db string) string {
	q := url.Values{"host": {c.dir}, "port": {strconv.Itoa(c.port)}, "sslmode": {"disable"}}
	return "postgres://parley@/" + db + "?" + q.Encode()
}

// TCPURL is the address of database db over TCP on 127.0.0.1 (another
// process's view, as a replica on another machine has it).
func (c *Cluster) TCPURL(db string) string {
	return fmt.Sprintf("postgres://parley@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

// NewSchema creates an empty schema in database postgres and returns a
// URL whose connections use it: a fresh database for one test, in
// milliseconds.
func (c *Cluster) NewSchema(ctx context.Context) (string, error) {
	name := fmt.Sprintf("t%d", c.schema.Add(1))
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		return "", err
	}
	return c.URL("postgres") + "&search_path=" + name, nil
}

// Require is Start for one test, stopped when the test ends: it skips
// the test without PostgreSQL, and fails it under CI=true.
func Require(tb testing.TB) *Cluster {
	tb.Helper()
	c, err := Start(context.Background())
	if err != nil {
		Unavailable(tb, err)
	}
	tb.Cleanup(c.Stop)
	return c
}

// Unavailable skips tb for want of PostgreSQL, or fails it under CI=true.
func Unavailable(tb testing.TB, err error) {
	tb.Helper()
	if os.Getenv("CI") == "true" {
		tb.Fatalf("postgres: %v (CI must run the Postgres tests)", err)
	}
	tb.Skipf("SKIP postgres: %v", err)
}

// Schema is a fresh schema's URL on c for one test.
func (c *Cluster) Schema(tb testing.TB) string {
	tb.Helper()
	u, err := c.NewSchema(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return u
}
