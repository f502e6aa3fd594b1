package debate

import (
	"github.com/parleyhq/parley/debate/transcript"
)

// AddOutcome saves a mode's outcome sentence as an entry every door shows
// (KindOutcome); display names whose outcome it is ("Council", "Talk").
// An empty sentence (a cancelled exchange) adds nothing.
func (e *Engine) AddOutcome(display, sentence string) {
	if sentence == "" {
		return
	}
	e.AddEntry(transcript.Entry{Kind: transcript.KindOutcome, Speaker: transcript.SpeakerSystem, Display: display, Text: sentence})
}
