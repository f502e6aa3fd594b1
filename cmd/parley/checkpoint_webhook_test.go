package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// hookReceiver is an httptest webhook receiver that keeps every body.
type hookReceiver struct {
	mu     sync.Mutex
	got    []hookBody
	notify chan struct{}
}

type hookBody struct {
	Session string `json:"session_id"`
	Event   struct {
		Type     string   `json:"type"`
		Kind     string   `json:"kind"`
		Round    int      `json:"round"`
		Choices  []string `json:"choices"`
		Sentence string   `json:"sentence"`
		Answer   struct {
			Action, Text string
		} `json:"answer"`
	} `json:"event"`
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var b hookBody
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if json.Unmarshal(raw, &b) != nil || r.Header.Get("X-Parley-Event") != b.Event.Type {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.got = append(h.got, b)
	h.mu.Unlock()
	select {
	case h.notify <- struct{}{}:
	default:
	}
}

// waitType waits (up to a minute) for a delivery of type typ and returns it.
func (h *hookReceiver) waitType(t *testing.T, typ string) hookBody {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		h.mu.Lock()
		for _, b := range h.got {
			if b.Event.Type == typ {
				h.mu.Unlock()
				return b
			}
		}
		h.mu.Unlock()
		select {
		case <-h.notify:
		case <-deadline:
			t.Fatalf("no %s delivery within a minute", typ)
		}
	}
}

// A real `parley serve` announces a session's checkpoint to the webhooks
// that list it: the checkpoint event with its kind, round and choices,
// then the host's answer (checkpoint_answered) once POST …/checkpoint
// answers.
func TestServeWebhooksAnnounceACheckpoint(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	hooks := &hookReceiver{notify: make(chan struct{}, 1)}
	recv := httptest.NewServer(hooks)
	defer recv.Close()
	f := newCheckpointFixture(t)
	conf := filepath.Join(f.dir, "hooks.yaml")
	if err := os.WriteFile(conf, []byte("webhooks:\n  - url: "+recv.URL+"/hook\n    events: [checkpoint, checkpoint_answered]\n    allow_private: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := f.serve(t, "--config", conf)
	post := func(path, body string) map[string]any {
		t.Helper()
		resp, err := http.Post(base+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode/100 != 2 || json.Unmarshal(raw, &v) != nil {
			t.Fatalf("POST %s: %d %s", path, resp.StatusCode, raw)
		}
		return v
	}
	session, _ := post("/api/v1/sessions", `{"mode":"magi","checkpoint":"each_round"}`)["session"].(map[string]any)
	id, _ := session["id"].(string)
	if id == "" {
		t.Fatal("no session id")
	}
	post("/api/v1/sessions/"+id+"/messages", `{"text":"Should we ship on Friday?"}`)
	reached := hooks.waitType(t, "checkpoint")
	if reached.Session != id || reached.Event.Kind != "round" || reached.Event.Round != 1 ||
		strings.Join(reached.Event.Choices, ",") != "continue,note,drop,stop,swap" ||
		!strings.HasPrefix(reached.Event.Sentence, "CHECKPOINT after round 1 of 3: ") {
		t.Fatalf("checkpoint delivery %+v", reached)
	}
	post("/api/v1/sessions/"+id+"/checkpoint", `{"action":"stop"}`)
	answered := hooks.waitType(t, "checkpoint_answered")
	if answered.Session != id || answered.Event.Answer.Action != "stop" || !strings.Contains(answered.Event.Sentence, "stop") {
		t.Fatalf("checkpoint_answered delivery %+v", answered)
	}
}
