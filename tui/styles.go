package tui

import (
	"strings"
	"sync"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// Palette of the console. One dark theme: the terminal's background is not
// queried (that would be I/O at start-up and makes screens differ between
// terminals).
const (
	hexAccent = "#7D56F4"
	hexMuted  = "#6C6C6C"
	hexSubtle = "#3A3A3A"
	hexText   = "#DADADA"
	hexWarn   = "#EAB308"
	hexError  = "#EF4444"
	hexOK     = "#22C55E"
	hexUser   = "#E5E5E5"
	hexAgent  = "#A3A3A3" // agents without a colour
)

// ink is a style reduced to the escape sequences around its text. Styling
// a piece of a line is then two string joins, not a lipgloss render (which
// measures and wraps, and costs microseconds each: too much at 60 frames a
// second). Only single-line text is painted with it.
type ink struct{ pre, post string }

func newInk(st lipgloss.Style) ink {
	r := st.Render("\x00")
	i := strings.IndexByte(r, 0)
	if i < 0 {
		return ink{}
	}
	return ink{pre: r[:i], post: r[i+1:]}
}

// Render paints s.
func (k ink) Render(s string) string {
	if s == "" {
		return ""
	}
	return k.pre + s + k.post
}

var styles = struct {
	tabActive, tabIdle, title, muted, mutedBold, subtle ink
	warn, warnBold, err, errBold, ok, okBold, bold      ink
	banner, status, selected, user                      ink
	okBanner, errBanner, warnBanner, found              ink
}{
	tabActive:  newInk(lipgloss.NewStyle().Foreground(lipgloss.Color("#FFFFFF")).Background(lipgloss.Color(hexAccent)).Bold(true)),
	tabIdle:    fg(hexMuted),
	title:      newInk(lipgloss.NewStyle().Foreground(lipgloss.Color(hexText)).Bold(true)),
	muted:      fg(hexMuted),
	mutedBold:  newInk(lipgloss.NewStyle().Foreground(lipgloss.Color(hexMuted)).Bold(true)),
	subtle:     fg(hexSubtle),
	warn:       fg(hexWarn),
	warnBold:   newInk(lipgloss.NewStyle().Foreground(lipgloss.Color(hexWarn)).Bold(true)),
	err:        fg(hexError),
	errBold:    newInk(lipgloss.NewStyle().Foreground(lipgloss.Color(hexError)).Bold(true)),
	ok:         fg(hexOK),
	okBold:     newInk(lipgloss.NewStyle().Foreground(lipgloss.Color(hexOK)).Bold(true)),
	bold:       newInk(lipgloss.NewStyle().Bold(true)),
	banner:     newInk(lipgloss.NewStyle().Foreground(lipgloss.Color(hexWarn)).Background(lipgloss.Color("#1F1F1F")).Bold(true)),
	status:     fg(hexMuted),
	selected:   newInk(lipgloss.NewStyle().Foreground(lipgloss.Color(hexAccent)).Bold(true)),
	user:       newInk(lipgloss.NewStyle().Foreground(lipgloss.Color(hexUser)).Bold(true)),
	okBanner:   newInk(lipgloss.NewStyle().Foreground(lipgloss.Color(hexOK)).Bold(true).Reverse(true)),
	errBanner:  newInk(lipgloss.NewStyle().Foreground(lipgloss.Color(hexError)).Bold(true).Reverse(true)),
	warnBanner: newInk(lipgloss.NewStyle().Foreground(lipgloss.Color(hexWarn)).Bold(true).Reverse(true)),
	found:      newInk(lipgloss.NewStyle().Foreground(lipgloss.Color(hexWarn)).Reverse(true)),
}

// helpStyles are the key help's colours for a dark or a light background:
// greys with a contrast of at least 4.5:1 on either (bubbles' defaults put
// the descriptions in #4A4A4A, 2.4:1 on black, unreadable on dark
// terminals).
func helpStyles(dark bool) help.Styles {
	key, desc := lipgloss.Color("#BCBCBC"), lipgloss.Color("#949494")
	if !dark {
		key, desc = lipgloss.Color("#303030"), lipgloss.Color("#585858")
	}
	k, d := lipgloss.NewStyle().Foreground(key), lipgloss.NewStyle().Foreground(desc)
	s := d
	return help.Styles{
		Ellipsis: s, ShortKey: k, ShortDesc: d, ShortSeparator: s,
		FullKey: k, FullDesc: d, FullSeparator: s,
	}
}

func fg(hex string) ink { return newInk(lipgloss.NewStyle().Foreground(lipgloss.Color(hex))) }

// colorInk returns the (cached) ink of a colour, e.g. an agent's.
func colorInk(hex string, bold, reverse bool) ink {
	if hex == "" {
		hex = hexAgent
	}
	key := inkKey{hex, bold, reverse}
	inkMu.Lock()
	defer inkMu.Unlock()
	if k, ok := inks[key]; ok {
		return k
	}
	k := newInk(lipgloss.NewStyle().Foreground(lipgloss.Color(hex)).Bold(bold).Reverse(reverse))
	inks[key] = k
	return k
}

type inkKey struct {
	hex           string
	bold, reverse bool
}

var (
	inkMu sync.Mutex
	inks  = map[inkKey]ink{}
)
