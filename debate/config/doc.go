// Package config is Parley's configuration as values: the types config.yaml
// decodes into (Config, the agents, the modes' sections, context budgets,
// tools, serve, store), the bounds every number from a file is held to, and
// the checks (Config.Validate, ConfigCheck) that refuse a bad file with its
// key and line. It also holds what the configuration knows of the modes
// (ModeSpec: a mode's info and its section's rules; ModeList) and the
// seating decided from the keys that are set (Seating).
//
// It decodes nothing (cmd/parley/internal/configload reads the files) and
// runs nothing: package debate imports it, never the other way round.
package config
