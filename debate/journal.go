package debate

import (
	"context"
	"sync"

	"github.com/parleyhq/parley/debate/lease"
	"github.com/parleyhq/parley/debate/transcript"
)

// Journal is where a session's turns are kept when several processes (the
// console, headless commands, serve, MCP) may share it. The engine asks it
// for each new turn's number instead of counting for itself, takes the
// session's lease before an exchange, and reads the turns other processes
// added. The store implements it; the engine knows nothing of SQL.
type Journal interface {
	// Append saves en as the session's next turn. The number is allocated
	// where the turn is saved (inside the transaction that inserts it), so
	// two writers never get the same one. missed are the turns other
	// writers saved after turn after (the last one this engine knows) and
	// before en: the engine takes them in first.
	Append(info SessionInfo, en transcript.Entry, after int) (saved transcript.Entry, missed []transcript.Entry, err error)
	// Finish saves a turn's final state, in the row this process created,
	// before the engine announces it.
	Finish(session string, en transcript.Entry) error
	// Since returns the session's turns from turn from on, as saved now
	// (turns still streaming in another process included).
	Since(ctx context.Context, session string, from int) ([]transcript.Entry, error)
	// Lease takes the session for one exchange, before any provider call:
	// a *BusyError when another process holds it, a *DeletedError when
	// the session was deleted since this process read it. release gives
	// it back. While it is held every write is fenced by it: when the
	// journal finds it lost (another process took it over after this one
	// was paused past its expiry, or the session was deleted) it refuses
	// every later write and calls lost once, with a *TakenOverError or a
	// *DeletedError, from any goroutine.
	Lease(ctx context.Context, session string, lost func(error)) (release func(), err error)
	// Sent records that turn's call was sent with a prompt of about input
	// tokens: from then on the turn's checkpoints carry its estimated
	// spend, so a turn cut by kill -9 or a full disk is charged it when
	// the next writer settles it.
	Sent(session string, turn, input int)
}

// SetJournal makes j keep this engine's turns (nil: numbered in memory,
// for a session nothing else can write).
func (e *Engine) SetJournal(j Journal) {
	e.appendMu.Lock()
	e.journal = j
	e.appendMu.Unlock()
}

// settle saves a turn's final state through the journal and replaces its
// entry in the history, before it is announced. A turn the journal
// refused because the session was lost is never shown complete: on disk
// it stays as the process that took the session settled it.
func (e *Engine) settle(en transcript.Entry) transcript.Entry {
	e.appendMu.Lock()
	j := e.journal
	e.appendMu.Unlock()
	if j != nil {
		// Any other failure is reported by the journal; the run exits non-zero.
		if err := j.Finish(e.Info().ID, en); lease.IsLost(err) && en.Status == transcript.StatusComplete {
			en.Status, en.Error = transcript.StatusPartial, err.Error()
		}
	}
	e.History().Update(en)
	return en
}

// sent tells the journal a turn's call went out (see Journal.Sent).
func (e *Engine) sent(turn, input int) {
	e.appendMu.Lock()
	j := e.journal
	e.appendMu.Unlock()
	if j != nil {
		j.Sent(e.Info().ID, turn, input)
	}
}

// foreign is the event announcing a turn another process saved.
func foreign(en transcript.Entry) Event {
	if en.Status == transcript.StatusStreaming {
		return TurnStarted{Entry: en}
	}
	return EntryAdded{Entry: en}
}

// takeIn appends turns other processes saved and announces them; the
// caller holds appendMu. Turns still streaming are followed until they
// settle (see Sync).
func (e *Engine) takeIn(entries []transcript.Entry) {
	h := e.History()
	for _, en := range entries {
		if en.Turn <= h.Len() {
			continue
		}
		h.Put(en)
		if en.Status == transcript.StatusStreaming {
			e.followMu.Lock()
			if e.following == nil {
				e.following = map[int]transcript.Entry{}
			}
			e.following[en.Turn] = en
			e.followMu.Unlock()
		}
		e.Emit(foreign(en))
	}
}

// Sync takes in the turns other processes saved since this engine last
// read the session, and the progress of their turns still streaming. Every
// door's events then show them; the next prompt includes them. Without a
// journal it does nothing.
func (e *Engine) Sync(ctx context.Context) error {
	e.appendMu.Lock()
	defer e.appendMu.Unlock()
	if e.journal == nil {
		return nil
	}
	from := e.History().Len() + 1
	e.followMu.Lock()
	for turn := range e.following {
		from = min(from, turn)
	}
	e.followMu.Unlock()
	entries, err := e.journal.Since(ctx, e.Info().ID, from)
	if err != nil {
		return err
	}
	last := e.History().Len()
	var fresh []transcript.Entry
	for _, en := range entries {
		if en.Turn > last {
			fresh = append(fresh, en)
			continue
		}
		e.progress(en)
	}
	e.takeIn(fresh)
	return nil
}

// progress announces what changed in a turn another process is streaming:
// the text that arrived since the last read, then its end.
func (e *Engine) progress(en transcript.Entry) {
	e.followMu.Lock()
	was, ok := e.following[en.Turn]
	if ok && en.Status != transcript.StatusStreaming {
		delete(e.following, en.Turn)
	} else if ok {
		e.following[en.Turn] = en
	}
	e.followMu.Unlock()
	if !ok {
		return
	}
	if len(en.Text) > len(was.Text) && en.Text[:len(was.Text)] == was.Text {
		e.Emit(TextDelta{Turn: en.Turn, Agent: en.Speaker, Text: en.Text[len(was.Text):]})
	}
	if en.Status != transcript.StatusStreaming {
		e.History().Update(en)
		e.Emit(TurnFinished{Entry: en})
	}
}

// lease takes the session for an exchange and reads what other processes
// added since, so the prompts include it. With no journal it does nothing.
// lost is called if the lease is lost while held.
func (e *Engine) lease(ctx context.Context, lost func(error)) (release func(), err error) {
	e.appendMu.Lock()
	j := e.journal
	e.appendMu.Unlock()
	if j == nil {
		return func() {}, nil
	}
	release, err = j.Lease(ctx, e.Info().ID, lost)
	if err != nil {
		return nil, err
	}
	if err := e.Sync(ctx); err != nil {
		release()
		return nil, err
	}
	return release, nil
}

// lostLease holds the loss the journal reported during an exchange.
type lostLease struct {
	mu  sync.Mutex
	err error
}

func (l *lostLease) set(err error) {
	l.mu.Lock()
	if l.err == nil {
		l.err = err
	}
	l.mu.Unlock()
}

func (l *lostLease) get() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}
