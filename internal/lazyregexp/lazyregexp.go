// Package lazyregexp is a regular expression compiled on its first use,
// for the patterns a package declares at its top level: compiled there,
// every one of them runs before main in every command, whether the
// command matches anything or not (Parley's own were ~2,900 allocations
// and ~0.8 ms of each process's start, issue 50). Modelled on the Go
// command's internal/lazyregexp.
//
// Under go test a pattern is compiled when it is declared, as
// regexp.MustCompile would: a malformed one still panics in the tests of
// the package that declares it, not in a user's hands.
package lazyregexp

import (
	"os"
	"regexp"
	"strings"
	"sync"
)

// Regexp is a pattern compiled on the first call of any of its methods.
type Regexp struct {
	pattern string
	once    sync.Once
	re      *regexp.Regexp
}

// Regexp is the compiled expression; it panics if the pattern is invalid,
// as regexp.MustCompile does.
func (r *Regexp) Regexp() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.pattern) })
	return r.re
}

// FindAllString is regexp.Regexp.FindAllString.
func (r *Regexp) FindAllString(s string, n int) []string { return r.Regexp().FindAllString(s, n) }

// FindAllStringIndex is regexp.Regexp.FindAllStringIndex.
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringIndex(s, n)
}

// FindAllStringSubmatch is regexp.Regexp.FindAllStringSubmatch.
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Regexp().FindAllStringSubmatch(s, n)
}

// FindString is regexp.Regexp.FindString.
func (r *Regexp) FindString(s string) string { return r.Regexp().FindString(s) }

// FindStringIndex is regexp.Regexp.FindStringIndex.
func (r *Regexp) FindStringIndex(s string) []int { return r.Regexp().FindStringIndex(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.Regexp().FindStringSubmatch(s) }

// FindStringSubmatchIndex is regexp.Regexp.FindStringSubmatchIndex.
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.Regexp().FindStringSubmatchIndex(s)
}

// MatchString is regexp.Regexp.MatchString.
func (r *Regexp) MatchString(s string) bool { return r.Regexp().MatchString(s) }

// ReplaceAllString is regexp.Regexp.ReplaceAllString.
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.Regexp().ReplaceAllString(src, repl)
}

// String is the pattern.
func (r *Regexp) String() string { return r.pattern }

// inTest: a test binary's name ends in ".test" (go test builds pkg.test).
var inTest = len(os.Args) > 0 && strings.HasSuffix(strings.TrimSuffix(os.Args[0], ".exe"), ".test")

// New is pattern, compiled on first use (at once under go test).
func New(pattern string) *Regexp {
	r := &Regexp{pattern: pattern}
	if inTest {
		r.Regexp()
	}
	return r
}
