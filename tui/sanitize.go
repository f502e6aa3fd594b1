package tui

import (
	"strings"

	"github.com/parleyhq/parley/debate/sanitize"
)

// Sanitize makes text from a model or provider safe to draw with Parley's
// one sanitizer; the console also turns tabs into spaces, so every cell it
// draws is a cell it measured.
func Sanitize(s string) string {
	return strings.ReplaceAll(sanitize.Text(s), "\t", "    ")
}
