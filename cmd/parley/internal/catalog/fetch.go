package catalog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"charm.land/catwalk/pkg/catwalk"
)

// answer is what one request for /v2/providers brought.
type answer struct {
	notModified bool // a 304 that names the ETag Parley sent
	providers   []catwalk.Provider
	etag        string // the ETag the server gave the body, unquoted
	dated       string // its Last-Modified day, never after the fetch; "" none
}

// fetchTimeout bounds one request, as catwalk's own client does.
const fetchTimeout = 30 * time.Second

// fetch asks source for /v2/providers, sending etag (the kept copy's, when
// it came from this source). It reads at most MaxBytes and parses strictly
// (Parse). A 304 counts only when Parley named an ETag and the answer
// carries the same one: a 304 to a request that named none, or naming
// another, is an error, so it never confirms a copy from somewhere else.
func fetch(ctx context.Context, source, etag string, now time.Time) (answer, error) {
	if err := checkSource(source); err != nil {
		return answer{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, source+"/v2/providers", nil)
	if err != nil {
		return answer{}, err
	}
	if etag != "" {
		req.Header.Set("If-None-Match", `"`+etag+`"`)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close() //nolint:errcheck // read-only
	got := unquoteETag(resp.Header.Get("ETag"))
	switch {
	case resp.StatusCode == http.StatusNotModified && etag == "":
		return answer{}, errors.New("it answered 304 Not Modified, but Parley named no copy of it (no ETag sent)")
	case resp.StatusCode == http.StatusNotModified && got != etag:
		return answer{}, fmt.Errorf("it answered 304 Not Modified for ETag %q, not for the copy kept from it (%q)", clip(got), etag)
	case resp.StatusCode == http.StatusNotModified:
		return answer{notModified: true, etag: etag}, nil
	case resp.StatusCode != http.StatusOK:
		return answer{}, fmt.Errorf("it answered HTTP %d", resp.StatusCode)
	case resp.ContentLength > MaxBytes:
		return answer{}, fmt.Errorf("its answer is %d bytes, more than %d (8 MiB)", resp.ContentLength, MaxBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBytes+1))
	if err != nil {
		return answer{}, fmt.Errorf("reading the answer: %w", err)
	}
	if len(body) > MaxBytes {
		return answer{}, fmt.Errorf("its answer is more than %d bytes (8 MiB)", MaxBytes)
	}
	provs, err := Parse(body)
	if err != nil {
		return answer{}, err
	}
	if !safeETag(got) {
		got = "" // never sent back, never kept
	}
	return answer{providers: provs, etag: got, dated: lastModified(resp.Header.Get("Last-Modified"), now)}, nil
}

// checkSource refuses a source that is not a plain http(s) URL: it is
// kept and printed.
func checkSource(source string) error {
	u, err := url.Parse(source)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("the source %q is not an http(s) URL", clip(source))
	}
	for _, r := range source {
		if r <= ' ' || r >= 0x7f {
			return fmt.Errorf("the source %q has a character a URL does not", clip(source))
		}
	}
	return nil
}

// lastModified is the day of an HTTP Last-Modified header, capped at now
// (a date ahead of the fetch would beat every entry); "" when absent or
// unreadable.
func lastModified(h string, now time.Time) string {
	at, err := http.ParseTime(h)
	if h == "" || err != nil {
		return ""
	}
	if at.After(now) {
		at = now
	}
	return at.UTC().Format("2006-01-02")
}

func unquoteETag(s string) string {
	s = strings.TrimPrefix(strings.TrimSpace(s), "W/")
	return strings.TrimSuffix(strings.TrimPrefix(s, `"`), `"`)
}

// safeETag is an ETag Parley may keep and send back: short, printable
// ASCII with no quote.
func safeETag(s string) bool {
	if len(s) > 200 {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r >= 0x7f || r == '"' {
			return false
		}
	}
	return true
}

// clip shortens text from outside for an error message (%q escapes it).
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
