package main

import (
	"os"

	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/modes"
)

// loadConfig loads the configuration as a command does, for tests.
func loadConfig(path string) (*debate.Config, error) {
	l, err := configload.Load(modes.All(), path, os.Environ())
	if err != nil {
		return nil, err
	}
	return l.Config, nil
}
