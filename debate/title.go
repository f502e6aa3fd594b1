package debate

// A session's title: taken once from its first question, or chosen by the
// user (rename, /title), bounded to MaxTitleRunes.

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/sanitize"
)

// SetTitle names the session once, from the first question it was asked:
// "MODE · question…" (the question itself stays whole in the log) and,
// for talks, sets the topic.
func (e *Engine) SetTitle(question, topic string) {
	e.mu.Lock()
	changed := false
	if e.info.Title == "" && strings.TrimSpace(question) != "" {
		e.info.Title = TitleFor(e.info.Mode, question)
		changed = true
	}
	if topic != "" && e.info.Topic != topic {
		e.info.Topic = topic
		changed = true
	}
	e.mu.Unlock()
	if changed {
		e.Emit(SessionUpdated{Session: e.Info()})
	}
}

// Rename gives the session the title the user chose, replacing the one
// taken from its first question; the store saves it from the event.
func (e *Engine) Rename(title string) error {
	title, err := CheckTitle(title)
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.info.Title = title
	e.mu.Unlock()
	e.Emit(SessionUpdated{Session: e.Info()})
	return nil
}

// retitled is a session's title after a switch from mode from to mode to:
// a title taken from the first question names its mode ("magi · …") and
// follows the switch; a title the user chose stays as it is.
func retitled(title, from, to string) string {
	if q, ok := strings.CutPrefix(title, from+" · "); ok && from != "" && from != to {
		return to + " · " + q
	}
	return title
}

// titleWidth is how many characters of the question a title keeps.
const titleWidth = 60

// TitleFor is the title a session started in mode by question gets:
// "magi · should we migrate…", the question's first line cut at a word
// boundary near titleWidth characters.
func TitleFor(mode, question string) string {
	q := strings.Join(strings.Fields(sanitize.FirstLine(question, 1<<20)), " ")
	if r := []rune(q); len(r) > titleWidth {
		cut := string(r[:titleWidth])
		if i := strings.LastIndexByte(cut, ' '); i >= titleWidth/2 {
			cut = cut[:i]
		}
		q = strings.TrimRight(cut, " ,;:.-") + "…"
	}
	if mode == "" {
		return q
	}
	return mode + " · " + q
}

// CheckTitle is a title a person chose (rename, import, the API), its
// spaces collapsed, or why it is refused: empty, or over MaxTitleRunes
// characters. Every door that takes a title checks it here, so the bound
// the docs promise holds everywhere.
func CheckTitle(title string) (string, error) {
	title = strings.Join(strings.Fields(title), " ")
	if title == "" {
		return "", errors.New("a title needs at least one word")
	}
	if n := utf8.RuneCountInString(title); n > config.MaxTitleRunes {
		return "", fmt.Errorf("a title has at most %d characters (this one has %d)", config.MaxTitleRunes, n)
	}
	return title, nil
}
