package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// runConsole opens the full-screen console (issue 6 builds it).
func runConsole(cmd *cobra.Command, g *globalFlags) error {
	return usageErr(fmt.Errorf("the console is not built yet; use `parley repl` or `parley ask`"))
}
