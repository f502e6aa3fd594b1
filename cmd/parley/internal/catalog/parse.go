package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/catwalk/pkg/catwalk"

	"github.com/parleyhq/parley/debate/figures"
	"github.com/parleyhq/parley/providers"
)

// MaxBytes is the largest catalogue Parley reads, fetched or kept:
// catwalk's whole database is well under 1 MiB, and every command reads the
// kept copy, so a bigger one is refused rather than slowing them all.
const MaxBytes = 8 << 20

// Parse reads a catalogue answer: exactly one JSON array of providers
// (nothing but white space after it), at most MaxBytes, then checked by
// Validate. It is the one door for catalogue text from outside.
func Parse(data []byte) ([]catwalk.Provider, error) {
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("it is %d bytes, more than %d (8 MiB)", len(data), MaxBytes)
	}
	var provs []catwalk.Provider
	if err := decodeOne(data, &provs); err != nil {
		return nil, err
	}
	if err := Validate(provs); err != nil {
		return nil, err
	}
	return provs, nil
}

// decodeOne decodes data's one JSON value into v and refuses anything but
// white space after it (a second value, garbage, a truncated copy joined
// to a whole one).
func decodeOne(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not a JSON catalogue: %w", err)
	}
	if rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return fmt.Errorf("%d bytes follow the JSON catalogue", len(rest))
	}
	return nil
}

// Validate refuses an answer Parley should not price with: a provider it
// needs missing or empty; an id (provider or model) outside the safe
// alphabet (providers.CheckID) or given twice (ids compare as Lookup
// does, ignoring case); a price or token limit debate/figures refuses
// (NaN, ±Inf, negative, over $10,000 per 1M tokens or 100M tokens).
func Validate(provs []catwalk.Provider) error {
	for _, need := range Needed {
		i := slices.IndexFunc(provs, func(p catwalk.Provider) bool { return string(p.ID) == need })
		if i < 0 || len(provs[i].Models) == 0 {
			return fmt.Errorf("provider %s is missing or has no models", need)
		}
	}
	seenProv := map[string]bool{}
	for pi, p := range provs {
		if err := providers.CheckID(string(p.ID)); err != nil {
			return fmt.Errorf("provider %d: %w", pi+1, err)
		}
		key := strings.ToLower(string(p.ID))
		if seenProv[key] {
			return fmt.Errorf("provider %s is listed twice", p.ID)
		}
		seenProv[key] = true
		if err := validateModels(p); err != nil {
			return err
		}
	}
	return nil
}

func validateModels(p catwalk.Provider) error {
	seen := map[string]bool{}
	for mi, m := range p.Models {
		if err := providers.CheckID(m.ID); err != nil {
			return fmt.Errorf("provider %s, model %d: %w", p.ID, mi+1, err)
		}
		key := strings.ToLower(m.ID)
		if seen[key] {
			return fmt.Errorf("%s/%s is listed twice (which one is right is unknown)", p.ID, m.ID)
		}
		seen[key] = true
		if err := checkFigures(p.ID, m); err != nil {
			return err
		}
	}
	return nil
}

// checkFigures checks a catalogue entry's prices (figures.Price: finite,
// 0 to $10,000 per 1M tokens) and token limits (figures.Tokens).
func checkFigures(provider catwalk.InferenceProvider, m catwalk.Model) error {
	where := "catalogue entry " + strconv.Quote(string(provider)+"/"+m.ID)
	for _, p := range []struct {
		name string
		v    float64
	}{{"input", m.CostPer1MIn}, {"output", m.CostPer1MOut}, {"cache write", m.CostPer1MInCached}, {"cached input", m.CostPer1MOutCached}} {
		if _, err := figures.Price(where+" "+p.name+" price", p.v); err != nil {
			return err
		}
	}
	for _, n := range []struct {
		name string
		v    int64
	}{{"context window", m.ContextWindow}, {"default max tokens", m.DefaultMaxTokens}} {
		if _, err := figures.Tokens(where+" "+n.name, n.v); err != nil {
			return err
		}
	}
	return nil
}
