// Package catalog keeps Parley's model catalogue current: it fetches
// catwalk's provider database (`parley models update`, catwalk's own types)
// with its ETag, reads at most 8 MiB of it strictly and refuses a bad,
// partial or unsafe answer, keeps the last good one in the user's cache
// directory (checked again whenever it is read), and lays Parley's own
// dated entries over it (providers.Overlay) whenever the configuration is
// loaded.
package catalog

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"charm.land/catwalk/pkg/catwalk"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/providers"
)

// DefaultURL is Charm's public catwalk service.
const DefaultURL = "https://catwalk.charm.sh"

// Needed are the catwalk providers Parley's own providers are: an answer
// without any of them is partial and refused.
var Needed = []string{"openai", "anthropic", "gemini"}

// MaxAge is how old the kept catalogue may get before catalog.auto_update
// fetches it again.
const MaxAge = 24 * time.Hour

// cached is the file kept in the cache directory: the providers Parley
// uses, trimmed to the fields it reads.
type cached struct {
	Source    string             `json:"source"`
	Fetched   time.Time          `json:"fetched"`
	Dated     string             `json:"dated,omitempty"` // the source's Last-Modified day
	ETag      string             `json:"etag"`
	Providers []catwalk.Provider `json:"providers"`
}

// URL is where to fetch from: --source, else $CATWALK_URL, else Charm's.
func URL(flag string, getenv func(string) string) string {
	return strings.TrimRight(cmp.Or(flag, getenv("CATWALK_URL"), DefaultURL), "/")
}

// Path is the kept catalogue's file: $PARLEY_CACHE_DIR/catwalk.json, else
// parley/catwalk.json in the user's cache directory.
func Path(getenv func(string) string) (string, error) {
	if dir := getenv("PARLEY_CACHE_DIR"); dir != "" {
		return filepath.Join(dir, "catwalk.json"), nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "parley", "catwalk.json"), nil
}

// Result is what an update did.
type Result struct {
	Source    string
	Fetched   time.Time
	Dated     string // the source's own date of its data ("" none given)
	Unchanged bool   // the server answered 304: the kept catalogue is current
	Providers int    // of those Parley uses (openai, anthropic, gemini)
	Models    int    // theirs, kept
}

// Update fetches source's /v2/providers, sending the kept catalogue's ETag
// when it came from source, checks the answer (fetch, Parse) and keeps the
// providers Parley uses. On any error the kept file is left as it was.
func Update(ctx context.Context, source string, now time.Time, getenv func(string) string) (Result, error) {
	path, err := Path(getenv)
	if err != nil {
		return Result{}, err
	}
	prev, _ := read(path) // a missing, unreadable or refused file: fetch everything
	etag := ""
	if prev != nil && prev.Source == source {
		etag = prev.ETag
	}
	ans, err := fetch(ctx, source, etag, now)
	if err != nil {
		return Result{}, fmt.Errorf("refused the answer of %s/v2/providers (the catalogue kept is unchanged): %w", clip(source), err)
	}
	if ans.notModified {
		prev.Fetched = now.UTC() // confirmed current today
		return summary(prev, true), write(path, prev)
	}
	c := &cached{Source: source, Fetched: now.UTC(), Dated: ans.dated, ETag: ans.etag, Providers: keep(ans.providers)}
	return summary(c, false), write(path, c)
}

// keep is the providers Parley uses, with only the fields it reads (no
// names, endpoints, headers or options).
func keep(provs []catwalk.Provider) []catwalk.Provider {
	var out []catwalk.Provider
	for _, p := range provs {
		if !slices.Contains(Needed, string(p.ID)) {
			continue
		}
		k := catwalk.Provider{ID: p.ID, Models: make([]catwalk.Model, 0, len(p.Models))}
		for _, m := range p.Models {
			k.Models = append(k.Models, catwalk.Model{ID: m.ID, CostPer1MIn: m.CostPer1MIn, CostPer1MOut: m.CostPer1MOut,
				CostPer1MInCached: m.CostPer1MInCached, CostPer1MOutCached: m.CostPer1MOutCached,
				ContextWindow: m.ContextWindow, DefaultMaxTokens: m.DefaultMaxTokens, ReasoningLevels: m.ReasoningLevels})
		}
		out = append(out, k)
	}
	return out
}

