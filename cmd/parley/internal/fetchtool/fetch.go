// Package fetchtool is the fetch_url tool: one GET of an http or https
// page, with no cookies, credentials or proxy, 10 seconds, at most 2 MiB
// read and its text (HTML reduced to readable text) handed to the model.
// Connections to loopback, private, link-local and cloud-metadata
// addresses are refused on the address really dialled, redirects
// included, unless tools.fetch.allow_private is set.
package fetchtool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/parleyhq/parley/cmd/parley/internal/netguard"
	"github.com/parleyhq/parley/debate/evidence"
	"github.com/parleyhq/parley/debate/toolbox"
	"github.com/parleyhq/parley/providers"
)

// Limits of one fetch.
const (
	Timeout      = 10 * time.Second
	MaxReadBytes = 2 << 20 // bytes of the body read
	MaxRedirects = 5
	maxURLBytes  = 4096
)

// Tool is fetch_url.
type Tool struct {
	client *http.Client
}

// New makes the tool; allowPrivate lets it reach internal addresses
// (tools.fetch.allow_private).
func New(allowPrivate bool) *Tool {
	dialer := &net.Dialer{Timeout: Timeout}
	if !allowPrivate {
		dialer.Control = netguard.Control("tools.fetch.allow_private: true allows it")
	}
	transport := &http.Transport{
		Proxy:                 nil, // a proxy's address would hide the target's from the guard
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   Timeout,
		ResponseHeaderTimeout: Timeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       30 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &Tool{client: &http.Client{
		Timeout:   Timeout,
		Transport: transport,
		// No Jar: no cookies are kept or sent.
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= MaxRedirects {
				return fmt.Errorf("more than %d redirects", MaxRedirects)
			}
			return checkURL(req.URL) // the dial guard checks where it goes
		},
	}}
}

// Spec is the tool as offered to the model.
func (*Tool) Spec() providers.ToolSpec {
	return providers.ToolSpec{Name: toolbox.ToolFetchURL,
		Description: "Fetch a web page (http or https, GET) and return its readable text (at most 64 KiB).",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{
			"url": map[string]any{"type": "string", "description": "the page's http or https URL"},
		}, "required": []string{"url"}}}
}

// checkURL refuses what fetch never sends: other schemes, credentials in
// the URL, overlong URLs.
func checkURL(u *url.URL) error {
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("refused: only http and https URLs are fetched, not %q", clip(u.Scheme, 20))
	case u.User != nil:
		return errors.New("refused: a URL with credentials is not fetched")
	case u.Host == "":
		return errors.New("refused: the URL has no host")
	}
	return nil
}

// Run fetches args.url.
func (t *Tool) Run(ctx context.Context, args map[string]any) (toolbox.Output, error) {
	raw, err := toolbox.String(args, "url", true)
	if err != nil {
		return toolbox.Output{}, err
	}
	raw = strings.TrimSpace(raw)
	if len(raw) > maxURLBytes {
		return toolbox.Output{}, fmt.Errorf("the URL is %d bytes, over %d", len(raw), maxURLBytes)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return toolbox.Output{}, fmt.Errorf("not a URL: %v", err)
	}
	if err := checkURL(u); err != nil {
		return toolbox.Output{}, err
	}
	u.Fragment = ""
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return toolbox.Output{}, err
	}
	req.Header.Set("User-Agent", "Parley-fetch/1 (+a debate member reading a page)")
	req.Header.Set("Accept", "text/html, text/plain;q=0.9, application/json;q=0.8, */*;q=0.1")
	resp, err := t.client.Do(req)
	if err != nil {
		return toolbox.Output{}, problem(err)
	}
	defer resp.Body.Close()
	final := resp.Request.URL.String()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return toolbox.Output{}, fmt.Errorf("HTTP %d from %s", resp.StatusCode, clip(final, 200))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxReadBytes+1))
	if err != nil {
		return toolbox.Output{}, problem(err)
	}
	cut := len(body) > MaxReadBytes
	if cut {
		body = body[:MaxReadBytes]
	}
	text, title, err := readable(resp.Header.Get("Content-Type"), body)
	if err != nil {
		return toolbox.Output{}, err
	}
	if cut {
		text += fmt.Sprintf("\n[cut: only the first %d MiB of the page were read]", MaxReadBytes>>20)
	}
	return toolbox.Output{Text: text, Source: toolbox.Source{Kind: evidence.KindURL, Ref: final, Title: title}}, nil
}

// readable is the body as text: HTML reduced to its readable text, other
// text as it is; anything else is refused.
func readable(contentType string, body []byte) (text, title string, err error) {
	media, _, _ := mime.ParseMediaType(contentType)
	if media == "" {
		media = http.DetectContentType(body)
		media, _, _ = mime.ParseMediaType(media)
	}
	switch {
	case media == "text/html" || media == "application/xhtml+xml":
		text, title = HTMLText(string(body))
		return text, title, nil
	case strings.HasPrefix(media, "text/"), media == "application/json", strings.HasSuffix(media, "+json"),
		media == "application/xml", strings.HasSuffix(media, "+xml"):
		return strings.ToValidUTF8(string(body), "\uFFFD"), "", nil
	}
	if utf8.Valid(body) && media == "application/octet-stream" {
		return string(body), "", nil
	}
	return "", "", fmt.Errorf("the page is %s, not text", clip(media, 60))
}

// problem is a failed fetch's error without repeating the URL (url.Error
// does, query string and all).
func problem(err error) error {
	var refused *netguard.Refused
	if errors.As(err, &refused) {
		return refused
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return fmt.Errorf("timed out after %s", Timeout)
		}
		return ue.Err
	}
	return err
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
