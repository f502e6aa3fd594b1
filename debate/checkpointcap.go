package debate

import (
	"fmt"

	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/transcript"
)

// The state a run saves at a checkpoint is bounded: the session's state is
// read by every door (sessions show --json, the API's session) and written
// with each of its updates, so a mode whose state to go on from has grown
// past maxPendingState does not save it. That point is not durable: the
// host is asked in this process, which keeps the session's lease while it
// waits, and a process that ends there leaves nothing to go on from. A
// saved state past the bound (a store written by hand) is not read back.

// maxPendingState bounds a saved checkpoint, its mode's state included,
// in bytes of JSON.
const maxPendingState = 512 << 10

// tooLargeToSave is the note a run keeps when its point is not saved.
func tooLargeToSave(p checkpoint.Point, size int) transcript.Entry {
	return transcript.Entry{Kind: transcript.KindNote, Speaker: transcript.SpeakerSystem, Round: p.Round,
		Text: fmt.Sprintf("The run's state at this checkpoint is %d KiB, over the %d KiB a session saves: it waits for its host in this process only (a process that ends here cannot go on from it).",
			(size+1023)>>10, maxPendingState>>10)}
}
