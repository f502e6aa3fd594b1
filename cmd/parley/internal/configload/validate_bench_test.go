package configload

import (
	"testing"

	"github.com/parleyhq/parley/debate/modes"
)

// BenchmarkValidate checks the built-in configuration, as parley serve
// does for every session it creates (its agents, seats and limits).
func BenchmarkValidate(b *testing.B) {
	l, err := Load(modes.All(), "", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Config.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}
