package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/hostwait"
	"github.com/parleyhq/parley/cmd/parley/internal/toolkit"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/lease"
	"github.com/parleyhq/parley/debate/sessionid"
	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/debate/store"
)

// stateAgents is the session state key holding the agents a session was
// created with (so a session loaded later runs with the same ones).
const stateAgents = "serve.agents"

// stateMaxCost is the session state key holding the session's cost cap
// (USD), so a session evicted and loaded again keeps it.
const stateMaxCost = "serve.max_cost"

// session is a live session: one engine, recorded in the store by the
// CLI's recorder, its events numbered by a hub for SSE clients.
type session struct {
	id    string
	owner string
	eng   *debate.Engine
	rec   *store.Recorder
	hub   *hub
	unsub []func()
	// host answers the session's checkpoints through the API (nil: the
	// session has no checkpoint policy; checkpoint.go).
	host *hostwait.Host

	mu       sync.Mutex
	running  bool // an async exchange was started and has not returned
	exchange sync.WaitGroup

	// Guarded by manager.mu, for eviction (evict.go).
	lastUsed time.Time
	clients  int // open event streams
}

// manager holds the live sessions; others are loaded from the store on
// first use.
type manager struct {
	srv *Server

	mu   sync.Mutex
	live map[string]*session
	// loading serialises loads of one session (and an unloading with them).
	loading map[string]*sync.Mutex

	quietUntil      time.Time   // no live session can be idle before it (victims)
	evictMu         sync.Mutex  // evictions run one at a time
	evicting, again atomic.Bool // evictSoon's goroutine runs; again: one more round
}

func newManager(s *Server) *manager {
	return &manager{srv: s, live: map[string]*session{}, loading: map[string]*sync.Mutex{}}
}

// sessionSpec says how to build a new session's engine.
type sessionSpec struct {
	mode, title, user string
	agents            []string // the mode's agents ("" : configured ones)
	seed              bool     // the user's seed-001 debate
	magiPreset        string
	magiModel         string
	maxCost           *float64 // the request's max_cost (nil: the server's ceiling)
	checkpoint        string   // the request's checkpoint policy ("": none, never waits)
	// adjust, when set, changes the configuration before the engine is
	// built (an OpenAI request's effort and answer limit).
	adjust func(*config.Config)
}

// create starts a new session and saves its row at once.
func (m *manager) create(ctx context.Context, spec sessionSpec) (*session, error) {
	if spec.mode == "" {
		spec.mode = m.srv.opts.Config.DefaultMode
	}
	if spec.mode == "" {
		spec.mode = m.srv.opts.Config.ModeList.Default()
	}
	if _, ok := m.srv.opts.Config.ModeList.Spec(spec.mode); !ok {
		return nil, errorf(http.StatusBadRequest, "bad_field", "mode: %s", m.srv.opts.Config.ModeList.Unknown(spec.mode))
	}
	build := m.srv.config
	if spec.adjust != nil {
		build = m.srv.draftConfig // validated once, adjusted
	}
	cfg, err := build(ctx, spec.mode, spec.agents, spec.magiPreset, spec.magiModel)
	if err != nil {
		return nil, err
	}
	if spec.adjust != nil {
		spec.adjust(cfg)
		if err := cfg.Validate(); err != nil {
			return nil, errorf(http.StatusBadRequest, "bad_field", "%s", err.Error())
		}
	}
	capUSD, err := m.srv.sessionCap(spec.maxCost)
	if err != nil {
		return nil, err
	}
	eng, err := m.srv.engine(cfg, spec.mode)
	if err != nil {
		return nil, err
	}
	if err := m.srv.meter(ctx, eng, spend.NewMeter(capUSD, 0), spec.user); err != nil {
		return nil, err
	}
	ss := m.attach(eng, spec.user)
	eng.Start(false)
	if capUSD > 0 {
		eng.SetState(stateMaxCost, strconv.FormatFloat(capUSD, 'f', -1, 64))
	}
	if len(spec.agents) > 0 {
		eng.SetState(stateAgents, strings.Join(spec.agents, ","))
	}
	if spec.checkpoint != "" {
		eng.SetState(stateCheckpoint, spec.checkpoint)
		ss.attachHost()
	}
	if spec.title != "" {
		_ = eng.Rename(spec.title) // a blank title keeps the one from the first question
	}
	st := m.srv.opts.Store
	if err := st.SaveOwnedSession(ctx, eng.Info(), spec.user, spec.seed); err != nil {
		m.drop(ss)
		return nil, err
	}
	return ss, nil
}

// engine binds cfg's agents to their providers and builds the engine.
func (s *Server) engine(cfg *config.Config, mode string) (*debate.Engine, error) {
	agents, err := s.opts.Agents(cfg)
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "bad_config", "%s", err.Error())
	}
	eng, err := debate.NewEngine(cfg, agents, mode)
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "bad_field", "%s", err.Error())
	}
	return eng, nil
}

