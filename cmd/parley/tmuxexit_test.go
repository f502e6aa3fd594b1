package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tmuxExitWait bounds how long a test's clean-up waits for the programs of a
// killed tmux pane to finish closing their files.
const tmuxExitWait = 15 * time.Second

// waitSessionGone waits until no live process of the terminal session sid is
// left. tmux makes each pane's program the leader of its own session, and
// killing the server only signals it: parley then closes its database and
// writes the check note beside it, which must happen before t.TempDir removes
// the folder ("directory not empty" otherwise). Zombies count as gone.
func waitSessionGone(t *testing.T, sid int) {
	t.Helper()
	if sid <= 0 {
		return
	}
	deadline := time.Now().Add(tmuxExitWait)
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	for liveInSession(sid) {
		if time.Now().After(deadline) {
			t.Errorf("the programs of tmux pane session %d did not exit within %s", sid, tmuxExitWait)
			return
		}
		<-poll.C
	}
}

// liveInSession reports whether /proc lists a process of session sid that is
// not a zombie. Without /proc (not Linux) it reports none.
func liveInSession(sid int) bool {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue // the process ended while we looked
		}
		// After the command name's closing parenthesis: state ppid pgrp session …
		s := string(raw)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 4 || fields[0] == "Z" || fields[0] == "X" {
			continue
		}
		if n, err := strconv.Atoi(fields[3]); err == nil && n == sid {
			return true
		}
	}
	return false
}

// paneSessions lists the session ids of the panes of the tmux server on
// socket (each pane's program leads its own session), before it is killed.
func paneSessions(out string) []int {
	var sids []int
	for _, l := range strings.Fields(out) {
		if n, err := strconv.Atoi(l); err == nil {
			sids = append(sids, n)
		}
	}
	return sids
}

func TestLiveInSessionSeesThisProcess(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skip("no /proc here")
	}
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	sid, _ := strconv.Atoi(fields[3])
	if !liveInSession(sid) {
		t.Fatalf("this test's own session %d was not seen as live", sid)
	}
	if liveInSession(-7) {
		t.Fatal("a session no process has was seen as live")
	}
}
