package web

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/parleyhq/parley/internal/lazyregexp"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers"
)

// CSP is sent with every response: scripts and styles only from files of
// this server, nothing inline, no plugins, no framing, no <base>.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// pages are the parsed templates, parsed on first use: every command of
// the binary links this package, and only parley serve shows a page
// (parsing them took ~5 ms of each command's start-up; issue 50).
var pages = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		// slug makes a class name of a verdict ("NO CONSENSUS" → "NO-CONSENSUS").
		"slug": func(s string) string { return strings.Join(strings.Fields(s), "-") },
		"join": strings.Join,
		// same reports whether a panel's role only repeats its name ("MC").
		"same": func(role string, names ...string) bool {
			return slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(role, n) })
		},
	}).ParseFS(templateFiles, "templates/*.html"))
})

type handler struct {
	backend Backend
	opts    Options
	mux     *http.ServeMux
}

// New returns the web view: "/" (sessions), "/s/{id}" (one session),
// "/s/{id}/entry/{turn}" (one finished turn as an HTML fragment, for the
// script), "/s/{id}/agents.css" (the panels' colours), "/compare?a=ID&b=ID"
// and "/static/…". Every response carries the CSP.
func New(b Backend, opts Options) http.Handler {
	if opts.APIBase == "" {
		opts.APIBase = "/api/v1"
	}
	h := &handler{backend: b, opts: opts, mux: http.NewServeMux()}
	static, _ := fs.Sub(staticFiles, "static")
	h.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	h.mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		// Browsers ask for it on pages without a <link rel="icon">.
		http.Redirect(w, r, "/static/favicon.svg", http.StatusMovedPermanently)
	})
	h.mux.HandleFunc("GET /{$}", h.sessions)
	h.mux.HandleFunc("GET /s/{id}", h.session)
	h.mux.HandleFunc("GET /s/{id}/entry/{turn}", h.entry)
	h.mux.HandleFunc("GET /s/{id}/agents.css", h.agentCSS)
	h.mux.HandleFunc("GET /compare", h.compare)
	return h
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Security-Policy", CSP)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("X-Frame-Options", "DENY")
	h.mux.ServeHTTP(w, r)
}

