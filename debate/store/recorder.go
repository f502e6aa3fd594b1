package store

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/lease"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// CheckpointEvery is how often a streaming answer's text is written: a crash
// loses at most this much of one answer.
const CheckpointEvery = 500 * time.Millisecond

// Recorder writes one engine's events to the store. Its Sink runs on its
// own subscriber goroutine (Engine.Subscribe: the engine only queues, and
// never waits for it), once for every event in order, text deltas included
// (several hundred a second; merged while it lags), so the Sink only
// updates memory: a background writer
// commits pending rows at once (they are rare: turn starts and ends, entries,
// session changes) and the text of streaming turns on a timer, every
// CheckpointEvery, in one transaction.
type Recorder struct {
	st *Store
	// owner names this recorder in the rows it creates (conversation_log's
	// writer) and in the leases it takes; door is where its turns come from.
	owner string
	door  string

	mu sync.Mutex
	// attached: the engine numbers turns through Append (journal.go) and
	// settles them through Finish, so events only carry session changes
	// and streaming text. Without it (a bare Sink) rows are inserted from
	// the events.
	attached bool
	rows     map[liveKey]int64 // the rows this recorder created
	leases   map[string]*heldLease
	// saved are the sessions known to have their row on disk (resumed, or
	// written by this recorder): one found missing was deleted, and is
	// never re-created. lost are the sessions this recorder may no longer
	// write (taken over, deleted), with why.
	saved   map[string]bool
	lost    map[string]error
	wait    bool                  // Lease waits for a busy session instead of refusing
	session string                // the session events belong to
	unsaved *debate.SessionInfo   // a new session's row, written with its first entry
	ops     []op                  // rows to write, in event order
	live    map[liveKey]*liveTurn // streaming turns
	err     error
	onError func(error)
	// price is the attached engine's price list (Config.CostAt), for the
	// estimated spend of streaming turns; nil prices nothing.
	price func(model string, u providers.Usage, at time.Time) (float64, bool)

	kick     chan struct{}
	arm      chan struct{} // starts the checkpoint ticker: text is streaming
	ticking  bool          // the ticker runs (or arm is pending); under mu
	flushReq chan chan error
	stop     chan struct{}
	done     chan struct{}
	once     sync.Once
}

type liveKey struct {
	session string
	turn    int
}

type liveTurn struct {
	text  strings.Builder
	dirty bool
	// What its estimated spend is made of (journal_settle.go): the model
	// and start of the call, the prompt's estimated tokens once it was
	// sent, the chunks streamed.
	model   string
	started time.Time
	input   int
	chunks  int
}

// op is one pending write.
type op struct {
	meta     *debate.SessionInfo // upsert the session row
	entry    *transcript.Entry   // upsert the entry row
	session  string
	settle   bool // mark turns left streaming by a crash as interrupted
	newStart bool // the entry just started: fill the TalkTable participant columns
}

// Record starts a recorder; subscribe its Sink to the engine before
// engine.Start. Store.Close stops it after writing everything it holds.
func (s *Store) Record() *Recorder { return s.RecordEvery(CheckpointEvery) }

