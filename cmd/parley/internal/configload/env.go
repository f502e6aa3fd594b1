package configload

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/parleyhq/parley/debate/config"
)

// EnvPrefix starts every variable that overrides a configuration key.
const EnvPrefix = "PARLEY_"

// otherVars are PARLEY_* variables that are not configuration keys.
var otherVars = []string{"PARLEY_DB", "PARLEY_SERVE_TOKEN", "PARLEY_CACHE_DIR", "PARLEY_LEASE_TTL"}

// setting is one key an environment variable can set.
type setting struct {
	key  string // viper's form: modes::talk::rounds
	path string // the messages' form: modes.talk.rounds
}

// envName is the variable that sets path: PARLEY_MODES_TALK_ROUNDS.
func envName(path string) string {
	return EnvPrefix + strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, path)
}

// settings lists every scalar or list-of-words key of the configuration:
// the fields of debate.Config, with the providers and prices the merged
// configuration names. The agents list (of mappings) is set in files only.
func (ld *loader) settings() []setting {
	var out []setting
	var walk func(t reflect.Type, key, path string)
	walk = func(t reflect.Type, key, path string) {
		join := func(name string) (string, string) {
			if key == "" {
				return name, name
			}
			return key + "::" + name, path + "." + name
		}
		switch t.Kind() {
		case reflect.Struct:
			if t == reflect.TypeFor[config.ThemeSpec]() { // PARLEY_THEME names the theme (colours: the file only)
				break
			}
			for i := range t.NumField() {
				tag := t.Field(i).Tag.Get("mapstructure")
				if tag == "" || tag == "-" || tag == ",remain" { // modes' own sections: no variables
					continue
				}
				k, p := join(tag)
				walk(t.Field(i).Type, k, p)
			}
			return
		case reflect.Map:
			names, _ := ld.v.Get(key).(map[string]any)
			for _, name := range slices.Sorted(maps.Keys(names)) {
				k, p := join(name)
				walk(t.Elem(), k, p)
			}
			return
		case reflect.Slice:
			if t.Elem().Kind() == reflect.Struct {
				return
			}
		}
		out = append(out, setting{key: key, path: path})
	}
	walk(reflect.TypeFor[config.Config](), "", "")
	return out
}

// settingVar splits a NAME=value of os.Environ's form; ok says it may set
// a key: a PARLEY_* variable, not empty, not one of otherVars.
func settingVar(kv string) (name, value string, ok bool) {
	name, value, _ = strings.Cut(kv, "=")
	return name, value, strings.HasPrefix(name, EnvPrefix) && value != "" && !slices.Contains(otherVars, name)
}

// applyEnv applies PARLEY_* variables (empty ones are unset) over the
// files and warns about any that names no setting.
func (ld *loader) applyEnv(environ []string) {
	var byName map[string]setting
	var known []string
	var keyVars map[string]bool
	for _, kv := range environ {
		name, value, ok := settingVar(kv)
		if !ok {
			continue
		}
		if keyVars == nil {
			keyVars = secretVars(ld.v.Get)
		}
		if keyVars[name] {
			continue
		}
		if byName == nil { // listing the settings walks the whole configuration: only when a variable may name one
			byName = map[string]setting{}
			for _, s := range ld.settings() {
				byName[envName(s.path)] = s
				known = append(known, envName(s.path))
			}
			known = append(known, otherVars...)
		}
		s, ok := byName[name]
		if !ok {
			w := fmt.Sprintf("%s is not a Parley setting; ignored", name)
			if near := Closest(name, known); near != "" {
				w = fmt.Sprintf("%s is not a Parley setting (did you mean %s?); ignored", name, near)
			}
			ld.l.Warnings = append(ld.l.Warnings, w)
			continue
		}
		ld.v.Set(s.key, value)
		ld.envSet = true
		ld.l.Sources[s.path] = Source{Kind: "env", Name: name, Value: value}
	}
	slices.Sort(ld.l.Warnings)
}

// secretVars are the variables secrets are read from — the providers' keys
// (api_key_env) and the webhooks' signing secrets (secret_env) — which may
// well be PARLEY_* variables; get reads a top-level key of the configuration.
func secretVars(get func(key string) any) map[string]bool {
	out := map[string]bool{}
	note := func(m map[string]any, field string) {
		if name, ok := m[field].(string); ok && name != "" {
			out[name] = true
		}
	}
	providers, _ := get("providers").(map[string]any)
	for _, p := range providers {
		if m, ok := p.(map[string]any); ok {
			note(m, "api_key_env")
		}
	}
	hooks, _ := get("webhooks").([]any)
	for _, h := range hooks {
		if m, ok := h.(map[string]any); ok {
			note(m, "secret_env")
		}
	}
	return out
}

// Closest is the candidate nearest to word by edit distance, when it is
// near enough to be a likely typo (about a third of the word); "" if none is.
func Closest(word string, candidates []string) string {
	best, bestDist := "", 0
	for _, c := range candidates {
		d := editDistance(strings.ToLower(word), strings.ToLower(c))
		if best == "" || d < bestDist {
			best, bestDist = c, d
		}
	}
	if best == "" || bestDist > max(2, len(word)/3) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
