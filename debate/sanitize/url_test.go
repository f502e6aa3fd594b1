package sanitize

import (
	"net/url"
	"strings"
	"testing"
)

func TestURLRedactsSecrets(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://example.org/parley":                                            "https://example.org/parley",
		"https://user:hunter2@example.org/hook":                                 "https://redacted@example.org/hook",
		"https://tok3n@example.org/hook":                                        "https://redacted@example.org/hook",
		"https://example.org/hook?token=abc&event=magi":                         "https://example.org/hook?token=[redacted]&event=magi",
		"https://example.org/hook?X-Api-Key=k&sig=s&page=2":                     "https://example.org/hook?X-Api-Key=[redacted]&sig=[redacted]&page=2",
		"https://example.org/hook?id=9f86d081884c7d659a2feaa0c55ad015":          "https://example.org/hook?id=[redacted]",
		"https://hooks.slack.com/services/T0001/B0002/Xk2mJ9qPz4TbW8cLfN3rYh7v": "https://hooks.slack.com/services/T0001/B0002/[redacted]",
		"http://[::1]:8080/h#access_token=abc":                                  "http://[::1]:8080/h#[redacted]",
		"http://127.0.0.1:9/a%20b?q=two%20words":                                "http://127.0.0.1:9/a%20b?q=two%20words",
		"not a url":                                                             "[redacted] (not a URL)",
		"https://user:pa ss@example.org/":                                       "[redacted] (not a URL)",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
		if again := URL(URL(in)); again != URL(in) && !strings.HasPrefix(URL(in), Redacted) {
			t.Errorf("redacting %q twice gives %q", URL(in), again)
		}
	}
}

// No password, token parameter or fragment of any URL survives, and a
// redacted URL redacts to itself (the delivery log redacts stored rows
// again when it shows them).
func FuzzURL(f *testing.F) {
	for _, seed := range []string{"https://u:p4ssw0rd@h.example/x?token=t0k3n&a=b#frag", "http://[::1]:1/%zz", "https://h/a/b?c", "https://h?=&&=x",
		"https://hooks.slack.com/services/T0/B0/abcdefghijklmnop1234", "http://user@/path"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		out := URL(raw)
		u, err := url.Parse(raw)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return
		}
		if p, ok := u.User.Password(); ok && len(p) >= 4 && strings.Contains(out, p) && !strings.Contains(u.Host+u.Path+u.RawQuery, p) {
			t.Errorf("password %q survives in %q", p, out)
		}
		if v := u.Query().Get("token"); len(v) >= 4 && strings.Contains(out, "token="+url.QueryEscape(v)) {
			t.Errorf("token %q survives in %q", v, out)
		}
		if again := URL(out); again != out {
			t.Errorf("URL(%q) = %q, redacted again %q", raw, out, again)
		}
	})
}
