package main

import (
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley"
	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/cmd/parley/internal/manpage"
)

// helpTopics lists the manual's pages by name (docs/console.md is
// "console"), in file order.
func helpTopics() []string {
	entries, err := fs.ReadDir(parley.Docs, "docs")
	if err != nil {
		return nil
	}
	var topics []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".md"); ok {
			topics = append(topics, name)
		}
	}
	return topics
}

// HelpOptions are parley help's arguments.
type HelpOptions struct {
	F    *factory.Factory
	Root *cobra.Command // the tree whose commands it explains
	Args []string       // a topic or a command's path
}

// NewCmdHelp replaces cobra's help command: `parley help TOPIC` shows a page
// of the manual, `parley help COMMAND` the command's usage. A name that is
// both (serve, sessions, mcp, bench) shows the page, which names the flags'
// own help. runF, when given, replaces its run (helpRun).
func NewCmdHelp(f *factory.Factory, root *cobra.Command, runF func(*HelpOptions) error) *cobra.Command {
	opts := &HelpOptions{F: f, Root: root}
	return &cobra.Command{
		Use:   "help [TOPIC | COMMAND]",
		Short: "Show a page of the manual, or a command's usage",
		Long: "parley help TOPIC shows a page of the manual (the docs/ folder of the repository)\n" +
			"in the terminal; parley help COMMAND, or parley COMMAND --help, a command's usage.\n\n" +
			"Topics: " + strings.Join(helpTopics(), ", "),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			names := helpTopics()
			for _, c := range root.Commands() {
				if !c.Hidden && !slices.Contains(names, c.Name()) {
					names = append(names, c.Name())
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(_ *cobra.Command, args []string) error {
			opts.Args = args
			return runCmd(runF, helpRun, opts)
		},
	}
}

func helpRun(o *HelpOptions) error {
	root, args, out := o.Root, o.Args, o.F.IO.Out
	if len(args) == 0 {
		if err := root.Help(); err != nil {
			return err
		}
		_, err := fmt.Fprintf(out, "\nManual: parley help TOPIC, one of: %s\n", strings.Join(helpTopics(), ", "))
		return err
	}
	if len(args) == 1 && slices.Contains(helpTopics(), args[0]) {
		return showTopic(out, args[0], o.F.Getenv)
	}
	target, rest, err := root.Find(args)
	if err != nil || target == root || len(rest) > 0 {
		return cli.Usage(fmt.Errorf("no help topic or command %q: topics are %s; commands: parley help", strings.Join(args, " "), strings.Join(helpTopics(), ", ")))
	}
	return target.Help()
}

// showTopic writes a page of the manual (manpage.Show): rendered and paged
// for a terminal, plain text with unmarked headings for a pipe or a file;
// getenv reads $PAGER.
func showTopic(w io.Writer, topic string, getenv func(string) string) error {
	page, err := parley.Docs.ReadFile("docs/" + topic + ".md")
	if err != nil {
		return err
	}
	return manpage.Show(w, page, getenv)
}
