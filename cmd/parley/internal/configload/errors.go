package configload

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/parleyhq/parley/internal/lazyregexp"

	"github.com/parleyhq/parley/debate/config"
)

// decodeLine is one problem in a decoding error: 'key' what is wrong.
var decodeLine = lazyregexp.New(`^'([^']*)' (.+)$`)

// namedIndex is a map key in a decoding error's path (providers[openai]).
var namedIndex = lazyregexp.New(`\[([^\]0-9][^\]]*)\]`)

// decodeError turns the decoder's error into one that says where the value
// came from (file:line or the environment variable), the full key and what
// is wrong in the configuration's own terms: "parley.yaml:4:
// providers.openai.timeout: "5 minutes" is not a duration (e.g. 90s, 5m)".
// The first problem is reported; fixing it shows the next.
func (ld *loader) decodeError(err error) error {
	for _, line := range strings.Split(err.Error(), "\n") {
		m := decodeLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		key := namedIndex.ReplaceAllString(m[1], ".$1")
		if names, ok := strings.CutPrefix(m[2], "has invalid keys: "); ok {
			return ld.unknownKey(key, strings.TrimSpace(strings.Split(names, ",")[0]))
		}
		problem, isType := typeProblem(m[2])
		if src, ok := ld.l.Sources[key]; ok && src.Kind == "env" {
			if isType {
				problem = "expected " + problem
			}
			return &config.ConfigError{Key: key, Env: src.Name, Value: src.Value, Problem: problem}
		}
		if isType {
			if val, ok := lookupValue(ld.v.Get, key); ok {
				problem = fmt.Sprintf("%s is not %s", config.Quote(fmt.Sprint(val)), problem)
			} else {
				problem = "not " + problem
			}
		}
		return ld.at(&config.ConfigError{File: ld.source, Key: key, Problem: problem})
	}
	return &config.ConfigError{File: ld.source, Problem: OneLine(err.Error())}
}

// unknownKey reports a key the configuration does not have, at its line,
// with the known key nearest to it.
func (ld *loader) unknownKey(parent, name string) error {
	key := strings.TrimPrefix(parent+"."+name, ".")
	problem := "unknown key (config.yaml lists every key)"
	if t, ok := typeAt(parent); ok && t.Kind() == reflect.Struct {
		if near := Closest(name, fieldNames(t)); near != "" {
			problem = fmt.Sprintf("unknown key (did you mean %s?)", near)
		}
	}
	return ld.at(&config.ConfigError{File: ld.source, Key: key, Problem: problem})
}

// locate points a validation error at the variable or line that set the
// value it names.
func (ld *loader) locate(err error) error {
	var ce *config.ConfigError
	if !errors.As(err, &ce) || ce.Key == "" {
		return err
	}
	for p := ce.Key; p != ""; p = parentPath(p) {
		if src, ok := ld.l.Sources[p]; ok && src.Kind == "env" {
			ce.Env, ce.Value = src.Name, src.Value
			return ce
		}
	}
	return ld.at(ce)
}

// at adds the user file's line to an error about a key it sets; a key in
// an agent the file changed or added is named by the file's own index.
func (ld *loader) at(ce *config.ConfigError) *config.ConfigError {
	if ld.file == nil || ce.File != ld.source {
		return ce
	}
	key := ce.Key
	var i int
	if n, err := fmt.Sscanf(key, "agents[%d]", &i); n == 1 && err == nil {
		j, fromFile := ld.agentFrom[i]
		if !fromFile {
			return ce // a built-in agent the file left alone
		}
		key = fmt.Sprintf("agents[%d]", j) + strings.TrimPrefix(key, fmt.Sprintf("agents[%d]", i))
		ce.Key = key
	}
	ce.Line = ld.file.line(key)
	return ce
}

// parentPath is the path one level up: modes.talk for modes.talk.rounds,
// modes.magi.agents for modes.magi.agents[1]; "" at the top.
func parentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}

// typeAt is the type of the value at a path of debate.Config.
func typeAt(path string) (reflect.Type, bool) {
	t := reflect.TypeFor[config.Config]()
	if path == "" {
		return t, true
	}
	for _, part := range strings.Split(strings.NewReplacer("[", ".[").Replace(path), ".") {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch {
		case strings.HasPrefix(part, "["):
			if t.Kind() != reflect.Slice {
				return nil, false
			}
			t = t.Elem()
		case t.Kind() == reflect.Map:
			t = t.Elem()
		case t.Kind() == reflect.Struct:
			f, ok := fieldByTag(t, part)
			if !ok {
				return nil, false
			}
			t = f.Type
		default:
			return nil, false
		}
	}
	return t, true
}

func fieldByTag(t reflect.Type, tag string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		if strings.EqualFold(t.Field(i).Tag.Get("mapstructure"), tag) {
			return t.Field(i), true
		}
	}
	return reflect.StructField{}, false
}

func fieldNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if tag := t.Field(i).Tag.Get("mapstructure"); tag != "" && tag != "-" && tag != ",remain" {
			out = append(out, tag)
		}
	}
	return out
}

// typeProblem says in plain words what the decoder could not convert;
// isType says it names the type the value should have had.
func typeProblem(msg string) (problem string, isType bool) {
	switch {
	case strings.Contains(msg, "as 'int"), strings.Contains(msg, "as 'uint"):
		return "a whole number", true
	case strings.Contains(msg, "as 'float"):
		return "a number", true
	case strings.Contains(msg, "as 'bool'"):
		return "true or false", true
	case strings.HasPrefix(msg, "time: "):
		return "a duration (e.g. 30s, 5m, 1h30m)", true
	case strings.Contains(msg, "expected a map"):
		return "must be a mapping of keys to values", false
	}
	return OneLine(msg), false
}

// lookupValue finds the raw value at a decoder path such as
// agents[0].temperature or providers.openai.timeout.
func lookupValue(get func(string) any, key string) (any, bool) {
	parts := strings.Split(strings.NewReplacer("[", ".", "]", "").Replace(key), ".")
	cur := get(parts[0])
	for _, p := range parts[1:] {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	switch cur.(type) {
	case nil, map[string]any, []any:
		return nil, false
	}
	return cur, true
}
