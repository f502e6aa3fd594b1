package providers

import (
	"math"
	"testing"
)

func TestFormatSpendWordsEveryAmount(t *testing.T) {
	for _, c := range []struct {
		cost               float64
		unknown, estimated bool
		want               string
	}{
		{0, false, false, "$0.0000"},
		{0.00004999, false, false, "$0.0000"},
		{0.00005001, false, false, "$0.0001"},
		{0.0123, false, true, "~$0.0123"},
		{12345.678901, false, false, "$12345.6789"},
		{0, true, false, "$?"},
		{0.5, true, true, "≥ ~$0.5000"},
		{-0.00001, false, false, "$-0.0000"},
		{1e21, false, false, "$1000000000000000000000.0000"},
		{math.Inf(1), false, false, "$+Inf"},
		{math.NaN(), false, false, "$NaN"},
	} {
		if got := FormatSpend(c.cost, c.unknown, c.estimated); got != c.want {
			t.Errorf("FormatSpend(%v, %v, %v) = %q, want %q", c.cost, c.unknown, c.estimated, got, c.want)
		}
	}
}
