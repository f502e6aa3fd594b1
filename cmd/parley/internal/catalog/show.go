package catalog

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/providers"
)

// TableWidth is the most columns a line of Table takes.
const TableWidth = 100

// column widths of Table; with the seven spaces between them they add up
// to TableWidth.
var widths = []int{9, 22, 11, 10, 5, 9, 14, 13}

// Row is one model as `parley models` shows it (also its --json form).
type Row struct {
	Model string `json:"model"`
	providers.ModelInfo
	StatusNow string                      `json:"status_now"`
	Schedule  []providers.PriceChange     `json:"price_changes,omitempty"`
	Figures   map[string]providers.Origin `json:"figure_origins"`
}

// Rows lists every model of cat, by provider then name, as seen on day now.
func Rows(cat providers.Catalogue, now time.Time) []Row {
	names := make([]string, 0, len(cat))
	for name := range cat {
		names = append(names, name)
	}
	rows := make([]Row, 0, len(names))
	for _, name := range names {
		rows = append(rows, RowOf(cat, name, now))
	}
	slices.SortFunc(rows, func(a, b Row) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Model, b.Model))
	})
	return rows
}

// RowOf is model's merged entry with the prices in force on day now and
// the origin of each figure.
func RowOf(cat providers.Catalogue, model string, now time.Time) Row {
	full := cat.Lookup(model)
	info := full.At(now)
	r := Row{Model: model, ModelInfo: info, StatusNow: info.StatusAt(now), Schedule: full.Prices, Figures: map[string]providers.Origin{}}
	for _, fig := range providers.Figures {
		r.Figures[fig] = cat.FigureOrigin(model, fig)
	}
	return r
}

// Table writes rows as a table that fits TableWidth columns, with a legend.
func Table(w io.Writer, rows []Row) {
	line(w, "PROVIDER", "MODEL", "IN/OUT $/M", "CACHE R/W", "CTX", "EFFORTS", "STATUS", "PRICE FROM")
	for _, r := range rows {
		line(w, cmp.Or(r.Provider, "-"), r.Model, pair(r.Input, r.Output), pair(r.CachedInput, r.CacheWrite),
			tokens(r.Context), efforts(r.Efforts), status(r), from(r))
	}
	fmt.Fprintln(w, "\nUSD per 1M tokens, in force today. dep DATE: deprecated, shuts down on DATE; off: shut down.")
	fmt.Fprintln(w, "PRICE FROM: parley (Parley's own dated entry), catwalk (fetched by `parley models update`).")
	fmt.Fprintln(w, "`parley models MODEL` shows every figure with its source page and date; --json all of it.")
}

func line(w io.Writer, cells ...string) {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = fit(c, widths[i])
	}
	fmt.Fprintln(w, strings.TrimRight(strings.Join(out, " "), " "))
}

// fit pads or cuts s to n columns (a cut ends in "…").
func fit(s string, n int) string {
	if utf8.RuneCountInString(s) > n {
		return string([]rune(s)[:n-1]) + "…"
	}
	return s + strings.Repeat(" ", n-utf8.RuneCountInString(s))
}

func money(p *float64) string {
	if p == nil {
		return "-"
	}
	s := strconv.FormatFloat(*p, 'f', -1, 64)
	switch i := strings.IndexByte(s, '.'); {
	case i < 0:
		s += ".00"
	case len(s)-i == 2:
		s += "0"
	}
	return s
}

func pair(a, b *float64) string {
	if a == nil && b == nil {
		return "?"
	}
	return money(a) + "/" + money(b)
}

func tokens(n int) string {
	switch {
	case n <= 0:
		return "-"
	case n >= 1_000_000 && n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + "M"
	case n >= 1_000_000:
		return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", float64(n)/1e6), "0"), ".") + "M"
	}
	return strconv.Itoa(n/1000) + "K"
}

