package web

import (
	"net/http/httptest"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/evidence"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/transcript"
)

// evidenceSession holds tool calls whose records come from outside: a
// good page, a hostile title, and sources that must never be links.
func evidenceSession() SessionView {
	rec := func(id, src, title string) evidence.Record {
		return evidence.Record{ID: id, Kind: evidence.KindURL, Source: src, Title: title, Tool: "fetch_url", Agent: "claude", Turn: 2}
	}
	recs := []evidence.Record{
		rec("E1", "https://example.org/report?a=1&b=2", "Report"),
		rec("E2", "https://evil.example/x", `<img src=x onerror="alert(1)"><script>alert(2)</script>`),
		rec("E3", "javascript:alert(3)", ""),
		rec("E4", "data:text/html,<script>alert(4)</script>", "data"),
		rec("E5", "//evil.example/relative", "relative"),
		rec("E6", "https://evil.example/\x1b[2J", "controls"),
	}
	sv := SessionView{Info: debate.SessionInfo{ID: "ev0001", Mode: "mention", Created: t0}, Panels: []Panel{{Name: "claude", Display: "Claude"}}}
	sv.Entries = append(sv.Entries, entry(1, transcript.KindUser, "user", "read them"))
	for i, r := range recs {
		e := entry(2+i, transcript.KindToolCall, "claude", "")
		e.ToolCalls = []transcript.ToolCall{{Tool: "fetch_url", Parameters: map[string]string{"url": r.Source}, Result: "text"}}
		e.Evidence = []evidence.Record{r}
		sv.Entries = append(sv.Entries, e)
	}
	return sv
}

// The page lists the ledger and each call's line as the core words it;
// a source is a link (rel="noopener noreferrer") only when it is an http
// or https URL; a hostile title is text.
func TestPageShowsEvidenceWithSafeLinks(t *testing.T) {
	t.Parallel()
	fb := &fakeBackend{}
	fb.add(evidenceSession())
	srv := httptest.NewServer(New(fb, Options{Modes: modes.All()}))
	t.Cleanup(srv.Close)
	for _, path := range []string{"/s/ev0001", "/s/ev0001/entry/3"} {
		_, body := get(t, srv.URL+path)
		assertInert(t, body)
		hrefs := map[string]string{} // href → rel
		z := html.NewTokenizer(strings.NewReader(body))
		for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
			tok := z.Token()
			if tok.Data != "a" || tt != html.StartTagToken {
				continue
			}
			var href, rel string
			for _, a := range tok.Attr {
				switch a.Key {
				case "href":
					href = a.Val
				case "rel":
					rel = a.Val
				}
			}
			if strings.HasPrefix(href, "http") {
				hrefs[href] = rel
			}
			if strings.Contains(href, "javascript") || strings.HasPrefix(href, "data:") || strings.Contains(href, "evil.example/relative") || strings.Contains(href, "\x1b") {
				t.Errorf("%s: unsafe link %q", path, href)
			}
		}
		for href, rel := range hrefs {
			if rel != "noopener noreferrer" {
				t.Errorf("%s: link %q has rel %q", path, href, rel)
			}
		}
		if path == "/s/ev0001" {
			if _, ok := hrefs["https://example.org/report?a=1&b=2"]; !ok || len(hrefs) != 2 {
				t.Errorf("links %v, want the report's and evil.example/x's", hrefs)
			}
			for _, want := range []string{`<li id="evidence-E1" data-id="E1"><span class="evidence-id">E1</span>`, "&lt;img src=x", "<code>✓ E1 fetch_url example.org/report?a=1&amp;b=2</code>", `<span class="source">javascript:alert(3)</span>`} {
				if !strings.Contains(body, want) {
					t.Errorf("the page lacks %q", want)
				}
			}
		}
	}
	if _, body := get(t, srv.URL+"/s/aaa111"); strings.Contains(body, "evidence-E") {
		t.Error("a session without evidence lists some")
	}
}

func TestSafeHref(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"https://example.org/a b": "https://example.org/a%20b",
		"http://x.test/":          "http://x.test/",
		"javascript:alert(1)":     "",
		"JAVASCRIPT:alert(1)":     "",
		"data:text/html,x":        "",
		"/relative":               "",
		"//evil.example/":         "",
		"https:///nohost":         "",
		"https://x.test/\n":       "",
		"file:///etc/passwd":      "",
		"":                        "",
	} {
		if got := safeHref(raw); got != want {
			t.Errorf("safeHref(%q) = %q, want %q", raw, got, want)
		}
	}
}

func FuzzSafeHref(f *testing.F) {
	for _, s := range []string{"https://example.org/", "javascript:alert(1)", "http://[::1]:80/a?b#c", " https://x", "https://x\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := safeHref(raw)
		if got == "" {
			return
		}
		if !strings.HasPrefix(got, "http://") && !strings.HasPrefix(got, "https://") || strings.ContainsFunc(got, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			t.Errorf("safeHref(%q) = %q", raw, got)
		}
	})
}
