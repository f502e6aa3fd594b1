package sanitize

import (
	"net/url"
	"strings"
)

// Redacted stands where a URL held a secret; user info becomes
// redactedUser (brackets are not allowed there, and a redacted URL must
// redact to itself).
const (
	Redacted     = "[redacted]"
	redactedUser = "redacted"
)

// URL is raw as it may be shown or stored: its user info, the values of
// query parameters that look like credentials (by name — token, key,
// secret, sig, pass, auth… — or by value: a long run of letters and
// digits), path segments that look like one (as in Slack or Discord
// webhook URLs) and any fragment are replaced by [redacted] (user info by
// "redacted"). Scheme, host
// and port stay, so the URL is still recognisable. Text that is not a URL
// is not shown at all.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return Redacted + " (not a URL)"
	}
	userinfo := u.User != nil
	u.User = nil
	segments := strings.Split(u.EscapedPath(), "/")
	for i, seg := range segments {
		if plain, err := url.PathUnescape(seg); err == nil && looksSecret(plain) {
			segments[i] = Redacted
		}
	}
	u.RawPath, u.Path = "", ""
	u.RawQuery = redactQuery(u.RawQuery)
	if u.Fragment != "" || u.RawFragment != "" {
		u.Fragment, u.RawFragment = Redacted, ""
	}
	out := u.Scheme + "://"
	if userinfo {
		out += redactedUser + "@"
	}
	out += u.Host + strings.Join(segments, "/")
	if u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	if u.Fragment != "" {
		out += "#" + u.Fragment
	}
	return out
}

// redactQuery keeps the parameters' order and names, replacing the values
// that look secret.
func redactQuery(raw string) string {
	if raw == "" {
		return ""
	}
	parts := strings.Split(raw, "&")
	for i, part := range parts {
		name, value, hasValue := strings.Cut(part, "=")
		plainName, err1 := url.QueryUnescape(name)
		plainValue, err2 := url.QueryUnescape(value)
		if err1 != nil || err2 != nil {
			parts[i] = Redacted
			continue
		}
		if hasValue && value != "" && (secretName(plainName) || looksSecret(plainValue)) {
			parts[i] = name + "=" + Redacted
		}
	}
	return strings.Join(parts, "&")
}

// secretName is a parameter name that usually carries a credential.
func secretName(name string) bool {
	name = strings.ToLower(name)
	for _, s := range []string{"token", "key", "secret", "sig", "pass", "pwd", "auth", "cred", "session", "code"} {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}

// looksSecret is a value shaped like a generated credential: 16 or more
// characters of a token alphabet, with both letters and digits.
func looksSecret(s string) bool {
	if len(s) < 16 {
		return false
	}
	var letter, digit bool
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
			letter = true
		case r >= '0' && r <= '9':
			digit = true
		case strings.ContainsRune("-_.~+/=", r):
		default:
			return false
		}
	}
	return letter && digit
}
