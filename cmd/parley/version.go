package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
)

// VersionOptions are parley version's (the shared --json is in F.Flags).
type VersionOptions struct {
	F *factory.Factory
}

// NewCmdVersion is parley version; runF, when given, replaces its run
// (versionRun).
func NewCmdVersion(f *factory.Factory, runF func(*VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{F: f}
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return runCmd(runF, versionRun, opts) },
	}
}

func versionRun(o *VersionOptions) error {
	v := version()
	if o.F.Flags.JSON {
		b, _ := json.Marshal(map[string]string{"version": v, "go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH})
		fmt.Fprintf(o.F.IO.Out, "%s\n", b)
		return nil
	}
	fmt.Fprintln(o.F.IO.Out, versionLine())
	return nil
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