// short are the effort levels as the table writes them.
var short = map[string]string{"low": "lo", "medium": "med", "high": "hi", "xhigh": "xhi", "max": "max"}

// efforts writes the levels as runs of the ladder: "lo-max", "lo-hi,max".
func efforts(levels []string) string {
	if len(levels) == 0 {
		return "-"
	}
	var runs []string
	for i := 0; i < len(levels); {
		j := i
		for j+1 < len(levels) && slices.Index(providers.EffortLevels, levels[j+1]) == slices.Index(providers.EffortLevels, levels[j])+1 {
			j++
		}
		run := cmp.Or(short[levels[i]], levels[i])
		if j > i {
			run += "-" + cmp.Or(short[levels[j]], levels[j])
		}
		runs = append(runs, run)
		i = j + 1
	}
	return strings.Join(runs, ",")
}

func status(r Row) string {
	switch {
	case r.StatusNow == "shutdown" && r.Shutdown != "":
		return "off " + r.Shutdown
	case r.StatusNow == "shutdown":
		return "off"
	case r.Shutdown != "":
		return "dep " + r.Shutdown
	}
	return r.StatusNow
}

func from(r Row) string {
	o := r.Figures["input"]
	if o.Layer == providers.LayerFamily || r.Input == nil {
		return "-"
	}
	if len(o.Date) == len("2006-01-02") {
		return o.Layer + " " + o.Date[5:] // the year is this one or the last
	}
	return o.Layer
}

// JSON writes rows as a JSON array.
func JSON(w io.Writer, rows []Row) error {
	enc := json.NewEncoder(sanitize.JSONWriter(w)) // a catalogue's text is from outside
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}

// Describe writes one model's entry with the layer, source and date of
// each figure.
func Describe(w io.Writer, r Row, known bool) {
	fmt.Fprintf(w, "%s (%s)\n", r.Model, cmp.Or(r.Provider, "no provider known"))
	if !known {
		fmt.Fprintln(w, "  not in the catalogue: the rules of its family only, no price")
	}
	fmt.Fprintf(w, "  %-13s %s\n", "status", statusLong(r))
	figures := map[string]string{
		"input": money(r.Input), "output": money(r.Output), "cached_input": money(r.CachedInput), "cache_write": money(r.CacheWrite),
		"context": tokens(r.Context), "max_output": tokens(r.MaxOutput), "efforts": strings.Join(r.Efforts, ","),
	}
	for _, fig := range providers.Figures {
		o := r.Figures[fig]
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("  %-13s %-10s %-8s %-10s %s", fig, cmp.Or(figures[fig], "-"), o.Layer, o.Date, o.Source), " "))
	}
	if lc := r.LongContext; lc != nil {
		fmt.Fprintf(w, "  %-13s above %d input tokens: input x%g, output x%g (parley)\n", "long_context", lc.Above, lc.Input, lc.Output)
	}
	for _, c := range r.Schedule {
		fmt.Fprintf(w, "  %-13s from %s: input %s, cached %s, output %s (parley)\n", "price_change", c.From, money(c.Input), money(c.CachedInput), money(c.Output))
	}
	if r.CacheMin > 0 {
		fmt.Fprintf(w, "  %-13s %d tokens\n", "cache_min", r.CacheMin)
	}
	if api := cmp.Or(r.API, r.ToolsAPI); api != "" {
		fmt.Fprintf(w, "  %-13s api %s, tools %s\n", "api", cmp.Or(r.API, "the provider's"), cmp.Or(r.ToolsAPI, cmp.Or(r.API, "the provider's")))
	}
}

func statusLong(r Row) string {
	s := r.StatusNow
	for _, d := range []struct{ what, day string }{{"deprecated", r.Deprecated}, {"shutdown", r.Shutdown}, {"replacement", r.Replacement}} {
		if d.day != "" {
			s += ", " + d.what + " " + d.day
		}
	}
	return s
}
