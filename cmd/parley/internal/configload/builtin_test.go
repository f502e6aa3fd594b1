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
// viper again fails here; and a user file that sets one provider's address
// decodes that key alone, under a fifth of the whole tree's allocations.
func TestBuiltinLoadSkipsViper(t *testing.T) {
	empty := writeFile(t, "# nothing changed\n")
	oneKey := writeFile(t, "providers:\n  openai: {base_url: 'http://127.0.0.1:9/v1', api_key_env: K, max_retries: 0}\n")
	loading := func(p string, whole bool) func() {
		return func() {
			if _, err := load(modes.All(), p, nil, whole); err != nil {
				t.Fatal(err)
			}
		}
	}
	fast, full := testing.AllocsPerRun(5, loading("", false)), testing.AllocsPerRun(5, loading(empty, true))
	if fast*10 > full {
		t.Fatalf("the default alone made %.0f allocations, the full loader %.0f: want under a tenth", fast, full)
	}
	part, whole := testing.AllocsPerRun(5, loading(oneKey, false)), testing.AllocsPerRun(5, loading(oneKey, true))
	if part*5 > whole {
		t.Fatalf("a file naming providers made %.0f allocations, decoding the whole tree %.0f: want under a fifth", part, whole)
	}
	t.Logf("allocations: default alone %.0f, through viper %.0f; a file naming providers %.0f, the whole tree decoded %.0f", fast, full, part, whole)
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
