package numfmt

import (
	"math"
	"testing"
)

func TestThousands(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{
		0:             "0",
		7:             "7",
		999:           "999",
		1000:          "1,000",
		2000:          "2,000",
		123456:        "123,456",
		1234567:       "1,234,567",
		-1:            "-1",
		-123:          "-123",
		-1234:         "-1,234",
		-123456:       "-123,456",
		math.MaxInt64: "9,223,372,036,854,775,807",
		math.MinInt64: "-9,223,372,036,854,775,808",
	} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
