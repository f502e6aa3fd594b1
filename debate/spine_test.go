package debate_test

import (
	. "github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
)

// testMode is a test's own mode, for an engine that lists it after the
// real ones (append it to the list NewSpineEngine gets).
func testMode(info config.ModeInfo, build func(Session) (Mode, error)) ModeSpec {
	if info.Key == "" {
		info.Key = "zz-test-" + info.Name
	}
	return testSpec{info, build}
}

// testSpec is a test mode's descriptor: its info and constructor, no
// configuration section.
type testSpec struct {
	info  config.ModeInfo
	build func(Session) (Mode, error)
}

func (s testSpec) Info() config.ModeInfo                     { return s.info }
func (s testSpec) New(e Session) (Mode, error)               { return s.build(e) }
func (testSpec) Check(*config.ConfigCheck) error             { return nil }
func (testSpec) Budget(*config.Config) float64               { return 0 }
func (testSpec) Context(*config.Config) config.ContextBudget { return config.ContextBudget{} }
func (testSpec) Seat(*config.Config, []string)               {}
func (testSpec) Seated(*config.Config) []string              { return nil }

// known is the modes the engines of these tests know.
var known = modes.All()
