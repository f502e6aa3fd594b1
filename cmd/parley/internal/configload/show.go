package configload

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/providers"
)

// Value is one line of `parley config show`: a key, its effective value
// and where it came from.
type Value struct {
	Key    string `json:"key"`
	Value  any    `json:"value"`
	Source string `json:"source"`
}

// Values lists every value of the configuration in its file order (maps
// sorted by key), each with its source; secrets are redacted and each
// provider's API key is shown only as set or not. getenv reads the keys.
func (l *Loaded) Values(getenv func(string) string) []Value {
	var out []Value
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		join := func(name string) string {
			if path == "" {
				return name
			}
			return path + "." + name
		}
		switch {
		case v.Type() == reflect.TypeFor[time.Duration]():
		case v.Kind() == reflect.Struct:
			for i := range v.NumField() {
				tag := v.Type().Field(i).Tag.Get("mapstructure")
				if tag == "" || tag == "-" {
					continue
				}
				if tag == ",remain" { // modes' own sections sit beside the fields
					walk(v.Field(i), path)
					continue
				}
				walk(v.Field(i), join(tag))
			}
			return
		case v.Kind() == reflect.Map:
			keys := make([]string, 0, v.Len())
			for _, k := range v.MapKeys() {
				keys = append(keys, k.String())
			}
			slices.Sort(keys)
			for _, k := range keys {
				walk(v.MapIndex(reflect.ValueOf(k)), join(k))
				if spec, ok := v.MapIndex(reflect.ValueOf(k)).Interface().(providers.Spec); ok {
					out = append(out, keyStatus(join(k), spec, getenv))
				}
			}
			return
		case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Struct:
			for i := range v.Len() {
				walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
			}
			return
		}
		src := l.SourceOf(path)
		if src.Kind == "default" && strings.HasPrefix(path, "theme.") {
			src = l.SourceOf("theme") // theme: light, or PARLEY_THEME, sets theme.base
		}
		out = append(out, Value{Key: path, Value: shown(path, v), Source: src.String()})
	}
	walk(reflect.ValueOf(*l.Config), "")
	return out
}

// keyStatus says whether a provider's API key is set, never what it is.
func keyStatus(path string, spec providers.Spec, getenv func(string) string) Value {
	vars := providers.KeyVars(spec)
	if len(vars) == 0 {
		return Value{Key: path + ".api_key", Value: "[none needed]", Source: "default"}
	}
	for _, name := range vars {
		if getenv(name) != "" {
			return Value{Key: path + ".api_key", Value: "[redacted]", Source: "env " + name}
		}
	}
	return Value{Key: path + ".api_key", Value: "[not set]", Source: "env " + strings.Join(vars, " or ")}
}

// shown is a value as config show prints it, secrets redacted.
func shown(path string, v reflect.Value) any {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if d, ok := v.Interface().(time.Duration); ok {
		return d.String()
	}
	name := strings.ToLower(path[strings.LastIndex(path, ".")+1:])
	if v.Kind() == reflect.String && v.Len() > 0 && secretName(name) {
		return "[redacted]"
	}
	if (name == "base_url" || name == "url") && v.Kind() == reflect.String && v.Len() > 0 {
		return sanitize.URL(v.String()) // user info and secret-looking query values
	}
	return v.Interface()
}

// secretName reports a key that holds a credential rather than naming one.
func secretName(name string) bool {
	if strings.HasSuffix(name, "_env") || strings.HasSuffix(name, "_tokens") {
		return false
	}
	for _, s := range []string{"key", "token", "secret", "password"} {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}

// WriteValues prints the values as aligned "key: value  # source" lines,
// or as one JSON document with the configuration file.
func WriteValues(w io.Writer, file string, values []Value, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			File   string  `json:"file"`
			Values []Value `json:"values"`
		}{file, values})
	}
	lines := make([]string, len(values))
	width := 0
	for i, v := range values {
		lines[i] = v.Key + ": " + textValue(v.Value)
		width = max(width, min(utf8.RuneCountInString(lines[i]), 72))
	}
	for i, v := range values {
		pad := max(width-utf8.RuneCountInString(lines[i]), 0)
		if _, err := fmt.Fprintf(w, "%s%s  # %s\n", lines[i], strings.Repeat(" ", pad), v.Source); err != nil {
			return err
		}
	}
	return nil
}

// textValue is a value on one line: strings quoted when they need it,
// long ones (personas) cut.
func textValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "(unset)"
	case string:
		if len(x) > 60 {
			cut := x[:60]
			for !utf8.ValidString(cut) {
				cut = cut[:len(cut)-1]
			}
			return strconv.Quote(cut) + "…"
		}
		// Quoted when it would read wrongly bare; control characters are
		// escaped so nothing in a file can drive the terminal.
		if x == "" || x != strings.TrimSpace(x) || strings.ContainsAny(x, "\"") || strings.HasPrefix(x, "#") ||
			strings.Contains(x, " #") || strings.IndexFunc(x, unicode.IsControl) >= 0 {
			return strconv.Quote(x)
		}
		return x
	case []string:
		return "[" + strings.Join(x, ", ") + "]"
	}
	return fmt.Sprint(v)
}