// RecordEvery is Record with another checkpoint interval (tests).
func (s *Store) RecordEvery(every time.Duration) *Recorder {
	r := &Recorder{
		st: s, live: map[liveKey]*liveTurn{}, owner: debate.NewSessionID() + debate.NewSessionID(),
		rows: map[liveKey]int64{}, leases: map[string]*heldLease{}, saved: map[string]bool{}, lost: map[string]error{},
		kick: make(chan struct{}, 1), arm: make(chan struct{}, 1), flushReq: make(chan chan error),
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	s.mu.Lock()
	if s.recorders == nil {
		s.recorders = map[*Recorder]struct{}{}
	}
	s.recorders[r] = struct{}{}
	s.mu.Unlock()
	go r.loop(every)
	return r
}

// OnError sets a function told about the first failed write (the Sink
// cannot return errors). It is called from the writer goroutine.
func (r *Recorder) OnError(f func(error)) {
	r.mu.Lock()
	r.onError = f
	r.mu.Unlock()
}

// Sink is the debate.Sink that records events.
func (r *Recorder) Sink(ev debate.Event) {
	r.mu.Lock()
	urgent := true
	switch ev := ev.(type) {
	case debate.SessionStarted:
		info := ev.Session
		r.session = info.ID
		if ev.Resumed {
			r.unsaved = nil
			r.saved[info.ID] = true
			r.ops = append(r.ops, op{meta: &info, session: info.ID}, op{settle: true, session: info.ID})
		} else {
			r.unsaved = &info // an empty session (the user typed nothing) leaves no row
			urgent = false
		}
	case debate.SessionUpdated:
		info := ev.Session
		if r.unsaved != nil && r.unsaved.ID == info.ID {
			r.unsaved = &info
			urgent = false
		} else {
			r.ops = append(r.ops, op{meta: &info, session: info.ID})
		}
	case debate.EntryAdded:
		r.addEntry(ev.Entry, false)
	case debate.TurnStarted:
		r.addEntry(ev.Entry, true)
		if _, mine := r.rows[liveKey{r.session, ev.Entry.Turn}]; mine || !r.attached {
			lt := r.live[liveKey{r.session, ev.Entry.Turn}]
			if lt == nil { // Sent may have come first
				lt = &liveTurn{}
				r.live[liveKey{r.session, ev.Entry.Turn}] = lt
			}
			lt.model, lt.started = ev.Entry.Model, ev.Entry.Started
		}
	case debate.TextDelta:
		urgent = false
		if lt := r.live[liveKey{r.session, ev.Turn}]; lt != nil {
			if ev.Field != "" || ev.Raw != "" {
				lt.text.WriteString(ev.Raw) // a structured answer is kept as sent
			} else {
				lt.text.WriteString(ev.Text)
			}
			lt.chunks++
			r.markDirty(lt)
		}
	case debate.TurnFinished:
		// The finished entry carries the whole text: the live copy is dropped
		// in the same critical section, so no older checkpoint can follow it.
		delete(r.live, liveKey{r.session, ev.Entry.Turn})
		if !r.attached {
			r.addEntry(ev.Entry, false)
		}
	default:
		urgent = false // the others repeat what entries record
	}
	r.mu.Unlock()
	if urgent {
		select {
		case r.kick <- struct{}{}:
		default:
		}
	}
}

// addEntry queues an entry row; the caller holds r.mu.
func (r *Recorder) addEntry(en transcript.Entry, started bool) {
	if r.session == "" {
		return // no SessionStarted yet: nothing to attach the row to
	}
	if r.unsaved != nil {
		r.ops = append(r.ops, op{meta: r.unsaved, session: r.session})
		r.unsaved = nil
	}
	if r.attached {
		return // Append saved it
	}
	r.ops = append(r.ops, op{entry: &en, session: r.session, newStart: started})
}

// Flush blocks until everything the Sink received so far is written.
func (r *Recorder) Flush() error {
	ch := make(chan error, 1)
	select {
	case r.flushReq <- ch:
		return <-ch
	case <-r.done:
		return r.Err()
	}
}

// Err is the first write error, if any.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Close writes what is pending and stops the writer. Later events are dropped.
func (r *Recorder) Close() error {
	r.releaseAll()
	r.once.Do(func() { close(r.stop) })
	<-r.done
	r.st.mu.Lock()
	delete(r.st.recorders, r) // nothing of it stays reachable from the store
	r.st.mu.Unlock()
	return r.Err()
}

// loop is the background writer. The checkpoint ticker runs only while a
// turn streams text: an idle recorder (a session loaded and waiting, of
// which a server holds hundreds) wakes for nothing.
func (r *Recorder) loop(every time.Duration) {
	defer close(r.done)
	var tick *time.Ticker
	var tickC <-chan time.Time
	defer func() {
		if tick != nil {
			tick.Stop()
		}
	}()
	for {
		select {
		case <-r.kick:
			r.write(false)
		case <-r.arm:
			if tick == nil {
				tick = time.NewTicker(every)
				tickC = tick.C
			}
		case <-tickC:
			r.write(true)
			if r.stopTicking() {
				tick.Stop()
				tick, tickC = nil, nil
			}
		case ch := <-r.flushReq:
			ch <- r.write(true)
		case <-r.stop:
			r.write(true)
			return
		}
	}
}

// markDirty notes that lt has something to checkpoint and starts the
// ticker when it is stopped; the caller holds r.mu.
func (r *Recorder) markDirty(lt *liveTurn) {
	lt.dirty = true
	if !r.ticking {
		r.ticking = true
		r.arm <- struct{}{} // never blocks: sent only when ticking turns true
	}
}

// stopTicking reports whether no text arrived since the checkpoint just
// written: the ticker stops, and the next text delta starts it again.
func (r *Recorder) stopTicking() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, lt := range r.live {
		if lt.dirty {
			return false
		}
	}
	r.ticking = false
	return true
}

// pendingText is a streaming turn's text to checkpoint, and what it has
// cost so far (estimated).
type pendingText struct {
	key   liveKey
	text  string
	usage providers.Usage
	cost  float64
}

