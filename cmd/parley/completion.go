package main

import (
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/store"
)

// addCompletions teaches the shell completion (parley completion bash|zsh|
// fish|powershell) Parley's own words: saved session ids (with their
// titles), modes, MAGI presets and the configured agents' names.
func addCompletions(root *cobra.Command, f *factory.Factory) {
	g := f.Flags
	sessions := func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		return sessionIDs(cmd, f), cobra.ShellCompDirectiveNoFileComp
	}
	fixed := func(words ...string) cobra.CompletionFunc {
		return cobra.FixedCompletions(words, cobra.ShellCompDirectiveNoFileComp)
	}
	agents := func(cmd *cobra.Command, _ []string, typed string) ([]string, cobra.ShellCompDirective) {
		names := agentNames(f)
		// --members a,b,c: complete the name after the last comma.
		if i := strings.LastIndex(typed, ","); i >= 0 {
			for j, n := range names {
				names[j] = typed[:i+1] + n
			}
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
	byFlag := map[string]cobra.CompletionFunc{
		"session": sessions, "resume": sessions,
		"mode":   fixed(g.Modes.Names()...),
		"preset": fixed(slices.Sorted(maps.Keys(config.MagiPresets))...),
		"agent":  agents, "a": agents, "b": agents, "mc": agents, "chairman": agents, "members": agents,
	}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		// The command's own flags: LocalFlags would build (and sort) a new
		// flag set for each of the ~60 commands in every process, a third
		// of building the tree (start-up, issue 50); before execution
		// Flags and PersistentFlags hold exactly what the command defines.
		for name, complete := range byFlag {
			if c.Flags().Lookup(name) != nil || c.PersistentFlags().Lookup(name) != nil {
				_ = c.RegisterFlagCompletionFunc(name, complete)
			}
		}
		if c.Parent() != nil && c.Parent().Name() == "sessions" && c.Name() != "list" && c.Name() != "import" && c.ValidArgsFunction == nil {
			c.ValidArgsFunction = func(cmd *cobra.Command, args []string, typed string) ([]string, cobra.ShellCompDirective) {
				if len(args) > 0 && cmd.Name() != "rm" {
					return nil, cobra.ShellCompDirectiveNoFileComp // a title, a turn: not ours to guess
				}
				return sessions(cmd, args, typed)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// sessionIDs are the saved sessions' ids, each with its title as the
// completion's description, the most recently active first.
func sessionIDs(cmd *cobra.Command, f *factory.Factory) []string {
	var out []string
	_ = readStore(f, func(st *store.Store) error {
		if st == nil {
			return nil
		}
		list, err := st.List(cmd.Context())
		for _, s := range list {
			out = append(out, s.ID+"\t"+strings.ReplaceAll(s.Title, "\t", " "))
		}
		return err
	})
	return out
}

// agentNames are the configured agents' names (nil when the configuration
// does not load: completion stays quiet rather than print an error).
func agentNames(f *factory.Factory) []string {
	loaded, err := f.Config()
	if err != nil {
		return nil
	}
	return loaded.Config.AgentNames()
}
