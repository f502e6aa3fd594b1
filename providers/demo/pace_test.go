package demo

import (
	"testing"
	"time"
)

// PARLEY_DEMO_PACE is read within bounds: anything else is Pace.
func TestParsePaceIsBounded(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]time.Duration{
		"":         Pace,
		"0":        0,
		"0s":       0,
		"200µs":    200 * time.Microsecond,
		"1ms":      time.Millisecond,
		"1s":       time.Second,
		"1.001s":   Pace,
		"-1ms":     Pace,
		"1h":       Pace,
		"fast":     Pace,
		"1e9h":     Pace,
		"NaN":      Pace,
		" 1ms":     Pace,
		"9999999h": Pace,
	} {
		if got := ParsePace(v); got != want {
			t.Errorf("ParsePace(%q) = %v, want %v", v, got, want)
		}
	}
}

func FuzzParsePace(f *testing.F) {
	for _, s := range []string{"", "0", "200us", "1s", "-1ms", "1h", "fast", "9223372036854775807ns"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if d := ParsePace(v); d < 0 || d > MaxPace {
			t.Fatalf("ParsePace(%q) = %v, outside [0, %v]", v, d, MaxPace)
		}
	})
}