// write commits pending rows and, when withText, the text of streaming
// turns changed since the last checkpoint, in one transaction.
func (r *Recorder) write(withText bool) error {
	r.mu.Lock()
	ops := r.ops
	r.ops = nil
	var texts []pendingText
	if withText {
		for k, lt := range r.live {
			if lt.dirty {
				// String does not copy; later writes to the builder never
				// change bytes already handed out.
				texts = append(texts, r.pending(k, lt))
				lt.dirty = false
			}
		}
	}
	r.mu.Unlock()
	if len(ops) == 0 && len(texts) == 0 {
		return r.Err()
	}
	err := r.apply(context.Background(), ops, texts)
	if err != nil {
		r.fail(err)
	}
	return err
}

// fail records a failed write and tells OnError's function the first time.
func (r *Recorder) fail(err error) {
	r.mu.Lock()
	first := r.err == nil
	if first {
		r.err = err
	}
	report := r.onError
	r.mu.Unlock()
	if first && report != nil {
		report(err)
	}
}

// rowOf is the id of the row this recorder created for a turn.
func (r *Recorder) rowOf(k liveKey) (int64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	row, ok := r.rows[k]
	return row, ok
}

// writeEntry saves an entry from a bare Sink's events: a new row the first
// time, then updates of that row only.
func (r *Recorder) writeEntry(ctx context.Context, tx *sql.Tx, o op) error {
	k := liveKey{o.session, o.entry.Turn}
	if row, ok := r.rowOf(k); ok {
		return updateEntry(ctx, tx, row, r.owner, *o.entry)
	}
	row, err := insertEntry(ctx, tx, o.session, r.owner, *o.entry)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.rows[k] = row
	r.mu.Unlock()
	if o.newStart {
		return noteParticipant(ctx, tx, o.session, *o.entry)
	}
	return nil
}

// apply runs one batch of writes in a transaction, each session's fenced
// by its guard (journal_fence.go). A session found lost drops its writes
// (the loss is reported once) and the others' are written without them.
func (r *Recorder) apply(ctx context.Context, ops []op, texts []pendingText) error {
	for {
		ops, texts = r.withoutLost(ops, texts)
		if len(ops) == 0 && len(texts) == 0 {
			return nil
		}
		session, err := r.applyOnce(ctx, ops, texts)
		if session == "" || !lease.IsLost(err) {
			return err
		}
		r.lose(session, err)
	}
}

// withoutLost drops the writes to sessions this recorder lost.
func (r *Recorder) withoutLost(ops []op, texts []pendingText) ([]op, []pendingText) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.lost) == 0 {
		return ops, texts
	}
	keptOps := ops[:0:0]
	for _, o := range ops {
		if r.lost[o.session] == nil {
			keptOps = append(keptOps, o)
		}
	}
	keptTexts := texts[:0:0]
	for _, t := range texts {
		if r.lost[t.key.session] == nil {
			keptTexts = append(keptTexts, t)
		}
	}
	return keptOps, keptTexts
}

// applyOnce writes one batch; a refused guard names its session.
func (r *Recorder) applyOnce(ctx context.Context, ops []op, texts []pendingText) (refused string, err error) {
	tx, err := r.st.w.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	now := time.Now()
	touched := map[string]bool{}
	var sessions []string
	for _, o := range ops {
		if !touched[o.session] {
			touched[o.session] = true
			sessions = append(sessions, o.session)
		}
	}
	for _, c := range texts {
		if !touched[c.key.session] {
			touched[c.key.session] = true
			sessions = append(sessions, c.key.session)
		}
	}
	for _, s := range sessions {
		guard, gerr := r.writeGuard(s)
		if gerr == nil {
			gerr = guard(ctx, tx)
		}
		if gerr != nil {
			err = gerr
			return s, err
		}
	}
	for _, o := range ops {
		switch {
		case o.meta != nil:
			err = upsertMeta(ctx, tx, *o.meta, formatTime(now))
		case o.entry != nil:
			err = r.writeEntry(ctx, tx, o)
		case o.settle:
			err = r.settleDead(ctx, tx, o.session, 0, now)
		}
		if err != nil {
			return "", err
		}
	}
	for _, c := range texts {
		row, ok := r.rowOf(c.key)
		if !ok {
			continue // not saved (a failed Append): nothing to update
		}
		if err = checkpoint(ctx, tx, row, r.owner, c); err != nil {
			return "", err
		}
	}
	for _, id := range sessions {
		if _, err = tx.ExecContext(ctx, `UPDATE conversation_meta SET updated_time = ? WHERE conversation_id = ?`, formatTime(now), id); err != nil {
			return "", err
		}
	}
	if err = tx.Commit(); err != nil {
		return "", err
	}
	r.mu.Lock()
	for _, o := range ops {
		if o.meta != nil {
			r.saved[o.session] = true
		}
	}
	r.mu.Unlock()
	return "", nil
}
