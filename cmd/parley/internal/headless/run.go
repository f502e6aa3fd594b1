package headless

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/parleyhq/parley/debate"
)

// drainTimeout bounds how long a finished run waits for slow subscribers
// (the store) to take the last events.
const drainTimeout = 10 * time.Second

// Run is the one run loop of the headless commands: p renders e's events
// while each input runs as one exchange, in order, stopping at the first
// that fails. interrupts (Ctrl+C) follow Engine.Interrupt's one policy: the
// first cancels the running exchange and keeps what arrived; a second within
// two seconds, or one while idle, ends the run. Any other signal (SIGTERM,
// SIGHUP) asks the process to end: it cancels the exchange the same way,
// keeping what arrived, and ends the run at once.
func Run(ctx context.Context, e *debate.Engine, p *Printer, inputs []string, interrupts <-chan os.Signal) error {
	unsubscribe := e.Subscribe(p.Sink)
	defer unsubscribe()
	if p.opts.Format == JSONL {
		// The session started before the printer subscribed (the store
		// restored and announced it): the stream opens with it all the same.
		p.Sink(debate.SessionStarted{Session: e.Info(), Resumed: len(e.History().Tail()) > 0})
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case sig := <-interrupts:
				if e.Interrupt() || sig != os.Interrupt {
					cancel()
				}
			}
		}
	}()
	var err error
	for i, in := range inputs {
		e.SetRunAhead(len(inputs) - 1 - i) // a mode may ask its host between this run's exchanges
		if _, waiting := e.Pending(); waiting && in == "" {
			err = e.ResumeCheckpoint(ctx) // no input: go on from the checkpoint the session waits at
		} else if err = e.Submit(ctx, in); debate.IsPending(err) {
			err = fmt.Errorf("%w (parley --resume %s answers it)", err, e.Info().ID) // where this door answers
		}
		Drain(e)
		p.EndExchange(err)
		if err != nil || e.StoppedByHost() { // the host's stop ends the run: no more of its exchanges
			break
		}
	}
	p.EndRun()
	return err
}

// Drain waits until every subscriber has taken every event so far, for at
// most drainTimeout: a subscriber that hangs must not hang the command.
func Drain(e *debate.Engine) { drainWithin(e, drainTimeout) }

func drainWithin(e *debate.Engine, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	_ = e.Wait(ctx)
}
