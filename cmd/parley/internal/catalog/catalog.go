// Package catalog keeps Parley's model catalogue current: it fetches
// catwalk's provider database (`parley models update`) through the catwalk
// client with its ETag, refuses a bad or partial answer, keeps the last good
// one in the user's cache directory, and lays Parley's own dated entries over
// it (providers.Overlay) whenever the configuration is loaded.
package catalog

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"charm.land/catwalk/pkg/catwalk"

	"github.com/parleyhq/parley/debate"
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

// cached is the file kept in the cache directory.
type cached struct {
	Source    string             `json:"source"`
	Fetched   time.Time          `json:"fetched"`
	ETag      string             `json:"etag"`
	Providers []catwalk.Provider `json:"providers"`
}

// URL is where to fetch from: --source, else $CATWALK_URL, else Charm's.
func URL(flag string) string {
	return strings.TrimRight(cmp.Or(flag, os.Getenv("CATWALK_URL"), DefaultURL), "/")
}

// Path is the kept catalogue's file: $PARLEY_CACHE_DIR/catwalk.json, else
// parley/catwalk.json in the user's cache directory.
func Path() (string, error) {
	if dir := os.Getenv("PARLEY_CACHE_DIR"); dir != "" {
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
	Unchanged bool // the server answered 304: the kept catalogue is current
	Providers int
	Models    int
}

// Update fetches source's /v2/providers, sending the kept catalogue's ETag,
// validates the answer and keeps it. On any error the kept file is left as
// it was.
func Update(ctx context.Context, source string, now time.Time) (Result, error) {
	path, err := Path()
	if err != nil {
		return Result{}, err
	}
	prev, _ := read(path) // a missing or unreadable file: fetch everything
	etag := ""
	if prev != nil && prev.Source == source {
		etag = prev.ETag
	}
	provs, err := catwalk.NewWithURL(source).GetProviders(ctx, etag)
	if errors.Is(err, catwalk.ErrNotModified) && prev != nil {
		prev.Fetched = now.UTC() // confirmed current today
		return summary(prev, true), write(path, prev)
	}
	if err != nil {
		return Result{}, fmt.Errorf("fetching %s/v2/providers: %w", source, err)
	}
	if err := Validate(provs); err != nil {
		return Result{}, fmt.Errorf("refused the answer of %s (the catalogue kept is unchanged): %w", source, err)
	}
	body, err := json.Marshal(provs)
	if err != nil {
		return Result{}, err
	}
	c := &cached{Source: source, Fetched: now.UTC(), ETag: catwalk.Etag(body), Providers: provs}
	return summary(c, false), write(path, c)
}

func summary(c *cached, unchanged bool) Result {
	r := Result{Source: c.Source, Fetched: c.Fetched, Unchanged: unchanged, Providers: len(c.Providers)}
	for _, p := range c.Providers {
		r.Models += len(p.Models)
	}
	return r
}

// Validate refuses an answer Parley should not price with: a provider it
// needs missing or empty, an empty id, a negative or non-finite price or
// limit.
func Validate(provs []catwalk.Provider) error {
	for _, need := range Needed {
		i := slices.IndexFunc(provs, func(p catwalk.Provider) bool { return string(p.ID) == need })
		if i < 0 || len(provs[i].Models) == 0 {
			return fmt.Errorf("provider %s is missing or has no models", need)
		}
	}
	for _, p := range provs {
		if strings.TrimSpace(string(p.ID)) == "" {
			return errors.New("a provider has an empty id")
		}
		for _, m := range p.Models {
			if strings.TrimSpace(m.ID) == "" {
				return fmt.Errorf("provider %s: a model has an empty id", p.ID)
			}
			for _, v := range []float64{m.CostPer1MIn, m.CostPer1MOut, m.CostPer1MInCached, m.CostPer1MOutCached} {
				if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("%s/%s: price %v", p.ID, m.ID, v)
				}
			}
			if m.ContextWindow < 0 || m.DefaultMaxTokens < 0 {
				return fmt.Errorf("%s/%s: negative token limit", p.ID, m.ID)
			}
		}
	}
	return nil
}

// Kept returns the kept catalogue as a snapshot of the providers Parley
// uses; ok is false when there is none.
func Kept() (snap providers.Snapshot, ok bool, err error) {
	path, err := Path()
	if err != nil {
		return snap, false, nil
	}
	c, err := read(path)
	if c == nil {
		return snap, false, err
	}
	snap = providers.Snapshot{Source: c.Source + "/v2/providers", Fetched: c.Fetched}
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
func Apply(cfg *debate.Config) (warning string) {
	snap, ok, err := Kept()
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
func Due(cfg *debate.Config, now time.Time, getenv func(string) string) bool {
	if !cfg.Catalog.AutoUpdate || getenv("CI") != "" {
		return false
	}
	snap, ok, _ := Kept()
	return !ok || now.Sub(snap.Fetched) > MaxAge
}

func read(path string) (*cached, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var c cached
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &c, nil
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
