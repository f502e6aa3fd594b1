package serve

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const testToken = "0123456789abcdef-token"

// fakeClock is a time the test moves by hand.
type fakeClock struct{ nanos atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.nanos.Store(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano())
	return c
}
func (c *fakeClock) now() time.Time          { return time.Unix(0, c.nanos.Load()) }
func (c *fakeClock) advance(d time.Duration) { c.nanos.Add(int64(d)) }

// tokenFixture is a server with a token and a page behind it.
func tokenFixture(t *testing.T) (*fixture, *fakeClock) {
	f := newFixture(t, func(o *Options) {
		o.Token = testToken
		o.Pages = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("the page")) })
	})
	clock := newFakeClock()
	f.srv.auth.now = clock.now
	return f, clock
}

// noRedirects keeps cookies and shows each redirect as it is.
func noRedirects() *http.Client {
	return &http.Client{Jar: newJar(), CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// postLogin posts the login form as a browser does.
func postLogin(t *testing.T, client *http.Client, base, token string) *http.Response {
	t.Helper()
	resp, err := client.PostForm(base+"/login", url.Values{"token": {token}, "next": {"/s/abc"}})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func get(t *testing.T, client *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// With a token: the API takes the bearer token; a browser logs in with the
// POST form and gets a cookie holding a random session id (never the
// token), HttpOnly and SameSite=Strict, for 12 hours; a token in the
// address logs nobody in; logout revokes the session on the server.
func TestTokenLoginAndLogout(t *testing.T) {
	t.Parallel()
	f, clock := tokenFixture(t)
	if code, _ := get(t, http.DefaultClient, f.ts.URL+"/api/v1/sessions"); code != 401 {
		t.Errorf("API without the token: %d", code)
	}
	f.errorCode(401, "unauthorized", "GET", "/api/v1/sessions", nil, "Authorization", "Bearer wrong")
	f.must(200, "GET", "/api/v1/sessions", nil)

	client := noRedirects()
	code, page := get(t, client, f.ts.URL+"/")
	if code != 401 || !strings.Contains(page, `<form method="post" action="/login"`) {
		t.Fatalf("page without a login: %d %s", code, page)
	}
	code, page = get(t, client, f.ts.URL+"/login?token="+testToken)
	if u, _ := url.Parse(f.ts.URL); code != 200 || len(client.Jar.Cookies(u)) != 0 || !strings.Contains(page, "not used") {
		t.Fatalf("GET /login?token=: %d, cookies %v, page %s", code, client.Jar.Cookies(u), page)
	}
	if resp := postLogin(t, client, f.ts.URL, "wrong"); resp.StatusCode != 401 || len(resp.Cookies()) != 0 {
		t.Fatalf("login with a wrong token: %d %v", resp.StatusCode, resp.Cookies())
	}
	resp := postLogin(t, client, f.ts.URL, testToken)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/s/abc" {
		t.Fatalf("login: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	cookie := loginCookie(t, resp)
	if strings.Contains(cookie.Value, testToken) || len(cookie.Value) < 40 || !cookie.HttpOnly ||
		cookie.SameSite != http.SameSiteStrictMode || cookie.Secure || cookie.MaxAge != int((12*time.Hour).Seconds()) {
		t.Errorf("cookie %+v", cookie)
	}
	for _, path := range []string{"/", "/api/v1/sessions"} {
		if code, _ := get(t, client, f.ts.URL+path); code != 200 {
			t.Errorf("%s with the login cookie: %d", path, code)
		}
	}
	// A second login is another session: ending one leaves the other.
	other := noRedirects()
	postLogin(t, other, f.ts.URL, testToken)
	resp, err := client.Post(f.ts.URL+"/logout", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || loginCookie(t, resp).MaxAge >= 0 {
		t.Fatalf("logout: %d %v", resp.StatusCode, resp.Cookies())
	}
	if code := withCookie(t, f.ts.URL+"/api/v1/sessions", cookie.Value); code != 401 {
		t.Errorf("the logged-out session id still works: %d", code)
	}
	if code, _ := get(t, other, f.ts.URL+"/api/v1/sessions"); code != 200 {
		t.Errorf("the other login: %d", code)
	}
	clock.advance(12*time.Hour + time.Second)
	if code, _ := get(t, other, f.ts.URL+"/api/v1/sessions"); code != 401 {
		t.Errorf("a login 12 h old: %d", code)
	}
}

func loginCookie(t *testing.T, resp *http.Response) *http.Cookie {
	t.Helper()
	for _, c := range resp.Cookies() {
		if c.Name == sessionCookie {
			return c
		}
	}
	t.Fatalf("no %s cookie in %v", sessionCookie, resp.Header.Values("Set-Cookie"))
	return nil
}

func withCookie(t *testing.T, u, value string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: value})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// The page to go back to after the login is a path of this server only.
func TestLoginNextIsLocal(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"/s/abc?x=1": "/s/abc?x=1", "//evil.example": "/", "/\\evil.example": "/",
		"https://evil.example": "/", "": "/", "/login": "/", "/\t/evil.example": "/", "/x\x7f": "/"} {
		if got := localPath(in); got != want {
			t.Errorf("localPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// 300 wrong tokens from one address draw 6 × 401, then 429 with
// Retry-After, growing; the right token waits too; other addresses do not;
// the form login counts the same.
func TestFailedTokensBackOff(t *testing.T) {
	t.Parallel()
	f, clock := tokenFixture(t)
	counts := map[int]int{}
	for range 300 {
		code, _ := f.do("GET", "/api/v1/sessions", nil, "Authorization", "Bearer wrong")
		counts[code]++
	}
	if counts[401] != freeFailures+1 || counts[429] != 300-freeFailures-1 {
		t.Fatalf("300 wrong tokens: %v", counts)
	}
	req, _ := http.NewRequest("GET", f.ts.URL+"/api/v1/sessions", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "1" {
		t.Errorf("right token while backing off: %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if code := postLogin(t, noRedirects(), f.ts.URL, testToken).StatusCode; code != 429 {
		t.Errorf("form login while backing off: %d", code)
	}
	// Another address is not held back.
	rec := httptest.NewRecorder()
	other := httptest.NewRequest("GET", "http://127.0.0.1/api/v1/sessions", nil)
	other.RemoteAddr = "192.0.2.7:4000"
	other.Header.Set("Authorization", "Bearer "+testToken)
	f.srv.Handler().ServeHTTP(rec, other)
	if rec.Code != 200 {
		t.Errorf("another address: %d", rec.Code)
	}
	clock.advance(time.Second)
	if resp := postLogin(t, noRedirects(), f.ts.URL, "wrong"); resp.StatusCode != 401 {
		t.Fatalf("after the wait: %d", resp.StatusCode)
	}
	code, _ := f.do("GET", "/api/v1/sessions", nil)
	if code != 429 {
		t.Fatalf("the next failure doubles the wait: %d", code)
	}
	clock.advance(2 * time.Second)
	f.must(200, "GET", "/api/v1/sessions", nil) // the right token clears the count
	for range freeFailures {
		f.errorCode(401, "unauthorized", "GET", "/api/v1/sessions", nil, "Authorization", "Bearer wrong")
	}
}

// Non-loopback addresses need a token of 16 characters or more.
func TestCheckAddr(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:8080", "", true}, {"localhost:0", "", true}, {"[::1]:80", "", true}, {"127.0.0.1:8080", "t", true},
		{"0.0.0.0:8080", "", false}, {":8080", "", false}, {"192.168.1.2:80", "", false},
		{"0.0.0.0:8080", "t", false}, {"0.0.0.0:8080", "fifteen-chars-x", false},
		{"0.0.0.0:8080", "sixteen-chars-xx", true}, {"nonsense", "sixteen-chars-xx", false},
	} {
		if err := CheckAddr(c.addr, c.token); (err == nil) != c.ok {
			t.Errorf("CheckAddr(%q, %q) = %v", c.addr, c.token, err)
		}
	}
}

// --tls-cert/--tls-key: the server answers HTTPS and the login cookie is
// Secure.
func TestTLSAndSecureCookie(t *testing.T) {
	t.Parallel()
	certFile, keyFile, pool := selfSigned(t)
	f := newFixture(t, func(o *Options) { o.Token = testToken; o.TLSCert = certFile; o.TLSKey = keyFile })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var ready strings.Builder
	done := make(chan error, 1)
	ctx, stop := context.WithCancel(context.Background())
	go func() { done <- f.srv.Serve(ctx, ln, &ready) }()
	t.Cleanup(func() { stop(); <-done })
	base := "https://" + ln.Addr().String()
	client := noRedirects()
	client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	resp := postLogin(t, client, base, testToken)
	if resp.StatusCode != http.StatusSeeOther || !loginCookie(t, resp).Secure {
		t.Fatalf("login over TLS: %d %v", resp.StatusCode, resp.Header.Values("Set-Cookie"))
	}
	if code, _ := get(t, client, base+"/api/v1/sessions"); code != 200 {
		t.Errorf("API over TLS with the cookie: %d", code)
	}
	if !strings.HasPrefix(ready.String(), "listening on https://") {
		t.Errorf("ready line %q", ready.String())
	}
	if _, err := New(Options{Config: builtinConfig(t), Agents: demoAgents, Store: f.st, TLSCert: certFile}); err == nil {
		t.Error("a certificate without its key was accepted")
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "parley test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}
