package configload

import (
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/modes"
)

// The boxes' keys (palette_*, sessions_*, box_*) are checked as the
// others: a conflict within a box and a palette key that would type name
// the file and line.
func TestBoxKeysErrorsNameFileAndLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ body, want string }{
		{"keys:\n  sessions_fork: d\n", ":2: keys.sessions_fork: d is also the key of sessions_delete (delete (press twice)), both in the session list (its default key; give sessions_delete another under keys: to free it)"},
		{"theme: dark\nkeys:\n  box_down: ctrl+c\n", ":3: keys.box_down: ctrl+c is also the key of quit (cancel/quit), both in the turn box"},
		{"keys:\n  palette_run: r\n", `:2: keys.palette_run: r types into the palette's query`},
	} {
		path := writeFile(t, c.body)
		_, err := Load(modes.All(), path, nil)
		if err == nil || !strings.Contains(err.Error(), path+c.want) {
			t.Errorf("%q: %v\nwant %s%s", c.body, err, path, c.want)
		}
	}
	if _, err := Load(modes.All(), writeFile(t, "keys:\n  sessions_fork: /\n  box_close: [x, esc]\n"), nil); err != nil {
		t.Errorf("keys of boxes that meet nothing else: %v", err)
	}
}