// attach subscribes the recorder, the hub and the webhooks to a new engine
// and makes the session live.
func (m *manager) attach(eng *debate.Engine, owner string) *session {
	rec := m.srv.opts.Store.Record()
	rec.OnError(func(err error) { m.srv.logf("saving session %s: %v", eng.Info().ID, err) })
	ss := &session{id: eng.Info().ID, owner: owner, eng: eng, rec: rec, hub: newHub(m.srv.opts.ReplayEvents, m.srv.opts.ReplayBytes)}
	ss.attachHost()
	ss.unsub = append(ss.unsub, rec.Attach(eng, "serve"), eng.Subscribe(ss.hub.sink),
		toolkit.Serve(eng, func(s string) { m.srv.logf("session %s: %s", eng.Info().ID, s) }, m.srv.opts.Getenv)) // serve.tools
	if m.srv.hooks != nil {
		id := ss.id
		ss.unsub = append(ss.unsub, eng.Subscribe(func(ev debate.Event) { m.srv.hooks.event(id, ev) }))
	}
	m.mu.Lock()
	ss.lastUsed = time.Now()
	m.live[ss.id] = ss
	crowded := len(m.live) > m.srv.opts.MaxLive
	m.mu.Unlock()
	if crowded {
		m.evictSoon()
	}
	return ss
}

// get returns the live session id, loading it from the store when needed.
// A session owned by another user is as unknown as a missing one.
func (m *manager) get(ctx context.Context, id, user string) (*session, error) {
	if err := sessionid.Check(id); err != nil {
		return nil, errorf(http.StatusBadRequest, "bad_id", "%s", err.Error())
	}
	notFound := errorf(http.StatusNotFound, "not_found", "no session %q", id)
	ss, lock := m.liveOrLock(id)
	if ss == nil {
		defer lock.Unlock()
		var err error
		if ss, err = m.load(ctx, id); err != nil {
			m.mu.Lock()
			delete(m.loading, id) // unknown ids leave nothing behind
			m.mu.Unlock()
			if errors.Is(err, store.ErrNotFound) {
				return nil, notFound
			}
			return nil, err
		}
	}
	if ss.owner != user {
		return nil, notFound
	}
	m.mu.Lock()
	ss.lastUsed = time.Now()
	m.mu.Unlock()
	return ss, nil
}

// liveOrLock returns id's live session or, when none is, holds id's
// loading lock for the caller to load it (and unlock). A lock retired
// while waited on (the session was unloaded, or found unknown) is not
// used: the caller waits on the current one, so one session never loads
// twice.
func (m *manager) liveOrLock(id string) (*session, *sync.Mutex) {
	for {
		m.mu.Lock()
		if ss := m.live[id]; ss != nil {
			m.mu.Unlock()
			return ss, nil
		}
		lock := m.loading[id]
		if lock == nil {
			lock = &sync.Mutex{}
			m.loading[id] = lock
		}
		m.mu.Unlock()
		lock.Lock()
		m.mu.Lock()
		ss, current := m.live[id], m.loading[id] == lock
		m.mu.Unlock()
		switch {
		case ss != nil:
			lock.Unlock()
			return ss, nil
		case current:
			return nil, lock
		}
		lock.Unlock()
	}
}

// load restores a saved session into a new engine.
func (m *manager) load(ctx context.Context, id string) (*session, error) {
	st := m.srv.opts.Store
	info, entries, err := st.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	owner, err := st.Owner(ctx, id)
	if err != nil {
		return nil, err
	}
	var agents []string
	if s := info.State[stateAgents]; s != "" {
		agents = strings.Split(s, ",")
	}
	mode := info.Mode
	if _, ok := m.srv.opts.Config.ModeList.Spec(mode); !ok {
		mode = m.srv.opts.Config.ModeList.Default()
	}
	cfg, err := m.srv.config(ctx, mode, agents, "", "")
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	eng, err := m.srv.engine(cfg, mode)
	if err != nil {
		return nil, err
	}
	if err := eng.Restore(info, entries); err != nil {
		return nil, err
	}
	// The cap and the spend survive eviction: a session cannot spend past
	// its cap by being reloaded.
	if err := m.srv.meter(ctx, eng, spend.NewMeter(m.srv.storedCap(info), spentOn(entries)), owner); err != nil {
		return nil, err
	}
	ss := m.attach(eng, owner)
	eng.Start(true)
	return ss, nil
}