func summary(c *cached, unchanged bool) Result {
	r := Result{Source: c.Source, Fetched: c.Fetched, Dated: c.Dated, Unchanged: unchanged, Providers: len(c.Providers)}
	for _, p := range c.Providers {
		r.Models += len(p.Models)
	}
	return r
}

// Kept returns the kept catalogue as a snapshot of the providers Parley
// uses; ok is false when there is none.
func Kept(getenv func(string) string) (snap providers.Snapshot, ok bool, err error) {
	path, err := Path(getenv)
	if err != nil {
		return snap, false, nil
	}
	c, err := read(path)
	if c == nil {
		return snap, false, err
	}
	snap = providers.Snapshot{Source: c.Source + "/v2/providers", Fetched: c.Fetched, Dated: c.Dated}
	for _, p := range c.Providers {
		if !slices.Contains(Needed, string(p.ID)) {
			continue
		}
		for _, m := range p.Models {
			snap.Models = append(snap.Models, providers.Fetched{
				Provider: string(p.ID), ID: m.ID,
				Input: m.CostPer1MIn, Output: m.CostPer1MOut,
				// catwalk's "in_cached" is the cache write, "out_cached" the read.
				CacheWrite: m.CostPer1MInCached, CachedInput: m.CostPer1MOutCached,
				Context: int(m.ContextWindow), MaxOutput: int(m.DefaultMaxTokens), Efforts: m.ReasoningLevels,
			})
		}
	}
	return snap, true, nil
}

// Apply lays cfg's catalogue over the kept one, so costs, caps, doctor
// and bench read the merged catalogue; a kept file that cannot be read is
// a warning, never an error.
func Apply(cfg *config.Config, getenv func(string) string) (warning string) {
	snap, ok, err := Kept(getenv)
	if err != nil {
		return "the kept model catalogue is unreadable, using the built-in one: " + err.Error()
	}
	if ok {
		cfg.Models = providers.Overlay(cfg.Models, snap)
	}
	return ""
}

// Due reports whether catalog.auto_update should fetch now: on, not under
// CI, and the kept catalogue missing or older than MaxAge.
func Due(cfg *config.Config, now time.Time, getenv func(string) string) bool {
	if !cfg.Catalog.AutoUpdate || getenv("CI") != "" {
		return false
	}
	snap, ok, _ := Kept(getenv)
	return !ok || now.Sub(snap.Fetched) > MaxAge
}

// read is the kept file, checked as a fetched answer is (a copy that was
// tampered with, or is left from an older Parley, is refused, not used);
// nil when there is none.
func read(path string) (*cached, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close() //nolint:errcheck // read-only
	data, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("%s is more than %d bytes (8 MiB); run parley models update", path, MaxBytes)
	}
	var c cached
	if err := decodeOne(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := checkKept(&c); err != nil {
		return nil, fmt.Errorf("%s: %w; run parley models update", path, err)
	}
	return &c, nil
}

func checkKept(c *cached) error {
	if err := checkSource(c.Source); err != nil {
		return err
	}
	if _, err := time.Parse("2006-01-02", c.Dated); c.Dated != "" && err != nil {
		return fmt.Errorf("its date %q is not YYYY-MM-DD", clip(c.Dated))
	}
	if !safeETag(c.ETag) {
		return errors.New("its ETag is not printable ASCII")
	}
	return Validate(c.Providers)
}

// write replaces the file whole (a rename), so a reader or a crash never
// sees half of it.
func write(path string, c *cached) error {
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".catwalk-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) //nolint:errcheck // gone after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close() //nolint:errcheck
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
