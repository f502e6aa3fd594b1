package configload

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/spf13/viper"

	"github.com/parleyhq/parley"
	"github.com/parleyhq/parley/debate/modes"
)

// The built-in configuration decoded without viper (no user file, no
// variable) equals the one viper decodes when a file, empty, makes Load
// take its full path: the same agents, prices, modes' sections, theme.
func TestBuiltinDecodeEqualsViper(t *testing.T) {
	t.Parallel()
	fast, err := Load(modes.All(), "", []string{"PARLEY_DB=x.db", "HOME=/nowhere"})
	if err != nil {
		t.Fatal(err)
	}
	full, err := Load(modes.All(), writeFile(t, "# nothing changed\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if full.Config.Source == fast.Config.Source {
		t.Fatalf("both loads took one path (source %q)", fast.Config.Source)
	}
	full.Config.Source = fast.Config.Source
	a, b := reflect.ValueOf(*fast.Config), reflect.ValueOf(*full.Config)
	for i := range a.NumField() {
		if !reflect.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) {
			t.Errorf("%s: builtin_gen.go has %+v, viper decodes %+v (go generate ./cmd/parley/internal/configload/)",
				a.Type().Field(i).Name, a.Field(i), b.Field(i))
		}
	}
	if len(fast.Sources) != 0 || len(fast.Warnings) != 0 {
		t.Fatalf("sources %v, warnings %v: want none for the default alone", fast.Sources, fast.Warnings)
	}
}

// Not timed: loading the default alone allocates under a tenth of what the
// full loader does for the same values, so a change that sends it through
// viper again fails here.
func TestBuiltinLoadSkipsViper(t *testing.T) {
	path := writeFile(t, "# nothing changed\n")
	load := func(p string) func() {
		return func() {
			if _, err := Load(modes.All(), p, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	fast, full := testing.AllocsPerRun(5, load("")), testing.AllocsPerRun(5, load(path))
	if fast*10 > full {
		t.Fatalf("the default alone made %.0f allocations, the full loader %.0f: want under a tenth", fast, full)
	}
	t.Logf("allocations: default alone %.0f, through viper %.0f", fast, full)
}

// A PARLEY_* variable that names a setting, or none, still goes through
// the loader that applies it or warns; a provider key's variable does not.
func TestBuiltinPathOnlyWhenNoVariableApplies(t *testing.T) {
	t.Parallel()
	for env, want := range map[string]bool{
		"PARLEY_MODES_TALK_ROUNDS=3": false,
		"PARLEY_NO_SUCH=1":           false,
		"PARLEY_MODES_TALK_ROUNDS=":  true,
		"PARLEY_DB=/tmp/x.db":        true,
		"OPENAI_API_KEY=sk":          true,
	} {
		if got := envSetsNothing([]string{env}); got != want {
			t.Errorf("envSetsNothing(%s) = %v, want %v", env, got, want)
		}
	}
	l, err := Load(modes.All(), "", []string{"PARLEY_MODES_TALK_ROUNDS=3", "PARLEY_NO_SUCH=1"})
	if err != nil {
		t.Fatal(err)
	}
	if l.SourceOf("modes.talk.rounds").Kind != "env" || len(l.Warnings) != 1 {
		t.Fatalf("sources %v, warnings %v", l.Sources, l.Warnings)
	}
}

// The generic tree viper starts from when a user file is given equals
// config.yaml as viper reads it, key for key.
func TestBuiltinTreeEqualsTheYAML(t *testing.T) {
	t.Parallel()
	read := viper.NewWithOptions(viper.KeyDelimiter("::"))
	read.SetConfigType("yaml")
	if err := read.ReadConfig(bytes.NewReader(parley.DefaultConfig)); err != nil {
		t.Fatal(err)
	}
	merged := viper.NewWithOptions(viper.KeyDelimiter("::"))
	if err := merged.MergeConfigMap(builtinTree()); err != nil {
		t.Fatal(err)
	}
	want, got := read.AllSettings(), merged.AllSettings()
	for k := range want {
		if !reflect.DeepEqual(got[k], want[k]) {
			t.Errorf("%s: builtin_gen.go has %v, config.yaml %v (go generate ./cmd/parley/internal/configload/)", k, got[k], want[k])
		}
	}
	if len(got) != len(want) {
		t.Errorf("builtin_gen.go has %d top-level keys, config.yaml %d", len(got), len(want))
	}
}
