package serve

import (
	"bytes"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/parleyhq/parley/cmd/parley/internal/serve/web"
)

// loginForm is the login page: one password field posted to /login, parsed
// on first use (not in every command's start-up). It
// holds no script, so the web view's CSP fits it.
var loginForm = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Log in · Parley</title>
<link rel="stylesheet" href="/static/style.css">
</head>
<body>
<main class="login">
<h1>Parley</h1>
<p id="login-message">{{.Message}}</p>
<form method="post" action="/login" id="login">
<input type="hidden" name="next" value="{{.Next}}">
<label>Token <input type="password" name="token" id="token" autocomplete="current-password" required autofocus></label>
<button type="submit">Log in</button>
</form>
</main>
</body>
</html>
`))
})

// loginPage answers with the login form and status.
func (s *Server) loginPage(w http.ResponseWriter, r *http.Request, status int, message string) {
	next := r.URL.RequestURI()
	if r.URL.Path == "/login" {
		next = r.FormValue("next")
	}
	var buf bytes.Buffer
	if err := loginForm().Execute(&buf, map[string]string{"Message": message, "Next": localPath(next)}); err != nil {
		http.Error(w, "internal error rendering the login page", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", web.CSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// localPath keeps a page to go back to after the login only when it is a
// path of this server ("/" otherwise): no open redirect.
func localPath(p string) string {
	// Browsers drop tabs and line breaks from a URL and read a backslash as "/",
	// so any of them could turn "/\t/host" into "//host", another site.
	unsafe := func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' }
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsFunc(p, unsafe) ||
		strings.HasPrefix(p, "/login") {
		return "/"
	}
	if u, err := url.Parse(p); err != nil || u.Host != "" || u.Scheme != "" {
		return "/"
	}
	return p
}

// login is GET /login (the form; a token in the address is never read, so
// it never needs to be in one) and POST /login (the form's token, traded
// for a login session cookie).
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if s.auth.token == "" { // nothing to log in to
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	if r.Method != http.MethodPost {
		msg := "Type the server's token (PARLEY_SERVE_TOKEN)."
		if r.URL.Query().Has("token") {
			msg = "A token in the address is not used (it would stay in the history and the logs): type it here."
		}
		s.loginPage(w, r, http.StatusOK, msg)
		return
	}
	addr := clientAddr(r)
	if wait := s.auth.admit(addr); wait > 0 { // charged until the token matches
		tooManyFailures(w, wait)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 8<<10)
	if err := r.ParseForm(); err != nil {
		s.loginPage(w, r, http.StatusBadRequest, "The login form could not be read.")
		return
	}
	if !s.auth.tokenMatches(r.PostForm.Get("token")) {
		s.logf("wrong token from %s at /login", addr)
		s.loginPage(w, r, http.StatusUnauthorized, "Wrong token.")
		return
	}
	s.auth.succeeded(addr)
	http.SetCookie(w, s.cookie(r, s.auth.newSession(), int(sessionTTL.Seconds())))
	http.Redirect(w, r, localPath(r.PostForm.Get("next")), http.StatusSeeOther)
}

// logout is POST /logout: the login session ends on the server and the
// cookie is cleared.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		s.auth.endSession(c.Value)
	}
	http.SetCookie(w, s.cookie(r, "", -1))
	target := "/"
	if s.auth.token != "" {
		target = "/login"
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// cookie is the login session cookie: script cannot read it, no other site
// sends it, and under TLS it never travels in clear.
func (s *Server) cookie(r *http.Request, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: sessionCookie, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil}
}
