package debate

import (
	"context"
	"fmt"
	"strings"

	"github.com/parleyhq/parley/debate/config"
)

// Control is one request to a mode, sent through Engine.Control.
type Control struct {
	Kind config.ControlKind `json:"kind"`
	N    int                `json:"n,omitempty"` // for rounds and steps
}

// Controller is implemented by a mode that takes controls; its
// ModeInfo.Controls says which.
type Controller interface {
	Control(Control) error
}

// ErrNoSuchControl is returned for a control the current mode does not take.
type ErrNoSuchControl struct {
	Mode    string
	Control config.ControlKind
	Accepts []config.ControlKind
}

func (e *ErrNoSuchControl) Error() string {
	if len(e.Accepts) == 0 {
		return fmt.Sprintf("%s mode takes no controls (asked: %s)", e.Mode, e.Control)
	}
	names := make([]string, len(e.Accepts))
	for i, k := range e.Accepts {
		names[i] = string(k)
	}
	return fmt.Sprintf("%s mode does not take %s (it takes %s)", e.Mode, e.Control, strings.Join(names, ", "))
}

// Control sends c to the current mode. Pause, continue and stop act on the
// running exchange; rounds and steps set the next one's length.
func (e *Engine) Control(_ context.Context, c Control) error {
	m := e.Current()
	info, _ := e.Config.ModeList.Info(m.Name())
	if !info.Accepts(c.Kind) {
		return &ErrNoSuchControl{Mode: m.Name(), Control: c.Kind, Accepts: info.Controls}
	}
	switch c.Kind {
	case config.ControlRounds, config.ControlSteps:
		if c.N < 1 {
			return fmt.Errorf("%s needs a number of at least 1", c.Kind)
		}
	case config.ControlPause, config.ControlContinue, config.ControlStop:
		if !e.Busy() {
			return fmt.Errorf("no %s is running: %s works while one runs", m.Name(), c.Kind)
		}
	}
	ctl, ok := m.(Controller)
	if !ok { // its info lists controls it does not implement
		return &ErrNoSuchControl{Mode: m.Name(), Control: c.Kind}
	}
	return ctl.Control(c)
}
