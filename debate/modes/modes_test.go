package modes_test

import (
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/modes"
)

// The program's modes, once each, in console-key order, each saying what
// it is and which controls it takes.
func TestAllListsEveryModeOnceInKeyOrder(t *testing.T) {
	t.Parallel()
	var names, keys []string
	controls := map[string]string{}
	for _, mi := range modes.All().Infos() {
		names = append(names, mi.Name)
		keys = append(keys, mi.Key)
		if mi.Title == "" || mi.Input == "" {
			t.Errorf("%s has no title or input text: %+v", mi.Name, mi)
		}
		var cs []string
		for _, c := range mi.Controls {
			cs = append(cs, string(c))
		}
		controls[mi.Name] = strings.Join(cs, ",")
	}
	if got := strings.Join(names, ","); got != "mention,alternate,talk,magi,agent,council" {
		t.Fatalf("modes %s", got)
	}
	if got := strings.Join(keys, ","); got != "alt+1,alt+2,alt+3,alt+4,alt+5,alt+6" {
		t.Fatalf("keys %s", got)
	}
	want := map[string]string{"mention": "", "alternate": "", "talk": "pause,continue,stop,rounds", "magi": "rounds", "agent": "steps", "council": ""}
	for name, w := range want {
		if controls[name] != w {
			t.Errorf("%s controls %q, want %q", name, controls[name], w)
		}
	}
	// Each call hands out a fresh list.
	a := modes.All()
	a[0] = nil
	if modes.All()[0] == nil {
		t.Fatal("All() shares its list")
	}
}
