package fetchtool

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/parleyhq/parley/debate/toolbox"
	"github.com/parleyhq/parley/providers"
)

func call(t *testing.T, box *toolbox.Box, url string) toolbox.Result {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"url": url})
	return box.Run(context.Background(), providers.ToolCall{ID: "c1", Name: toolbox.ToolFetchURL, Arguments: string(args)})
}

func TestFetchReadsAPageAsText(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var cookies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		cookies = append(cookies, r.Header.Get("Cookie")+"|"+r.Header.Get("Authorization"))
		switch r.URL.Path {
		case "/start":
			http.SetCookie(w, &http.Cookie{Name: "s", Value: "secret"})
			http.Redirect(w, r, "/page", http.StatusFound)
		case "/page":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(`<html><head><title>The  Report</title><script>steal()</script><style>p{}</style></head>
<body><nav>menu</nav><h1>Findings</h1><p>The rate is <b>4.2%</b> in 2026.</p><div hidden>secret part</div><ul><li>one</li><li>two</li></ul></body></html>`))
		}
	}))
	defer srv.Close()
	box := toolbox.New([]toolbox.Tool{New(true)}, nil)
	res := call(t, box, srv.URL+"/start")
	if res.IsError {
		t.Fatalf("fetch failed: %s", res.Text)
	}
	want := "Findings\nThe rate is 4.2% in 2026.\n- one\n- two"
	if res.Text != want {
		t.Errorf("text = %q, want %q", res.Text, want)
	}
	if res.Source.Ref != srv.URL+"/page" || res.Source.Title != "The Report" || res.Source.Kind != "url" {
		t.Errorf("source = %+v", res.Source)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, c := range cookies {
		if c != "|" {
			t.Errorf("a request carried a cookie or credentials: %q", c)
		}
	}
}

// The guard runs on the address dialled: a loopback server is refused by
// default, by its IP and by a name resolving to it, redirects included.
func TestFetchRefusesInternalAddresses(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	box := toolbox.New([]toolbox.Tool{New(false)}, nil)
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	for _, u := range []string{srv.URL, "http://localhost" + port, "http://[::ffff:127.0.0.1]" + port, "http://169.254.169.254/latest/meta-data/"} {
		res := call(t, box, u)
		if !res.IsError || !strings.Contains(res.Text, "refused:") || !strings.Contains(res.Text, "tools.fetch.allow_private") {
			t.Errorf("%s: %v %q", u, res.IsError, res.Text)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("the internal server was reached %d times", hits.Load())
	}
}

func TestFetchRefusesSchemesCredentialsAndBadRedirects(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		case "/creds":
			http.Redirect(w, r, "http://user:pw@example.com/", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/404":
			http.NotFound(w, r)
		case "/bin":
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write([]byte{0x89, 'P', 'N', 'G', 0, 0})
		}
	}))
	defer srv.Close()
	box := toolbox.New([]toolbox.Tool{New(true)}, nil)
	for u, want := range map[string]string{
		"file:///etc/passwd":         "only http and https",
		"ftp://example.com/":         "only http and https",
		"http://user:pw@example.com": "credentials",
		srv.URL + "/file":            "only http and https",
		srv.URL + "/creds":           "credentials",
		srv.URL + "/loop":            "redirects",
		srv.URL + "/404":             "HTTP 404",
		srv.URL + "/bin":             "image/png, not text",
		"http://":                    "no host",
	} {
		res := call(t, box, u)
		if !res.IsError || !strings.Contains(res.Text, want) {
			t.Errorf("%s: %v %q, want %q", u, res.IsError, res.Text, want)
		}
		if strings.Contains(res.Text, "pw@") {
			t.Errorf("%s: the error repeats the credentials: %q", u, res.Text)
		}
	}
}

// At most 2 MiB is read and 64 KiB returned, each said when it bites.
func TestFetchLimits(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		line := strings.Repeat("x", 1023) + "\n"
		for range 3 << 10 { // 3 MiB
			_, _ = w.Write([]byte(line))
		}
	}))
	defer srv.Close()
	tool := New(true)
	out, err := tool.Run(context.Background(), map[string]any{"url": srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Text) > MaxReadBytes+200 || !strings.HasSuffix(out.Text, "[cut: only the first 2 MiB of the page were read]") {
		t.Errorf("read %d bytes, tail %q", len(out.Text), out.Text[len(out.Text)-80:])
	}
	res := toolbox.New([]toolbox.Tool{tool}, nil).Run(context.Background(), providers.ToolCall{Name: toolbox.ToolFetchURL, Arguments: `{"url":"` + srv.URL + `"}`})
	if len(res.Text) > toolbox.MaxResultBytes || !strings.Contains(res.Text, "[cut: the result was") {
		t.Errorf("returned %d bytes, tail %q", len(res.Text), res.Text[max(len(res.Text)-80, 0):])
	}
}

func FuzzHTMLText(f *testing.F) {
	f.Add(`<html><title>t</title><p>a<b>b</b> c</p><script>x</script></html>`)
	f.Add(`<div style="display: none">h</div><li>x<table><tr><td>1<td>2</table>`)
	f.Add("<p>\x1b[31mred\u202e</p>")
	f.Fuzz(func(t *testing.T, page string) {
		text, title := HTMLText(page)
		if len(text) > 4*len(page)+16 || len(title) > len(page) {
			t.Fatalf("output grew: %d/%d from %d", len(text), len(title), len(page))
		}
		if strings.Contains(text, "\n\n") {
			t.Fatalf("blank line in %q", text)
		}
	})
}
