package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/debate/store"
)

// NewCmdConfig is parley config, the group of show and check.
func NewCmdConfig(f *factory.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show the effective configuration or check it",
		Long: `The configuration is the built-in config.yaml, the user's file merged over it
(--config, ./parley.yaml or $XDG_CONFIG_HOME/parley/config.yaml), then
PARLEY_* environment variables, then flags.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	for _, c := range []*cobra.Command{NewCmdConfigShow(f, nil), NewCmdConfigCheck(f, nil)} {
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

// ConfigOptions are parley config show's and check's (the shared flags
// are in F.Flags).
type ConfigOptions struct {
	F *factory.Factory
}

// NewCmdConfigShow is parley config show; runF, when given, replaces its
// run (configShowRun).
func NewCmdConfigShow(f *factory.Factory, runF func(*ConfigOptions) error) *cobra.Command {
	opts := &ConfigOptions{F: f}
	return &cobra.Command{
		Use:   "show",
		Short: "Print every setting with where it came from (default, file:line, env, flag); keys redacted",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return runCmd(runF, configShowRun, opts) },
	}
}

func configShowRun(o *ConfigOptions) error {
	g := o.F.Flags
	loaded, err := o.F.Config()
	if err != nil {
		return err
	}
	values := loaded.Values(o.F.Getenv)
	if db, err := o.F.DBPlace(); err == nil {
		values = append(values, configload.Value{Key: "database", Value: store.Redact(db.Location), Source: db.Source})
	}
	if g.Demo {
		values = append(values, configload.Value{Key: "demo", Value: true, Source: "flag --demo"})
	}
	return configload.WriteValues(o.F.IO.Out, configFile(loaded), values, g.JSON)
}

// NewCmdConfigCheck is parley config check; runF, when given, replaces its
// run (configCheckRun).
func NewCmdConfigCheck(f *factory.Factory, runF func(*ConfigOptions) error) *cobra.Command {
	opts := &ConfigOptions{F: f}
	return &cobra.Command{
		Use:   "check",
		Short: "Validate the configuration: exit 0 when it is sound, 2 with the problem when not",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return runCmd(runF, configCheckRun, opts) },
	}
}

func configCheckRun(o *ConfigOptions) error {
	loaded, err := o.F.Config()
	if err != nil {
		return err
	}
	cfg, out := loaded.Config, o.F.IO.Out
	if o.F.Flags.JSON {
		b, _ := json.Marshal(map[string]any{"ok": true, "file": configFile(loaded), "agents": len(cfg.Agents),
			"providers": len(cfg.Providers), "warnings": append([]string{}, loaded.Warnings...)})
		fmt.Fprintf(out, "%s\n", b)
		return nil
	}
	fmt.Fprintf(out, "ok: %s: %d agents, %d providers, default mode %s\n",
		configFile(loaded), len(cfg.Agents), len(cfg.Providers), cfg.DefaultMode)
	return nil
}
