// What the doors read of a mode besides its events: the session state of
// a mode that steps, and the cue that closes a talk.

package dialogue

// Session state keys of a mode that steps (alternate); they survive
// resume, and the console's hint reads them.
const (
	StateStepNext  = "alternate.next" // who answers the next step
	StateStepCount = "alternate.step" // steps taken since the start turn
)

// TalkClosingCue is the MC's closing instruction; the console labels the
// turn that answers it "closing".
const TalkClosingCue = "MC, your turn: close the talk with a balanced wrap-up of the whole discussion and a last question for the audience."

// ForkState is the session state a fork starts with: the parent's, less the
// keys that describe where the parent ended (alternate's next responder and
// step), which the fork works out again from its own, shorter history.
func ForkState(state map[string]string) map[string]string {
	out := make(map[string]string, len(state))
	for k, v := range state {
		if k != StateStepNext && k != StateStepCount {
			out[k] = v
		}
	}
	return out
}
