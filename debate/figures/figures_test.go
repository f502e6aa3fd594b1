package figures

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestMoneyRefusesWhatIsNotAnAmount(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   float64
		want string // "" accepted
	}{
		{0, ""}, {0.5, ""}, {MaxMoneyUSD, ""},
		{math.NaN(), "--max-cost: NaN is not a finite amount"},
		{math.Inf(1), "--max-cost: +Inf is not a finite amount"},
		{math.Inf(-1), "--max-cost: -Inf is not a finite amount"},
		{-0.01, "--max-cost: -0.01 is negative"},
		{math.Nextafter(MaxMoneyUSD, math.Inf(1)), "is over $100,000"},
		{1.7e308, "--max-cost: 1.7e+308 is over $100,000"},
	} {
		got, err := Money("--max-cost", c.in)
		switch {
		case c.want == "" && (err != nil || got != c.in):
			t.Errorf("Money(%v) = %v, %v; want it accepted", c.in, got, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("Money(%v) error %v, want %q", c.in, err, c.want)
		case c.want != "" && got != 0:
			t.Errorf("Money(%v) refused but returned %v", c.in, got)
		}
	}
}

func TestPriceRefusesWhatIsNotAPrice(t *testing.T) {
	t.Parallel()
	where := `catalogue entry "x" input price`
	for _, c := range []struct {
		in   float64
		want string
	}{
		{0, ""}, {3, ""}, {MaxPriceUSD, ""},
		{math.NaN(), where + ": NaN is not a finite price"},
		{math.Inf(1), "+Inf is not a finite price"},
		{-1, "-1 is negative"},
		{10_000.5, "10000.5 is over $10,000 per 1M tokens"},
		{1.7e308, "1.7e+308 is over"},
	} {
		_, err := Price(where, c.in)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("Price(%v) error %v, want %q", c.in, err, c.want)
		}
	}
}

func TestCountsAndTokens(t *testing.T) {
	t.Parallel()
	if _, err := Tokens("provider usage", -5); err == nil || err.Error() != "provider usage: -5 is negative; a count is 0 or more" {
		t.Errorf("Tokens(-5): %v", err)
	}
	if _, err := Tokens("provider usage", MaxTokens+1); err == nil || !strings.Contains(err.Error(), "is over 100000000") {
		t.Errorf("Tokens(MaxTokens+1): %v", err)
	}
	if n, err := Tokens("x", MaxTokens); err != nil || n != MaxTokens {
		t.Errorf("Tokens(MaxTokens) = %d, %v", n, err)
	}
	if _, err := Count("bench.limits.x", 11, 10); err == nil || !strings.Contains(err.Error(), "11 is over 10") {
		t.Errorf("Count(11, 10): %v", err)
	}
	if _, err := Count("x", MaxCount+1, 0); err == nil {
		t.Error("Count past MaxCount with no bound of its own was accepted")
	}
	for in, want := range map[int]int{-1: 0, 0: 0, 7: 7, MaxTokens: MaxTokens, MaxTokens + 1: MaxTokens, math.MinInt: 0} {
		got, clamped := ClampTokens(in)
		if got != want || clamped != (in != want) {
			t.Errorf("ClampTokens(%d) = %d, %v; want %d", in, got, clamped, want)
		}
	}
}