// drop ends a live session: its exchange is cancelled (what arrived is
// kept), the subscribers take the last events and the recorder writes them.
func (m *manager) drop(ss *session) {
	ss.eng.Cancel()
	ss.exchange.Wait()
	waitCtx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	_ = ss.eng.Wait(waitCtx)
	cancel()
	for _, u := range ss.unsub {
		u()
	}
	ss.hub.close()
	_ = ss.rec.Close()
	m.mu.Lock()
	if m.live[ss.id] == ss {
		delete(m.live, ss.id)
	}
	delete(m.loading, ss.id)
	m.mu.Unlock()
}

// settle waits for the session's subscribers to take every event and
// writes what the recorder holds, so the store has the whole history.
func (m *manager) settle(ctx context.Context, ss *session) error {
	waitCtx, cancel := context.WithTimeout(ctx, drainTimeout)
	defer cancel()
	if err := ss.eng.Wait(waitCtx); err != nil {
		return err
	}
	return ss.rec.Flush()
}

// delete removes a session, live or saved.
func (m *manager) delete(ctx context.Context, id, user string) error {
	ss, err := m.get(ctx, id, user)
	if err != nil {
		return err
	}
	m.drop(ss)
	if err := m.srv.opts.Store.Delete(ctx, id); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}

// closeAll ends every live session (shutdown): running exchanges are
// cancelled with their partial text kept, and the recorders flushed.
func (m *manager) closeAll() {
	m.mu.Lock()
	all := make([]*session, 0, len(m.live))
	for _, ss := range m.live {
		all = append(all, ss)
	}
	m.mu.Unlock()
	for _, ss := range all {
		ss.eng.Cancel()
	}
	for _, ss := range all {
		m.drop(ss)
	}
}

// submit starts one exchange in the background; its results arrive as
// events. It is refused while another runs, and when the mode refuses the
// line before it adds anything to the history (an unknown @name, an empty
// question): then the caller gets the mode's own message, so a page can
// keep the line in its box and say why.
func (m *manager) submit(ctx context.Context, ss *session, text string) error {
	if err := ss.refuseWhileAsking(); err != nil {
		return err
	}
	if err := ss.claim(); err != nil {
		return err
	}
	answer := make(chan error, 1)
	var once sync.Once
	accept := func(err error) { once.Do(func() { answer <- err }) }
	unsub := ss.eng.Subscribe(func(ev debate.Event) {
		switch ev.(type) {
		case debate.EntryAdded, debate.TurnStarted:
			accept(nil)
		}
	})
	before := ss.eng.History().Len()
	go func() {
		err := ss.eng.Submit(m.srv.ctx, text)
		unsub()
		// The claim ends before a refusal is answered: a client told 400
		// may send its corrected line at once and must not meet a 409.
		ss.release()
		if refused := m.srv.spendRefusal(err); refused != nil {
			accept(refused)
		} else if debate.IsPending(err) {
			accept(awaitingHost(err))
		} else if lease.IsBusy(err) {
			accept(busyElsewhere(err))
		} else if err != nil && ss.eng.History().Len() == before {
			accept(errorf(http.StatusBadRequest, "refused", "%s", err.Error()))
		} else {
			accept(nil)
		}
		if err != nil && !errors.Is(err, context.Canceled) {
			m.srv.logf("session %s: %v", ss.id, err)
		}
	}()
	select {
	case err := <-answer:
		return err
	case <-ctx.Done():
		return nil // the exchange runs on; the client left
	}
}

// claim marks the session as running one exchange; it is refused while
// another runs. release ends the claim.
func (ss *session) claim() error {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.running || ss.eng.Busy() {
		return errBusy(ss.id)
	}
	ss.running = true
	ss.exchange.Add(1)
	return nil
}

func (ss *session) release() {
	ss.mu.Lock()
	ss.running = false
	ss.mu.Unlock()
	ss.exchange.Done()
}

// run runs one exchange and waits for it and for every subscriber (the
// caller's capture included) to have taken its events.
func (m *manager) run(ctx context.Context, ss *session, text string) error {
	if err := ss.refuseWhileAsking(); err != nil {
		return err
	}
	if err := ss.claim(); err != nil {
		return err
	}
	defer ss.release()
	err := ss.eng.Submit(ctx, text)
	waitCtx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	_ = ss.eng.Wait(waitCtx)
	if debate.IsPending(err) {
		return awaitingHost(err)
	}
	if lease.IsBusy(err) {
		return busyElsewhere(err)
	}
	if refused := m.srv.spendRefusal(err); refused != nil {
		return refused
	}
	return err
}

// busyElsewhere is the 409 for a session another process (the console, a
// headless command, parley mcp) is answering in: the lease's own words,
// who holds it, since when and what to do.
func busyElsewhere(err error) error {
	return errorf(http.StatusConflict, "busy", "%s", err.Error())
}

func errBusy(id string) error {
	return errorf(http.StatusConflict, "busy", "session %s is busy: agents are still answering (wait for its exchange_finished event)", id)
}

// busy reports whether an exchange runs.
func (ss *session) busy() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.running || ss.eng.Busy()
}
