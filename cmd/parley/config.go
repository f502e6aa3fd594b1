package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/viper"
	"github.com/subosito/gotenv"

	"github.com/parleyhq/parley"
	"github.com/parleyhq/parley/debate"
)

// configPath finds the configuration file: --config, ./parley.yaml,
// $XDG_CONFIG_HOME/parley/config.yaml; "" means the embedded default only.
func configPath(flag string) (string, error) {
	if flag != "" {
		if _, err := os.Stat(flag); err != nil {
			return "", &debate.ConfigError{File: flag, Problem: "cannot read the file: " + errors.Unwrap(err).Error()}
		}
		return flag, nil
	}
	if _, err := os.Stat("parley.yaml"); err == nil {
		return "parley.yaml", nil
	}
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".config")
		}
	}
	if dir != "" {
		p := filepath.Join(dir, "parley", "config.yaml")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", nil
}

// loadDotEnv reads ./.env without overriding variables already set. A
// missing .env is normal; one that does not parse is a configuration error,
// since gotenv then sets none of its variables and the keys would seem unset.
func loadDotEnv() error {
	err := gotenv.Load(".env")
	if err == nil || errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return &debate.ConfigError{File: ".env", Problem: oneLine(err.Error())}
}

// decodeLine is one problem in a decoding error: 'key' what is wrong.
var decodeLine = regexp.MustCompile(`^'([^']*)' (.+)$`)

// namedIndex is a map key in a decoding error's path (providers[openai]).
var namedIndex = regexp.MustCompile(`\[([^\]0-9][^\]]*)\]`)

// decodeError turns the decoder's error into one that names the file, the
// full key and what is wrong with it in the configuration's own terms:
// "providers.openai.timeout: "5 minutes" is not a duration (e.g. 90s, 5m)".
// The first problem is reported; fixing it shows the next.
func decodeError(source string, v *viper.Viper, err error) error {
	for _, line := range strings.Split(err.Error(), "\n") {
		m := decodeLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		key := namedIndex.ReplaceAllString(m[1], ".$1")
		if names, ok := strings.CutPrefix(m[2], "has invalid keys: "); ok {
			var keys []string
			for _, n := range strings.Split(names, ", ") {
				keys = append(keys, strings.TrimPrefix(key+"."+strings.TrimSpace(n), "."))
			}
			return &debate.ConfigError{File: source, Key: strings.Join(keys, ", "), Problem: "unknown key (config.yaml lists every key)"}
		}
		problem, isType := typeProblem(m[2])
		if isType {
			if val, ok := lookupValue(v, key); ok {
				problem = fmt.Sprintf("%q is not %s", fmt.Sprint(val), problem)
			} else {
				problem = "not " + problem
			}
		}
		return &debate.ConfigError{File: source, Key: key, Problem: problem}
	}
	return &debate.ConfigError{File: source, Problem: oneLine(err.Error())}
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
	return oneLine(msg), false
}

// lookupValue finds the raw value at a decoder path such as
// agents[0].temperature or providers.openai.timeout.
func lookupValue(v *viper.Viper, key string) (any, bool) {
	parts := strings.Split(strings.NewReplacer("[", ".", "]", "").Replace(key), ".")
	cur := v.Get(parts[0])
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

// loadConfig reads the embedded default, merges the user's file over it,
// applies PARLEY_* env vars, and validates the result. Errors name the file
// and the key.
func loadConfig(path string) (*debate.Config, error) {
	// Model names contain dots (gemini-2.5-flash), so keys nest with "::".
	v := viper.NewWithOptions(viper.KeyDelimiter("::"))
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(parley.DefaultConfig)); err != nil {
		return nil, fmt.Errorf("embedded config.yaml: %w", err)
	}
	source := "config.yaml (embedded)"
	if path != "" {
		source = path
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, &debate.ConfigError{File: path, Problem: "cannot read the file: " + err.Error()}
		}
		if err := v.MergeConfig(bytes.NewReader(data)); err != nil {
			return nil, &debate.ConfigError{File: path, Problem: "invalid YAML: " + yamlMessage(err)}
		}
	}
	v.SetEnvPrefix("PARLEY")
	v.SetEnvKeyReplacer(strings.NewReplacer("::", "_"))
	v.AutomaticEnv()
	var cfg debate.Config
	if err := v.UnmarshalExact(&cfg); err != nil {
		return nil, decodeError(source, v, err)
	}
	cfg.Source = source
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &cfg, nil
}

func yamlMessage(err error) string {
	var pe viper.ConfigParseError
	if errors.As(err, &pe) {
		return oneLine(strings.TrimPrefix(pe.Error(), "While parsing config: "))
	}
	return oneLine(err.Error())
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
