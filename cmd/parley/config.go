package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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

// loadDotEnv reads ./.env without overriding variables already set.
func loadDotEnv() {
	_ = gotenv.Load(".env") // a missing .env is normal
}

var invalidKeys = regexp.MustCompile(`has invalid keys: (.+)`)

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
		if m := invalidKeys.FindStringSubmatch(err.Error()); m != nil {
			return nil, &debate.ConfigError{File: source, Key: strings.TrimSpace(m[1]), Problem: "unknown key"}
		}
		return nil, &debate.ConfigError{File: source, Problem: oneLine(err.Error())}
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
