// Package configload reads Parley's configuration: the embedded default,
// the user's file merged over it (agents merged by name), PARLEY_*
// environment overrides and command flags. It remembers where every value
// came from, for error messages that point at the right place and for
// `parley config show`.
package configload

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"
	"github.com/subosito/gotenv"

	"github.com/parleyhq/parley/debate/config"
)

// EmbeddedSource names the built-in configuration in messages.
const EmbeddedSource = "config.yaml (embedded)"

// Source says where one value came from.
type Source struct {
	Kind  string // "default", "file", "env" or "flag"
	File  string // Kind file
	Line  int    // Kind file: 1-based line of the key
	Name  string // Kind env: the variable; Kind flag: the flag (--mode)
	Value string // Kind env: the variable's raw value
}

func (s Source) String() string {
	switch s.Kind {
	case "file":
		if s.Line > 0 {
			return fmt.Sprintf("%s:%d", s.File, s.Line)
		}
		return s.File
	case "env":
		return "env " + s.Name
	case "flag":
		return "flag " + s.Name
	}
	return "default"
}

// Loaded is a configuration with the origin of its values.
type Loaded struct {
	Config *config.Config
	Path   string // the user's file; "" for the embedded default only
	// Sources maps a value's path (modes.talk.rounds, agents[2].model) to
	// where it was set; a path not listed is the built-in default.
	Sources map[string]Source
	// Warnings are problems that do not stop Parley (an unknown PARLEY_*
	// variable), one line each.
	Warnings []string
}

// SourceOf says where the value at path came from.
func (l *Loaded) SourceOf(path string) Source {
	if s, ok := l.Sources[path]; ok {
		return s
	}
	return Source{Kind: "default"}
}

// SetByFlag records a value a command flag changed (after Load).
func (l *Loaded) SetByFlag(path, flag string) {
	l.Sources[path] = Source{Kind: "flag", Name: flag}
}

// Path finds the configuration file: --config, ./parley.yaml,
// $XDG_CONFIG_HOME/parley/config.yaml; "" means the embedded default only.
// dir is the working directory ("": the process's): a relative --config
// and ./parley.yaml are found there.
func Path(dir, flag string, getenv func(string) string) (string, error) {
	if flag != "" {
		flag = InDir(dir, flag)
		if _, err := os.Stat(flag); err != nil {
			return "", &config.ConfigError{File: flag, Problem: "cannot read the file: " + errors.Unwrap(err).Error()}
		}
		return flag, nil
	}
	if p := InDir(dir, "parley.yaml"); fileExists(p) {
		return p, nil
	}
	if p := UserPath(getenv); p != "" {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", nil
}

// UserPath is the user's configuration file, $XDG_CONFIG_HOME/parley/config.yaml
// (~/.config/parley/config.yaml), whether it exists or not ("": no home).
func UserPath(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		if home := getenv("HOME"); home != "" {
			dir = filepath.Join(home, ".config")
		} else if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".config")
		}
	}
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "parley", "config.yaml")
}

