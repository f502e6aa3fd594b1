package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley"
)

func newVersionCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			v := version()
			if g.JSON {
				b, _ := json.Marshal(map[string]string{"version": v, "go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH})
				fmt.Fprintf(cmd.OutOrStdout(), "%s\n", b)
				return
			}
			fmt.Fprintln(cmd.OutOrStdout(), versionLine())
		},
	}
}

// version is the build's version: the one set with -ldflags, else the
// module's (go install …@v1.2.3), else "dev".
func version() string {
	v := parley.Version
	if info, ok := debug.ReadBuildInfo(); ok && v == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v = info.Main.Version
	}
	return v
}

// versionLine is what `parley version` and `parley --version` print.
func versionLine() string {
	return fmt.Sprintf("parley %s (%s, %s/%s)", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
