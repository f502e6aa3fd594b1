package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	"github.com/parleyhq/parley/debate"
)

// loadConfiguration finds and loads the configuration, prints its warnings
// on stderr and applies the global --mode (whose source is then the flag).
func loadConfiguration(cmd *cobra.Command, g *globalFlags) (*configload.Loaded, error) {
	path, err := configload.Path(g.config) // .env was read before any command ran
	if err != nil {
		return nil, usageErr(err)
	}
	loaded, err := configload.Load(path, os.Environ())
	if err != nil {
		return nil, usageErr(err)
	}
	for _, w := range loaded.Warnings {
		fmt.Fprintln(cmd.ErrOrStderr(), "parley: warning:", w)
	}
	if g.mode != "" {
		if !slices.Contains(debate.ModeNames, g.mode) {
			return nil, usageErr(fmt.Errorf("--mode: unknown mode %q (one of mention, alternate, talk, magi, agent)", g.mode))
		}
		loaded.Config.DefaultMode = g.mode
		loaded.SetByFlag("default_mode", "--mode")
	}
	return loaded, nil
}

func init() { subcommands = append(subcommands, newConfigCmd) }

func newConfigCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show the effective configuration or check it",
		Long: `The configuration is the built-in config.yaml, the user's file merged over it
(--config, ./parley.yaml or $XDG_CONFIG_HOME/parley/config.yaml), then
PARLEY_* environment variables, then flags.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	show := &cobra.Command{
		Use:   "show",
		Short: "Print every setting with where it came from (default, file:line, env, flag); keys redacted",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			loaded, err := loadConfiguration(cmd, g)
			if err != nil {
				return err
			}
			values := loaded.Values(os.Getenv)
			db, err := dbPath(g.db)
			if err == nil {
				src := "default"
				switch {
				case g.db != "":
					src = "flag --db"
				case os.Getenv("PARLEY_DB") != "":
					src = "env PARLEY_DB"
				}
				values = append(values, configload.Value{Key: "database", Value: db, Source: src})
			}
			if g.demo {
				values = append(values, configload.Value{Key: "demo", Value: true, Source: "flag --demo"})
			}
			return configload.WriteValues(cmd.OutOrStdout(), configFile(loaded), values, g.json)
		},
	}
	check := &cobra.Command{
		Use:   "check",
		Short: "Validate the configuration: exit 0 when it is sound, 2 with the problem when not",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			loaded, err := loadConfiguration(cmd, g)
			if err != nil {
				return err
			}
			cfg := loaded.Config
			if g.json {
				b, _ := json.Marshal(map[string]any{"ok": true, "file": configFile(loaded), "agents": len(cfg.Agents),
					"providers": len(cfg.Providers), "warnings": append([]string{}, loaded.Warnings...)})
				fmt.Fprintf(cmd.OutOrStdout(), "%s\n", b)
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "ok: %s: %d agents, %d providers, default mode %s\n",
				configFile(loaded), len(cfg.Agents), len(cfg.Providers), cfg.DefaultMode)
			return nil
		},
	}
	for _, c := range []*cobra.Command{show, check} {
		wrapArgs(c)
		cmd.AddCommand(c)
	}
	return cmd
}

// configFile names the file in effect for people.
func configFile(l *configload.Loaded) string {
	if l.Path == "" {
		return configload.EmbeddedSource
	}
	return l.Path + " (over the built-in config.yaml)"
}
