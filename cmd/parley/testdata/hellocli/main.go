// Command hellocli is the floor BenchmarkStartup compares parley with: a
// cobra + viper command that reads its configuration and prints a version,
// built from the same module versions as parley.
package main

import (
	"fmt"
	"os"
	"runtime"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

func main() {
	v := viper.New()
	v.SetEnvPrefix("HELLO")
	v.AutomaticEnv()
	root := &cobra.Command{Use: "hellocli", SilenceUsage: true}
	root.AddCommand(&cobra.Command{
		Use: "version",
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintf(cmd.OutOrStdout(), "hellocli %s (%s)\n", v.GetString("version"), runtime.Version())
		},
	})
	if err := root.Execute(); err != nil {
		os.Exit(1)
	}
}
