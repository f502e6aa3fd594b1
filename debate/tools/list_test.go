package tools

import (
	"path"
	"testing"
)

// The workspace's .gitignore is outside text: whatever it holds, reading
// it must not panic, and every pattern kept must be a usable glob.
func FuzzParseGitignore(f *testing.F) {
	for _, s := range []string{
		"bin/\n*.log\n/dist\n# comment\n!keep.log\n",
		"**/node_modules\nsrc/**/gen\n",
		"[\n\\\n/\n\x00\n",
		"a/b/c.txt\r\n  spaced  \n",
		"",
	} {
		f.Add(s, "src/main.go")
	}
	f.Fuzz(func(t *testing.T, text, name string) {
		for _, p := range parseGitignore(text) {
			if p.glob == "" {
				t.Fatalf("empty glob from %q", text)
			}
			if _, err := path.Match(p.glob, ""); err != nil {
				t.Fatalf("kept a malformed glob %q: %v", p.glob, err)
			}
			p.match(name, true)
			p.match(name, false)
		}
	})
}

func TestParseGitignoreForms(t *testing.T) {
	t.Parallel()
	pats := parseGitignore("bin/\n*.log\n/dist\nsrc/gen\n!keep.log\n# c\n**/tmp\na/**/b\n")
	cases := []struct {
		name string
		dir  bool
		want bool
	}{
		{"bin", true, true}, {"x/bin", true, true}, {"bin", false, false},
		{"a.log", false, true}, {"deep/a.log", false, true}, {"keep.log", false, true}, // negations are not supported
		{"dist", true, true}, {"x/dist", true, false},
		{"src/gen", true, true}, {"other/src/gen", true, false},
		{"tmp", true, true}, {"a/x/b", true, false},
	}
	for _, c := range cases {
		got := false
		for _, p := range pats {
			got = got || p.match(c.name, c.dir)
		}
		if got != c.want {
			t.Errorf("%s (dir %v): ignored %v, want %v", c.name, c.dir, got, c.want)
		}
	}
}
