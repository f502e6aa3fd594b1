package bench

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/parleyhq/parley/internal/numfmt"
)

// GSM8KSHA256 is the sha256 of the published test split (openai/grade-school-math,
// commit 3101c7d, 749,738 bytes). A download that does not match is refused.
const GSM8KSHA256 = "3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14"

// GSM8KURLEnv names a mirror to download from instead of GSM8KURL.
const GSM8KURLEnv = "PARLEY_GSM8K_URL"

// DefaultGSM8KTimeout bounds a whole download: 0.75 MB, slow links included.
const DefaultGSM8KTimeout = 2 * time.Minute

// maxGSM8KBytes caps what is read, downloaded or decompressed: the test split
// is 0.75 MB, so anything far larger is not it (or a gzip bomb from a mirror).
const maxGSM8KBytes = 16 << 20

// InstalledGSM8K is what an install kept.
type InstalledGSM8K struct {
	Dest      string // the gzip copy builtin:gsm8k reads
	Problems  int
	SHA256    string // of the uncompressed JSONL
	Published bool   // the file is byte for byte the published test set
}

// NotPublishedWarning is what a user is told when a valid file installed
// from disk is not the published test set.
func (in InstalledGSM8K) NotPublishedWarning(src string) string {
	return fmt.Sprintf("warning: %s is not the published test set (sha256 %s, published %s): installed anyway, but its scores are not comparable with published GSM8K results", src, in.SHA256, GSM8KSHA256)
}

// InstallGSM8K checks a test set the user downloaded (every line a problem,
// 1,319 of them) and keeps it. A valid file that is not the published one is
// accepted; the result says so (Published false).
func InstallGSM8K(src string, getenv func(string) string) (InstalledGSM8K, error) {
	f, err := os.Open(src)
	if err != nil {
		return InstalledGSM8K{}, err
	}
	defer f.Close()
	raw, err := readCapped(f)
	if err != nil {
		return InstalledGSM8K{}, fmt.Errorf("%s: %w", src, err)
	}
	return installGSM8K(raw, src, false, getenv)
}

// GSM8KDownload says where to get the test set and how to show it coming.
type GSM8KDownload struct {
	URL      string        // "": $PARLEY_GSM8K_URL, then GSM8KURL
	Timeout  time.Duration // the whole download; 0: DefaultGSM8KTimeout
	Client   *http.Client  // nil: http.DefaultClient
	Progress io.Writer     // nil: no progress
	TTY      bool          // a bar redrawn in place rather than plain lines
}

// DownloadURL is the address a download uses.
func (d GSM8KDownload) DownloadURL(getenv func(string) string) string {
	switch {
	case d.URL != "":
		return d.URL
	case getenv(GSM8KURLEnv) != "":
		return getenv(GSM8KURLEnv)
	}
	return GSM8KURL
}

// DownloadGSM8K downloads the test set (plain or gzip) and installs it only
// if it is the published one: any other file is refused and nothing is kept.
func DownloadGSM8K(ctx context.Context, d GSM8KDownload, getenv func(string) string) (InstalledGSM8K, error) {
	addr := d.DownloadURL(getenv)
	raw, err := d.fetch(ctx, addr)
	if err != nil {
		return InstalledGSM8K{}, fmt.Errorf("downloading GSM8K from %s: %w (nothing installed)", addr, err)
	}
	return installGSM8K(raw, addr, true, getenv)
}

func (d GSM8KDownload) fetch(ctx context.Context, addr string) ([]byte, error) {
	if u, err := url.Parse(addr); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, errors.New("not an http(s) address")
	}
	timeout, client := d.Timeout, d.Client
	if timeout <= 0 {
		timeout = DefaultGSM8KTimeout
	}
	if client == nil {
		client = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, addr, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, timedOut(ctx, err, timeout)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the server answered %s", resp.Status)
	}
	bar := &downloadBar{w: d.Progress, tty: d.TTY, total: resp.ContentLength}
	raw, err := readCapped(io.TeeReader(resp.Body, bar))
	bar.end()
	switch {
	case err != nil:
		return nil, timedOut(ctx, err, timeout)
	case resp.ContentLength >= 0 && int64(len(raw)) != resp.ContentLength:
		return nil, fmt.Errorf("the connection was cut after %d of %d bytes", len(raw), resp.ContentLength)
	}
	return raw, nil
}

// timedOut names the timeout when it is what stopped the download.
func timedOut(ctx context.Context, err error, timeout time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no complete answer within %s (--timeout): %w", timeout, err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("the connection was cut: %w", err)
	}
	return err
}

