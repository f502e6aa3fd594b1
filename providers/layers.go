package providers

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// CatalogueDate is the day Parley's compiled-in catalogue (config.yaml
// models:) was last checked against the vendors' pages. An entry without
// its own checked date is that old.
const CatalogueDate = "2026-11-28"

// Layers a catalogue figure can come from, lowest first.
const (
	LayerFamily  = "family"  // the rules of the model's family, from its name
	LayerCatwalk = "catwalk" // fetched by `parley models update`
	LayerParley  = "parley"  // Parley's own dated entries (config.yaml or your file)
)

// Origin says where one figure of an entry came from and how old it is.
type Origin struct {
	Layer  string `json:"layer"`
	Source string `json:"source,omitempty"`
	Date   string `json:"date,omitempty"` // YYYY-MM-DD
}

// Figures are the names Origins uses, in display order.
var Figures = []string{"input", "output", "cached_input", "cache_write", "context", "max_output", "efforts"}

// Fetched is one model of a fetched catalogue (catwalk's), in Parley's
// terms: USD per 1M tokens, 0 where the source gives no figure.
type Fetched struct {
	Provider    string
	ID          string
	Input       float64
	Output      float64
	CachedInput float64
	CacheWrite  float64
	Context     int
	MaxOutput   int
	Efforts     []string
}

// Snapshot is a fetched catalogue: where from, when it was fetched, the
// source's own date of its data, and its models.
type Snapshot struct {
	Source  string
	Fetched time.Time
	// Dated is the day the source says its data was last changed
	// (YYYY-MM-DD, never after Fetched); "" when it says nothing. Data
	// fetched today may be months old, so only this date can make a
	// fetched price newer than a dated Parley entry.
	Dated  string
	Models []Fetched
}

// OriginOf is where figure of m came from: the layer Overlay recorded,
// else Parley's own entry (its source page and checked date).
func (m ModelInfo) OriginOf(figure string) Origin {
	if o, ok := m.Origins[figure]; ok {
		return o
	}
	return Origin{Layer: LayerParley, Source: m.Source, Date: cmp.Or(m.Checked, CatalogueDate)}
}

// Overlay lays Parley's own entries over a fetched snapshot, newest fact
// first: lifecycle, dates, dated price changes, cache minimums, long-context
// tiers and APIs are Parley's alone; a price from a snapshot whose own date
// (Dated, not the day it was fetched) is after the entry's checked date
// replaces Parley's (schedules up to that date are in it already), and a
// snapshot without a date of its own never replaces a price; prices,
// limits or an effort ladder Parley leaves open come from the snapshot; a
// model only the snapshot knows is added. A fetched price of 0 is no price (a paid
// model never costs 0), so it never replaces one. own is not changed.
func Overlay(own Catalogue, snap Snapshot) Catalogue {
	out := make(Catalogue, len(own)+len(snap.Models))
	for k, v := range own {
		out[k] = v
	}
	// A figure is as old as the source's data when it says, else as old
	// as the fetch.
	day := cmp.Or(snap.Dated, snap.Fetched.UTC().Format("2006-01-02"))
	from := Origin{Layer: LayerCatwalk, Source: snap.Source, Date: day}
	for _, f := range snap.Models {
		if strings.TrimSpace(f.ID) == "" {
			continue
		}
		key, entry, ok := own.findKey(baseName(f.ID))
		if !ok {
			out[f.ID] = fetchedEntry(f, from)
			continue
		}
		out[key] = overlayEntry(entry, f, from, snap.Dated)
	}
	return out
}

