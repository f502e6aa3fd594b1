package mcp

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// subscriptions are the session resources clients subscribed to
// (resources/subscribe), followed through the store's one watcher
// (store.Watch): when another process — or a tool call here — adds or
// settles turns in a subscribed session, its subscribers get
// notifications/resources/updated for the URI they subscribed to.
type subscriptions struct {
	mu      sync.Mutex
	watched map[string]*watchedURI // by URI
	stop    func()                 // ends the watch; nil while none runs
}

// watchedURI is one subscribed resource: its session, the stamp last seen
// and how many subscriptions hold it.
type watchedURI struct {
	id    string
	stamp string
	n     int
}

// subscribe is the SDK's SubscribeHandler: a URI that names no saved
// session is refused; the first subscription starts the watch.
func (s *Server) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	ref, ok := sessionRef(uri)
	if !ok {
		return mcp.ResourceNotFoundError(uri)
	}
	id, err := s.opts.Store.Resolve(ctx, ref)
	if err != nil {
		return mcp.ResourceNotFoundError(uri)
	}
	stamp, err := s.opts.Store.Stamp(ctx, id)
	if err != nil {
		return err
	}
	subs := &s.subs
	subs.mu.Lock()
	defer subs.mu.Unlock()
	if subs.watched == nil {
		subs.watched = map[string]*watchedURI{}
	}
	if w := subs.watched[uri]; w != nil {
		w.n++
	} else {
		subs.watched[uri] = &watchedURI{id: id, stamp: stamp, n: 1}
	}
	if subs.stop == nil {
		subs.stop = s.watch()
	}
	return nil
}

// unsubscribe is the SDK's UnsubscribeHandler; the last one ends the watch.
func (s *Server) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	subs := &s.subs
	subs.mu.Lock()
	defer subs.mu.Unlock()
	w := subs.watched[req.Params.URI]
	if w == nil {
		return nil
	}
	if w.n--; w.n <= 0 {
		delete(subs.watched, req.Params.URI)
	}
	if len(subs.watched) == 0 && subs.stop != nil {
		subs.stop()
		subs.stop = nil
	}
	return nil
}

// watch follows the store until the returned function or the server's
// end stops it.
func (s *Server) watch() (stop func()) {
	changed, stopWatch := s.opts.Store.Watch()
	ctx, cancel := context.WithCancel(s.life)
	go func() {
		defer stopWatch()
		for {
			select {
			case <-ctx.Done():
				return
			case <-changed:
				s.notifyChanged(ctx)
			}
		}
	}()
	return cancel
}

// notifyChanged sends notifications/resources/updated for every watched
// session whose stamp moved.
func (s *Server) notifyChanged(ctx context.Context) {
	subs := &s.subs
	subs.mu.Lock()
	var moved []string
	for uri, w := range subs.watched {
		stamp, err := s.opts.Store.Stamp(ctx, w.id)
		if err != nil || stamp == w.stamp {
			continue
		}
		w.stamp = stamp
		moved = append(moved, uri)
	}
	subs.mu.Unlock()
	for _, uri := range moved {
		_ = s.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
	}
}
