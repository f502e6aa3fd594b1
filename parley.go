// Package parley holds what the whole program shares at the repository
// root: the default configuration, embedded in the binary.
package parley

import "embed"

// DefaultConfig is config.yaml, used when no other configuration file exists
// and as the base that every other file overrides.
//
//go:embed config.yaml
var DefaultConfig []byte

// Version is set at build time with -ldflags "-X github.com/parleyhq/parley.Version=v1.2.3".
var Version = "dev"

// Docs holds the manual's pages (docs/*.md), which `parley help TOPIC`
// shows in the terminal: the same text as on the repository's front page.
//
//go:embed docs/*.md
var Docs embed.FS
