package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	"github.com/parleyhq/parley/debate/store"
)

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
			if db, err := dbPlace(g); err == nil {
				values = append(values, configload.Value{Key: "database", Value: store.Redact(db.Location), Source: db.Source})
			}
			if g.Demo {
				values = append(values, configload.Value{Key: "demo", Value: true, Source: "flag --demo"})
			}
			return configload.WriteValues(cmd.OutOrStdout(), configFile(loaded), values, g.JSON)
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
			if g.JSON {
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
