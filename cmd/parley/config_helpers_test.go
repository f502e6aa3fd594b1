package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
)

// loadConfig loads the configuration as a command of t does: with t's own
// environment and a relative path from its working directory after
// isolate, else the process's.
func loadConfig(t testing.TB, path string) (*config.Config, error) {
	env := os.Environ()
	if e := envOf(t); e != nil {
		env = e.env.Environ()
		if path != "" && !filepath.IsAbs(path) {
			path = filepath.Join(e.dir, path)
		}
	}
	l, err := configload.Load(modes.All(), path, env)
	if err != nil {
		return nil, err
	}
	return l.Config, nil
}
