package providers

import (
	"testing"
	"time"
)

// A reasoning model gets the longer first-byte default; others the idle
// one; a configured first_byte_timeout wins over both.
func TestFirstByteLimits(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lim  StallLimits
		info ModelInfo
		want time.Duration
	}{
		{StallLimits{Idle: time.Second}, ModelInfo{}, time.Second},
		{StallLimits{}, ModelInfo{}, DefaultIdleTimeout},
		{StallLimits{Idle: time.Second}, ModelInfo{Reasoning: true}, DefaultReasoningFirstByteTimeout},
		{StallLimits{Idle: time.Hour}, ModelInfo{Reasoning: true}, time.Hour},
		{StallLimits{Idle: time.Second, FirstByte: 3 * time.Second}, ModelInfo{Reasoning: true}, 3 * time.Second},
	} {
		if got := c.lim.firstByte(c.info); got != c.want {
			t.Errorf("%+v reasoning=%v: %v, want %v", c.lim, c.info.Reasoning, got, c.want)
		}
	}
}
