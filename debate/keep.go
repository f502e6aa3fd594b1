package debate

import "github.com/parleyhq/parley/debate/transcript"

// Keeping: how an entry enters the session (AddEntry) and the keep step of
// a plan (Carry), which keeps what a line says before its round.

// keepPlan keeps what a plan says before its round: its notes, its title,
// its named ask (the event, then its sentence as a status note) and its
// line, in that order.
func (e *Engine) keepPlan(p Plan) {
	for _, n := range p.Notes {
		e.AddEntry(n)
	}
	e.SetTitle(p.Title, "")
	if p.Named.Sentence != "" {
		e.Emit(p.Named)
		e.AddEntry(transcript.Entry{Kind: transcript.KindNote, Speaker: transcript.SpeakerSystem, Display: "Parley", Text: p.Named.Sentence})
	}
	if p.Line.Text != "" {
		e.AddEntry(p.Line)
	}
}

// AddEntry appends a complete entry (note, user message, verdict, tool
// activity, error) and announces it.
func (e *Engine) AddEntry(en transcript.Entry) transcript.Entry {
	if en.Status == "" {
		en.Status = transcript.StatusComplete
	}
	if en.Started.IsZero() {
		en.Started = e.now()
	}
	if en.Finished.IsZero() {
		en.Finished = en.Started
	}
	if en.Mode == "" {
		en.Mode = e.Info().Mode
	}
	if en.Display == "" {
		en.Display = e.displayOf(en.Speaker)
	}
	return e.appendAndAnnounce(en, func(en transcript.Entry) Event { return EntryAdded{Entry: en} })
}