// InDir is path seen from the working directory dir ("": the process's,
// path unchanged).
func InDir(dir, path string) string {
	if dir == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// LoadDotEnv reads .env in dir ("": the working directory) into an
// environment (lookup, setenv) without overriding variables already set,
// as gotenv.Load does. A missing .env is normal; one that does not parse
// is a configuration error, since none of its variables is then set and
// the keys would seem unset.
func LoadDotEnv(dir string, lookup func(string) (string, bool), setenv func(k, v string) error) error {
	f, err := os.Open(InDir(dir, ".env"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err == nil {
		defer f.Close() //nolint:errcheck // read-only
		var vars gotenv.Env
		if vars, err = gotenv.StrictParse(f); err == nil {
			for k, v := range vars {
				if _, set := lookup(k); !set {
					err = cmp.Or(err, setenv(k, v))
				}
			}
		}
	}
	if err == nil {
		return nil
	}
	return &config.ConfigError{File: ".env", Problem: OneLine(err.Error())}
}

// Load reads the embedded default, merges the file at path over it (""
// for none), applies PARLEY_* variables from environ (os.Environ's form)
// and validates the result against the program's modes (known). Errors
// name the file and line, or the variable, and the key.
func Load(known config.ModeList, path string, environ []string) (*Loaded, error) {
	return load(known, path, environ, false)
}

// load is Load; whole decodes the whole merged tree even when the parts
// the user's file names would do (the tests that hold the two equal).
func load(known config.ModeList, path string, environ []string, whole bool) (*Loaded, error) {
	if path == "" && envSetsNothing(environ) {
		return finish(builtinConfig(), &loader{l: &Loaded{Sources: map[string]Source{}}, source: EmbeddedSource}, known)
	}
	// Model names contain dots (gemini-2.5-flash), so keys nest with "::".
	v := viper.NewWithOptions(viper.KeyDelimiter("::"))
	v.SetConfigType("yaml")
	if err := v.MergeConfigMap(builtinTree()); err != nil { // config.yaml, parsed by go generate
		return nil, fmt.Errorf("embedded config.yaml: %w", err)
	}
	l := &Loaded{Path: path, Sources: map[string]Source{}}
	ld := &loader{v: v, l: l, source: EmbeddedSource}
	if path != "" {
		if err := ld.mergeFile(path); err != nil {
			return nil, err
		}
	}
	ld.applyEnv(environ)
	cfg, err := ld.decode(whole)
	if err != nil {
		return nil, ld.decodeError(err)
	}
	return finish(cfg, ld, known)
}

// decode turns the merged tree into a Config. Decoding all of it (viper's
// UnmarshalExact: every leaf looked up through its layers, then
// mapstructure over agents, modes, prompts and prices) was half of what a
// script's `parley ask` spent after main when a user file existed. The
// top-level keys the user's file does not name hold the built-in values,
// and the generated builtinConfig is what decoding those gives
// (TestBuiltinDecodeEqualsViper); so only the keys the file names are
// decoded, each from its whole merged subtree, over builtinConfig with that
// field cleared first: the result is what UnmarshalExact gives
// (TestPartialDecodeEqualsWhole, FuzzPartialDecodeEqualsWhole). A PARLEY_*
// setting, a YAML merge key (<<) or a file the YAML parser reads
// differently decodes the whole tree as before.
func (ld *loader) decode(whole bool) (*config.Config, error) {
	if whole || ld.envSet || ld.file == nil || !ld.file.parsed || slices.ContainsFunc(ld.file.top, oddTopKey) {
		var cfg config.Config
		if err := ld.v.UnmarshalExact(&cfg, DecodeHooks); err != nil {
			return nil, err
		}
		return &cfg, nil
	}
	cfg := builtinConfig()
	part := viper.NewWithOptions(viper.KeyDelimiter("::"))
	fields := reflect.ValueOf(cfg).Elem()
	for _, key := range ld.file.top {
		if f := fieldByKey(fields, key); f.IsValid() {
			f.SetZero()
		}
		if err := part.MergeConfigMap(map[string]any{key: ld.v.Get(key)}); err != nil {
			return nil, err
		}
	}
	if err := part.UnmarshalExact(cfg, DecodeHooks); err != nil {
		return nil, err
	}
	return cfg, nil
}

// oddTopKey is a top-level key decode leaves to the whole tree: a YAML
// merge key, whose keys the parser spreads into the mapping, or one with
// viper's key delimiter in it.
func oddTopKey(k string) bool { return k == "<<" || strings.Contains(k, "::") }

// fieldByKey is the field of a Config (fields) that the top-level key
// decodes into; the zero Value when none does (an unknown key, which the
// decoder reports).
func fieldByKey(fields reflect.Value, key string) reflect.Value {
	t := fields.Type()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("mapstructure"), ",")
		if name != "-" && strings.EqualFold(cmp.Or(name, t.Field(i).Name), key) {
			return fields.Field(i)
		}
	}
	return reflect.Value{}
}

// finish checks a decoded configuration against the program's modes and
// the console's rules, errors pointing where each value was set.
func finish(cfg *config.Config, ld *loader, known config.ModeList) (*Loaded, error) {
	cfg.Source = ld.source
	cfg.ModeList = known
	if err := cfg.Validate(); err != nil {
		return nil, ld.locate(err)
	}
	if err := ld.checkConsole(cfg); err != nil {
		return nil, err
	}
	ld.l.Config = cfg
	return ld.l, nil
}

// DecodeHooks sets Parley's hooks on viper's decoder (Load's, and
// genbuiltin's that decodes config.yaml ahead of time). The first decodes
// a bare YAML date (prices: [{from: 2027-01-01}]), which the YAML parser
// reads as a time, into the string field that holds it, before viper's
// own hooks run.
func DecodeHooks(c *mapstructure.DecoderConfig) {
	viperHooks := c.DecodeHook
	c.DecodeHook = mapstructure.ComposeDecodeHookFunc(
		func(from, to reflect.Type, data any) (any, error) {
			if t, ok := data.(time.Time); ok && to.Kind() == reflect.String {
				return t.UTC().Format("2006-01-02"), nil
			}
			return data, nil
		}, toolLists, keyLists, themeNames, viperHooks)
}

// toolLists decodes an agent's `tools`: true is [files], false none, and
// a string (PARLEY_* variables) a comma-separated list.
func toolLists(_, to reflect.Type, data any) (any, error) {
	if to != reflect.TypeFor[config.ToolList]() {
		return data, nil
	}
	switch v := data.(type) {
	case bool:
		if v {
			return config.ToolList{"files"}, nil
		}
		return config.ToolList{}, nil
	case string:
		switch strings.TrimSpace(v) {
		case "", "false", "none":
			return config.ToolList{}, nil
		case "true":
			return config.ToolList{"files"}, nil
		}
		var l config.ToolList
		for _, it := range strings.Split(v, ",") {
			l = append(l, strings.TrimSpace(it))
		}
		return l, nil
	}
	return data, nil
}

// keyLists decodes one key written alone (`copy: c`) as a list of one,
// before viper's hook would split it at commas (, is a key).
func keyLists(_, to reflect.Type, data any) (any, error) {
	if s, ok := data.(string); ok && to == reflect.TypeFor[config.KeyList]() {
		return config.KeyList{s}, nil
	}
	return data, nil
}

// themeNames decodes `theme: light` as the theme alone, no colours.
func themeNames(_, to reflect.Type, data any) (any, error) {
	if s, ok := data.(string); ok && to == reflect.TypeFor[config.ThemeSpec]() {
		return map[string]any{"base": s}, nil
	}
	return data, nil
}

// loader is one Load in progress.
type loader struct {
	v      *viper.Viper
	l      *Loaded
	source string // the file named in errors: the user's, else the embedded one
	envSet bool   // a PARLEY_* variable set a key
	file   *yamlFile
	// agentFrom maps an index of the merged agents list to the index of
	// the user's entry that set it, for errors that point into the file.
	agentFrom map[int]int
}

// mergeFile merges the user's file over the defaults; its agents merge
// with the built-in ones by name.
func (ld *loader) mergeFile(path string) error {
	ld.source = path
	data, err := os.ReadFile(path)
	if err != nil {
		return &config.ConfigError{File: path, Problem: "cannot read the file: " + err.Error()}
	}
	builtin := ld.v.Get("agents")
	if err := ld.v.MergeConfig(bytes.NewReader(data)); err != nil {
		return &config.ConfigError{File: path, Problem: "invalid YAML: " + yamlMessage(err)}
	}
	ld.file = parseYAMLFile(path, data)
	for p, line := range ld.file.lines {
		if !strings.HasPrefix(p, "agents[") && p != "agents" {
			ld.l.Sources[p] = Source{Kind: "file", File: path, Line: line}
		}
	}
	if ld.file.has("agents") {
		return ld.mergeAgents(builtin)
	}
	return nil
}

// mergeAgents merges the user's agents list into the built-in one: an
// entry whose name is built in changes only the fields it gives; any other
// entry is added after the built-in agents.
func (ld *loader) mergeAgents(builtin any) error {
	path := ld.source
	merged := cloneAgents(builtin)
	user, ok := ld.v.Get("agents").([]any)
	if !ok {
		if ld.v.Get("agents") == nil {
			ld.v.Set("agents", merged) // "agents:" with nothing: the built-in ones stay
			return nil
		}
		return &config.ConfigError{File: path, Line: ld.file.line("agents"), Key: "agents", Problem: "must be a list of agents (name, provider, model, ...)"}
	}
	ld.agentFrom = map[int]int{}
	for j, item := range user {
		key := fmt.Sprintf("agents[%d]", j)
		fields, ok := item.(map[string]any)
		if !ok {
			return &config.ConfigError{File: path, Line: ld.file.line(key), Key: key, Problem: "must be a mapping of keys to values"}
		}
		name, _ := fields["name"].(string)
		if name == "" {
			return &config.ConfigError{File: path, Line: ld.file.line(key), Key: key + ".name",
				Problem: "missing (an entry changes the built-in agent of that name, or adds a new one)"}
		}
		i := agentIndex(merged, name)
		if i < 0 {
			merged = append(merged, map[string]any{})
			i = len(merged) - 1
		}
		for k, val := range fields {
			merged[i][k] = val
			ld.l.Sources[fmt.Sprintf("agents[%d].%s", i, k)] = Source{Kind: "file", File: path, Line: ld.file.line(key + "." + k)}
		}
		ld.agentFrom[i] = j
	}
	list := make([]any, len(merged))
	for i, m := range merged {
		list[i] = m
	}
	ld.v.Set("agents", list)
	return nil
}

func cloneAgents(list any) []map[string]any {
	items, _ := list.([]any)
	out := make([]map[string]any, 0, len(items))
	for _, it := range items {
		m, _ := it.(map[string]any)
		c := make(map[string]any, len(m))
		for k, v := range m {
			c[k] = v
		}
		out = append(out, c)
	}
	return out
}

func agentIndex(agents []map[string]any, name string) int {
	for i, a := range agents {
		if n, _ := a["name"].(string); n == name {
			return i
		}
	}
	return -1
}

func yamlMessage(err error) string {
	var pe viper.ConfigParseError
	if errors.As(err, &pe) {
		return OneLine(strings.TrimPrefix(pe.Error(), "While parsing config: "))
	}
	return OneLine(err.Error())
}

// OneLine folds whitespace, newlines included, to single spaces.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