// render executes a page into a buffer first, so a template error is a
// clean 500 rather than half a page.
func (h *handler) render(w http.ResponseWriter, name string, data any) {
	if page, ok := data.(map[string]any); ok {
		page["SignOut"] = h.opts.SignOut
	}
	var buf bytes.Buffer
	if err := pages().ExecuteTemplate(&buf, name, data); err != nil {
		log.Printf("web: render %s: %v", name, err)
		http.Error(w, "internal error rendering the page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	// Bidi and hidden format controls in model text never reach the
	// page (Trojan Source); stripping them keeps the markup whole.
	_, _ = io.WriteString(w, sanitize.Visible(buf.String()))
}

func (h *handler) fail(w http.ResponseWriter, err error) {
	if errors.Is(err, ErrNotFound) {
		http.Error(w, "no such session", http.StatusNotFound)
		return
	}
	log.Printf("web: %v", err)
	http.Error(w, "could not load the session", http.StatusInternalServerError)
}

func (h *handler) sessions(w http.ResponseWriter, r *http.Request) {
	list, err := h.backend.ListSessions(r.Context())
	if err != nil {
		h.fail(w, err)
		return
	}
	h.render(w, "sessions", map[string]any{
		"Title": "Sessions", "API": h.opts.APIBase, "UserID": h.opts.UserID, "Modes": h.opts.Modes.Infos(), "Sessions": list,
	})
}

func (h *handler) session(w http.ResponseWriter, r *http.Request) {
	sv, err := h.backend.LoadSession(r.Context(), r.PathValue("id"))
	if err != nil {
		h.fail(w, err)
		return
	}
	mode, _ := h.opts.Modes.Info(sv.Info.Mode)
	title := sv.Info.Title
	if title == "" {
		title = "session " + sv.Info.ID
	}
	data := map[string]any{
		"API": h.opts.APIBase, "UserID": h.opts.UserID, "LastEventID": sv.LastEventID,
		"Info": sv.Info, "Busy": sv.Busy, "Title": title, "Spend": spendText(sv.Spend), "AgentCSS": "/s/" + url.PathEscape(sv.Info.ID) + "/agents.css",
		"Panels": viewPanels(h.opts.Modes, sv.Panels, sv.Entries), "Entries": viewEntries(sv.Entries), "Evidence": ledgerOf(sv.Entries),
		"Input": mode.Input, "Controls": mode.Controls, "Modes": h.opts.Modes.Infos(),
		"TakesN":     mode.Accepts(config.ControlRounds) || mode.Accepts(config.ControlSteps),
		"Checkpoint": "",
	}
	if sv.Checkpoint != nil {
		b, _ := debate.MarshalEvent(*sv.Checkpoint) // a data attribute, escaped by the template
		data["Checkpoint"] = string(b)
	}
	// The mode's outcome board: a vote table (MAGI) or a ranking (council).
	votes := mode.Layout.Board == config.BoardVotes
	data["Board"], data["RankingRound"], data["VoteBoard"] = mode.Layout.Board, mode.Layout.RankingRound, votes
	if votes {
		if cs := councils(h.opts.Modes, sv.Entries, sv.Panels); len(cs) > 0 {
			data["Council"] = cs[len(cs)-1]
		}
		empty := &council{}
		for _, p := range sv.Panels {
			empty.row(p.Name, label(p.Display, p.Name))
		}
		empty.finish()
		data["EmptyCouncil"] = empty
	}
	if mode.Layout.Board == config.BoardRanking {
		councilData(data, sv)
	}
	h.render(w, "session", data)
}

// councilData puts the chairman's panel apart, at the top as the council's
// answer, and the latest council's ranking and fallback on the page.
func councilData(data map[string]any, sv SessionView) {
	panels := data["Panels"].([]panelView)
	var members []panelView
	for _, p := range panels {
		if p.Role == "chairman" {
			data["Chair"] = p
		} else {
			members = append(members, p)
		}
	}
	data["Panels"] = members
	data["Council"] = &councilPage{}
	if cs := verdict.CouncilsOf(sv.Entries); len(cs) > 0 {
		data["Council"] = viewCouncil(cs[len(cs)-1], sv.Entries)
	}
}

// hexColor is the only colour form agents.css takes from the configuration.
var hexColor = lazyregexp.New(`^#[0-9A-Fa-f]{3}(?:[0-9A-Fa-f]{3})?$`)

// agentCSS gives each panel its agent's configured colour. It is a
// stylesheet of its own because the CSP allows no style attribute, and it
// selects panels by position so no name ever reaches CSS.
func (h *handler) agentCSS(w http.ResponseWriter, r *http.Request) {
	sv, err := h.backend.LoadSession(r.Context(), r.PathValue("id"))
	if err != nil {
		h.fail(w, err)
		return
	}
	var b strings.Builder
	for i, p := range sv.Panels {
		if hexColor.MatchString(p.Color) {
			fmt.Fprintf(&b, ".agent-%d { --agent: %s; }\n", i, p.Color)
		}
	}
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = io.WriteString(w, b.String())
}

// entry serves one turn as the transcript item the page would have
// rendered, for the script to swap in when the turn finishes.
func (h *handler) entry(w http.ResponseWriter, r *http.Request) {
	turn, err := strconv.Atoi(r.PathValue("turn"))
	if err != nil || turn < 1 {
		http.Error(w, "turn must be a positive number", http.StatusBadRequest)
		return
	}
	sv, err := h.backend.LoadSession(r.Context(), r.PathValue("id"))
	if err != nil {
		h.fail(w, err)
		return
	}
	i := slices.IndexFunc(sv.Entries, func(e transcript.Entry) bool { return e.Turn == turn })
	if i < 0 {
		http.Error(w, "no such turn", http.StatusNotFound)
		return
	}
	h.render(w, "entry", viewEntry(sv.Entries[i]))
}

type compareSide struct {
	Info     debate.SessionInfo
	Councils []*council
	Entries  []entryView
}

func (h *handler) compare(w http.ResponseWriter, r *http.Request) {
	ids := [2]string{r.URL.Query().Get("a"), r.URL.Query().Get("b")}
	if ids[0] == "" || ids[1] == "" {
		http.Error(w, "compare needs two sessions: /compare?a=ID&b=ID", http.StatusBadRequest)
		return
	}
	var views [2]SessionView
	for i, id := range ids {
		sv, err := h.backend.LoadSession(r.Context(), id)
		if err != nil {
			h.fail(w, err)
			return
		}
		views[i] = sv
	}
	shared := sharedTurns(views[0].Info, views[1].Info)
	var sides []compareSide
	for _, sv := range views {
		var rest []transcript.Entry
		for _, e := range sv.Entries {
			if e.Turn > shared {
				rest = append(rest, e)
			}
		}
		// A side shows the councils that voted after the shared turns: a
		// question copied into a fork without its votes draws no board.
		var own []*council
		for _, c := range councils(h.opts.Modes, sv.Entries, sv.Panels) {
			if c.lastTurn > shared {
				own = append(own, c)
			}
		}
		sides = append(sides, compareSide{Info: sv.Info, Councils: own, Entries: viewEntries(rest)})
	}
	h.render(w, "compare", map[string]any{"Title": "Compare", "Sides": sides, "Shared": shared})
}

// sharedTurns is how many leading turns two sessions have in common: a fork
// and its parent share the fork's turns up to the fork point; two forks of
// one parent share up to the earlier fork point.
func sharedTurns(a, b debate.SessionInfo) int {
	switch {
	case a.ID == b.ID:
		return 0
	case b.Parent != "" && b.Parent == a.ID:
		return b.ForkAt
	case a.Parent != "" && a.Parent == b.ID:
		return a.ForkAt
	case a.Parent != "" && a.Parent == b.Parent:
		return min(a.ForkAt, b.ForkAt)
	}
	return 0
}

// spendText is the session page's cost line: "spent $0.0123 of a $0.50
// cap", or the spend alone; "" before anything cost anything. app.js
// writes the same line from the stream's spend events.
func spendText(s debate.SpendUpdated) string {
	spent := providers.FormatSpend(s.SpentUSD, s.Unknown, s.Estimated)
	switch {
	case s.CapUSD > 0:
		return "spent " + spent + " of a " + spend.CapString(s.CapUSD) + " cap"
	case s.SpentUSD > 0 || s.Unknown:
		return "spent " + spent
	}
	return ""
}
