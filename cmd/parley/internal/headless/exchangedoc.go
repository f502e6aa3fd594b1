package headless

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// exchangeDoc gathers one mention exchange from its events into the one
// JSON document `ask --json` prints (one per line in `repl --json`): the
// session, the question, every entry of the exchange in turn order (the
// question, Parley's notes, each agent's finished turn), usage and cost.
type exchangeDoc struct {
	session string
	mode    string
	entries map[int]transcript.Entry
	done    *debate.ExchangeFinished
}

// ExchangeDocument is the shape of `parley ask --json`.
type ExchangeDocument struct {
	Session  string             `json:"session"`
	Mode     string             `json:"mode"`
	Question string             `json:"question"`
	Turns    []transcript.Entry `json:"turns"`
	Usage    providers.Usage    `json:"usage"`
	Cost     float64            `json:"cost_usd"`
	Error    string             `json:"error,omitempty"`
}

func (d *exchangeDoc) sink(ev debate.Event) {
	if d.entries == nil {
		d.entries = map[int]transcript.Entry{}
	}
	switch ev := ev.(type) {
	case debate.SessionStarted:
		d.session, d.mode = ev.Session.ID, ev.Session.Mode
	case debate.SessionUpdated:
		d.session, d.mode = ev.Session.ID, ev.Session.Mode
	case debate.EntryAdded:
		d.entries[ev.Entry.Turn] = ev.Entry
	case debate.TurnFinished:
		d.entries[ev.Entry.Turn] = ev.Entry
	case debate.ExchangeFinished:
		d.done = &ev
	}
}

// write prints the document and starts the next exchange's; an exchange
// refused before it began (nothing gathered) prints nothing.
func (d *exchangeDoc) write(w io.Writer, runErr error) {
	defer func() { d.entries, d.done = nil, nil }()
	if len(d.entries) == 0 && d.done == nil {
		return
	}
	doc := ExchangeDocument{Session: d.session, Mode: d.mode, Turns: []transcript.Entry{}}
	for _, en := range d.entries {
		doc.Turns = append(doc.Turns, en)
		if en.Kind == transcript.KindUser && doc.Question == "" {
			doc.Question = en.Text
		}
		if en.IsAgentTurn() {
			doc.Usage = doc.Usage.Add(en.Usage)
			doc.Cost += en.Cost
		}
	}
	sort.Slice(doc.Turns, func(i, j int) bool { return doc.Turns[i].Turn < doc.Turns[j].Turn })
	if d.done != nil {
		doc.Mode, doc.Usage, doc.Cost, doc.Error = d.done.Mode, d.done.Usage, d.done.Cost, d.done.Err
	}
	if doc.Error == "" && runErr != nil {
		doc.Error = runErr.Error()
	}
	b, err := json.Marshal(doc)
	if err == nil {
		fmt.Fprintf(w, "%s\n", b)
	}
}