func TestParsers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in, want string
		v        float64
	}{
		{"0.5", "", 0.5}, {"$2", "", 2}, {" 1e3 ", "", 1000},
		{"NaN", "PARLEY_BUDGET_USD: NaN is not a finite amount", 0},
		{"nan", "NaN is not a finite amount", 0},
		{"inf", "+Inf is not a finite amount", 0},
		{"-Infinity", "-Inf is not a finite amount", 0},
		{"1e400", `"1e400" is out of range`, 0},
		{"ten", `"ten" is not an amount in USD`, 0},
		{"0x1p-2", "", 0.25},
		{"", `"" is not an amount in USD`, 0},
	} {
		v, err := ParseMoney("PARLEY_BUDGET_USD", c.in)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) || v != c.v {
			t.Errorf("ParseMoney(%q) = %v, %v; want %v, %q", c.in, v, err, c.v, c.want)
		}
	}
	if _, err := ParsePrice("p", "1.7e308"); err == nil || !strings.Contains(err.Error(), "is over $10,000") {
		t.Errorf("ParsePrice(1.7e308): %v", err)
	}
	if _, err := ParseCount("n", "99999999999999999999", 0); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("ParseCount(huge): %v", err)
	}
	if _, err := ParseTokens("n", "1.5"); err == nil || !strings.Contains(err.Error(), "not a whole number") {
		t.Errorf("ParseTokens(1.5): %v", err)
	}
	long := strings.Repeat("\x1b[2J", 50)
	if _, err := ParseMoney("x", long); err == nil || strings.Contains(err.Error(), "\x1b") || len(err.Error()) > 120 {
		t.Errorf("a long hostile figure came back raw or whole: %q", err)
	}
}

func TestMoneyFlag(t *testing.T) {
	t.Parallel()
	v := 3.0
	f := NewMoneyFlag(&v)
	if err := f.Set("NaN"); err == nil || err.Error() != "NaN is not a finite amount" || v != 3 {
		t.Errorf("Set(NaN): %v, value %v", err, v)
	}
	if err := f.Set("0.25"); err != nil || v != 0.25 || f.String() != "0.25" || f.Type() != "usd" {
		t.Errorf("Set(0.25): %v, value %v, %q", err, v, f.String())
	}
}

func TestFinite(t *testing.T) {
	t.Parallel()
	for v, want := range map[float64]bool{0: true, 1.5: true, -0.1: false, math.NaN(): false, math.Inf(1): false, math.Inf(-1): false} {
		if Finite(v) != want {
			t.Errorf("Finite(%v) = %v", v, !want)
		}
	}
}

// checkAccepted holds for every figure a parser lets through: finite,
// within its bounds.
func checkAccepted(t *testing.T, in string, v, most float64, err error) {
	t.Helper()
	if err != nil {
		if e, ok := err.(*Error); !ok || e.Where != "w" || e.Problem == "" || strings.ContainsAny(e.Problem, "\x1b\x00\n") {
			t.Fatalf("%q: error %#v does not name its source plainly", in, err)
		}
		if v != 0 {
			t.Fatalf("%q: refused yet returned %v", in, v)
		}
		return
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > most {
		t.Fatalf("%q: accepted %v", in, v)
	}
}

func FuzzParseMoney(f *testing.F) {
	for _, s := range []string{"0", "1.5", "$2", "NaN", "-Inf", "+inf", "1e400", "1.7e308", "-0", "0x1p-2", "1_000", " 3 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseMoney("w", s)
		checkAccepted(t, s, v, MaxMoneyUSD, err)
		if err == nil { // what was accepted reads back the same
			if again, err := ParseMoney("w", strconv.FormatFloat(v, 'g', -1, 64)); err != nil || again != v {
				t.Fatalf("%q: %v reads back as %v, %v", s, v, again, err)
			}
		}
	})
}

func FuzzParsePrice(f *testing.F) {
	for _, s := range []string{"0", "3.00", "15", "NaN", "Inf", "1.7e308", "-1", "10000", "10000.0000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParsePrice("w", s)
		checkAccepted(t, s, v, MaxPriceUSD, err)
	})
}

func FuzzParseCount(f *testing.F) {
	for _, s := range []string{"0", "12", "-1", "100000000", "100000001", "9223372036854775808", "1e3", "+5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseTokens("w", s)
		checkAccepted(t, s, float64(n), MaxTokens, err)
		c, err := ParseCount("w", s, 0)
		checkAccepted(t, s, float64(c), MaxCount, err)
	})
}
