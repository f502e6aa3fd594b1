package manpage

import "testing"

func TestPlainUnmarksHeadingsOutsideCode(t *testing.T) {
	in := "# Title\n\ntext #1\n## Part two\n```sh\n# a comment\n```\n#hashtag\n####### seven\n"
	want := "Title\n\ntext #1\nPart two\n```sh\n# a comment\n```\n#hashtag\n####### seven\n"
	if got := string(Plain([]byte(in))); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestStyleHasNoHeadingMarks(t *testing.T) {
	s := Style()
	for i, h := range []string{s.H1.Prefix, s.H2.Prefix, s.H3.Prefix, s.H4.Prefix, s.H5.Prefix, s.H6.Prefix} {
		if h != "" {
			t.Errorf("H%d prefix %q", i+1, h)
		}
	}
}