// overlayEntry lays m over f; dated is the snapshot's own date ("" none).
func overlayEntry(m ModelInfo, f Fetched, from Origin, dated string) ModelInfo {
	m.Origins = map[string]Origin{}
	for _, fig := range Figures {
		m.Origins[fig] = m.OriginOf(fig)
	}
	// An entry with no price at all takes the fetched one whatever its
	// date: there is nothing newer to keep.
	if !m.Priced() || (dated != "" && dated > cmp.Or(m.Checked, CatalogueDate)) {
		replaced := false
		for _, p := range []struct {
			fig string
			dst **float64
			v   float64
		}{{"input", &m.Input, f.Input}, {"output", &m.Output, f.Output}, {"cached_input", &m.CachedInput, f.CachedInput}, {"cache_write", &m.CacheWrite, f.CacheWrite}} {
			if p.v > 0 {
				*p.dst, m.Origins[p.fig], replaced = ptr(p.v), from, true
			}
		}
		if replaced { // the fetched price already has every change up to its date
			m.Prices = slices.DeleteFunc(slices.Clone(m.Prices), func(c PriceChange) bool { return c.From <= dated })
		}
	}
	if m.Context == 0 && f.Context > 0 {
		m.Context, m.Origins["context"] = f.Context, from
	}
	if m.MaxOutput == 0 && f.MaxOutput > 0 {
		m.MaxOutput, m.Origins["max_output"] = f.MaxOutput, from
	}
	if efforts := knownEfforts(f.Efforts); m.Efforts == nil && len(efforts) > 0 {
		m.Efforts, m.Origins["efforts"] = efforts, from
	}
	return m
}

func fetchedEntry(f Fetched, from Origin) ModelInfo {
	m := ModelInfo{Provider: f.Provider, Context: f.Context, MaxOutput: f.MaxOutput, Efforts: knownEfforts(f.Efforts),
		Source: from.Source, Checked: from.Date, Origins: map[string]Origin{}}
	if f.Input > 0 || f.Output > 0 {
		m.Input, m.Output = ptr(f.Input), ptr(f.Output)
		if f.CachedInput > 0 {
			m.CachedInput = ptr(f.CachedInput)
		}
		if f.CacheWrite > 0 {
			m.CacheWrite = ptr(f.CacheWrite)
		}
	}
	if len(m.Efforts) == 0 {
		m.Efforts = nil // the family's rule
	}
	for _, fig := range Figures {
		m.Origins[fig] = from
	}
	return m
}

// knownEfforts keeps the levels Parley can send, in ladder order.
func knownEfforts(levels []string) []string {
	var out []string
	for _, l := range EffortLevels {
		if slices.Contains(levels, l) {
			out = append(out, l)
		}
	}
	return out
}

// findKey is find that also returns the catalogue key it matched.
func (c Catalogue) findKey(name string) (string, ModelInfo, bool) {
	bestKey, bestLen := "", -1
	for key := range c {
		k := strings.ToLower(key)
		if k == name {
			return key, c[key], true
		}
		if strings.HasPrefix(name, k) && snapshotSuffix().MatchString(name[len(k):]) && len(k) > bestLen {
			bestKey, bestLen = key, len(k)
		}
	}
	if bestLen < 0 {
		return "", ModelInfo{}, false
	}
	return bestKey, c[bestKey], true
}

func ptr(v float64) *float64 { return &v }

// Entry is the catalogue's own entry for model (a dated snapshot finds
// its model's), before the family rules fill it: key is its name in c.
func (c Catalogue) Entry(model string) (key string, raw ModelInfo, ok bool) {
	return c.findKey(baseName(model))
}

// FigureOrigin is where figure of model's looked-up entry came from: the
// family rules when the entry leaves it open, else OriginOf.
func (c Catalogue) FigureOrigin(model, figure string) Origin {
	_, raw, ok := c.Entry(model)
	if !ok {
		return Origin{Layer: LayerFamily}
	}
	open := map[string]bool{"efforts": raw.Efforts == nil, "max_output": raw.MaxOutput == 0, "context": raw.Context == 0}
	if open[figure] {
		return Origin{Layer: LayerFamily}
	}
	return raw.OriginOf(figure)
}