// readCapped reads r whole, refusing more than maxGSM8KBytes.
func readCapped(r io.Reader) ([]byte, error) {
	raw, err := io.ReadAll(io.LimitReader(r, maxGSM8KBytes+1))
	if err == nil && len(raw) > maxGSM8KBytes {
		err = fmt.Errorf("larger than %d MB: not GSM8K's test set", maxGSM8KBytes>>20)
	}
	return raw, err
}

// plainGSM8K is raw uncompressed (gzip told by its first bytes), capped.
func plainGSM8K(raw []byte) ([]byte, error) {
	if !bytes.HasPrefix(raw, []byte{0x1f, 0x8b}) {
		return raw, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	plain, err := readCapped(zr)
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	return plain, nil
}

// installGSM8K checks raw (every line a problem, 1,319 of them; when strict,
// exactly the published bytes) and writes it gzip-compressed where
// builtin:gsm8k finds it, through a temporary file so a failed install
// leaves any earlier copy whole.
func installGSM8K(raw []byte, src string, strict bool, getenv func(string) string) (InstalledGSM8K, error) {
	plain, err := plainGSM8K(raw)
	if err != nil {
		return InstalledGSM8K{}, fmt.Errorf("%s: %w", src, err)
	}
	sum := sha256.Sum256(plain)
	in := InstalledGSM8K{SHA256: hex.EncodeToString(sum[:])}
	in.Published = in.SHA256 == GSM8KSHA256
	if strict && !in.Published {
		return InstalledGSM8K{}, fmt.Errorf("%s: sha256 %s, but the published GSM8K test set is %s: refused, nothing installed (a damaged download, or a mirror serving another file)", src, in.SHA256, GSM8KSHA256)
	}
	qs, bad, err := ParseGSM8K(bytes.NewReader(plain))
	switch {
	case err != nil:
		return InstalledGSM8K{}, fmt.Errorf("%s: %w", src, err)
	case len(bad) > 0:
		return InstalledGSM8K{}, fmt.Errorf("%s: line %d: %s (%d bad lines); is it GSM8K's test.jsonl?", src, bad[0].Line, bad[0].Problem, len(bad))
	case len(qs) != GSM8KProblems:
		return InstalledGSM8K{}, fmt.Errorf("%s: %d problems, GSM8K's test split has %d; is it %s?", src, len(qs), GSM8KProblems, GSM8KURL)
	}
	in.Problems = len(qs)
	if in.Dest, err = GSM8KInstallPath(getenv); err != nil {
		return InstalledGSM8K{}, err
	}
	return in, writeGzipAtomically(in.Dest, plain)
}

func writeGzipAtomically(dest string, plain []byte) error {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".test.jsonl.gz-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // gone after the rename; cleans up a failure

	zw, _ := gzip.NewWriterLevel(tmp, gzip.BestCompression) // a valid level cannot fail
	_, err = zw.Write(plain)
	if err == nil {
		err = zw.Close()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dest)
}

// downloadBar shows a download coming: a bar redrawn in place on a terminal,
// a line a quarter when piped. total < 0: the size is not known.
type downloadBar struct {
	w     io.Writer
	tty   bool
	total int64
	got   int64
	shown int64 // the step last drawn
}

func (b *downloadBar) Write(p []byte) (int, error) {
	b.got += int64(len(p))
	if b.w == nil {
		return len(p), nil
	}
	if step := b.step(); step != b.shown {
		b.shown = step
		b.draw()
	}
	return len(p), nil
}

// step is the progress in drawable units: percent on a terminal, quarters
// when piped; 64 KB blocks (256 KB piped) when the size is unknown.
func (b *downloadBar) step() int64 {
	switch {
	case b.total <= 0 && b.tty:
		return b.got >> 16
	case b.total <= 0:
		return b.got >> 18
	case b.tty:
		return 100 * b.got / b.total
	}
	return 4 * b.got / b.total
}

func (b *downloadBar) draw() {
	of := ""
	if b.total > 0 {
		of = fmt.Sprintf(" of %s", numfmt.Thousands(int(b.total)))
	}
	if !b.tty {
		fmt.Fprintf(b.w, "GSM8K: %s%s bytes\n", numfmt.Thousands(int(b.got)), of)
		return
	}
	const width = 24
	filled := width
	if b.total > 0 {
		filled = int(width * min(b.got, b.total) / b.total)
	}
	fmt.Fprintf(b.w, "\r\x1b[KGSM8K [%s%s] %s%s bytes", strings.Repeat("█", filled), strings.Repeat("·", width-filled), numfmt.Thousands(int(b.got)), of)
}

func (b *downloadBar) end() {
	if b.w != nil && b.tty && b.got > 0 {
		fmt.Fprintln(b.w)
	}
}
