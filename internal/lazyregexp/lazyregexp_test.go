package lazyregexp

import (
	"fmt"
	"regexp"
	"testing"
)

func TestCompiledWhenDeclaredUnderTest(t *testing.T) {
	if !inTest {
		t.Fatal("a go test binary is not recognised as one: malformed patterns would panic only in users' hands")
	}
	if r := New(`a+`); r.re == nil {
		t.Fatal("New did not compile its pattern under go test")
	}
}

func TestCompiledOnFirstUse(t *testing.T) {
	r := &Regexp{pattern: `(\w+)@(\w+)`} // as New leaves it outside go test
	if r.re != nil {
		t.Fatal("compiled before any use")
	}
	want := regexp.MustCompile(r.pattern)
	s := "mail bob@example and amy@host"
	if got := r.FindStringSubmatch(s); len(got) != 3 || got[1] != "bob" {
		t.Fatalf("FindStringSubmatch = %q", got)
	}
	if r.re == nil {
		t.Fatal("not kept after its first use")
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"FindAllString", r.FindAllString(s, -1), want.FindAllString(s, -1)},
		{"FindAllStringIndex", r.FindAllStringIndex(s, -1), want.FindAllStringIndex(s, -1)},
		{"FindAllStringSubmatch", r.FindAllStringSubmatch(s, -1), want.FindAllStringSubmatch(s, -1)},
		{"FindString", r.FindString(s), want.FindString(s)},
		{"FindStringIndex", r.FindStringIndex(s), want.FindStringIndex(s)},
		{"FindStringSubmatchIndex", r.FindStringSubmatchIndex(s), want.FindStringSubmatchIndex(s)},
		{"MatchString", r.MatchString(s), true},
		{"ReplaceAllString", r.ReplaceAllString(s, "$2"), "mail example and host"},
		{"String", r.String(), `(\w+)@(\w+)`},
	}
	for _, c := range checks {
		if g, w := fmtAny(c.got), fmtAny(c.want); g != w {
			t.Errorf("%s = %s, want %s", c.name, g, w)
		}
	}
}

func TestMalformedPatternPanicsAtFirstUse(t *testing.T) {
	r := &Regexp{pattern: `a(`}
	defer func() {
		if recover() == nil {
			t.Error("a malformed pattern did not panic")
		}
	}()
	r.MatchString("a")
}

func fmtAny(v any) string { return fmt.Sprintf("%#v", v) }
