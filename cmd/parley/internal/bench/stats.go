package bench

import "math"

// wilsonZ is the normal quantile of a two-sided 95 % interval.
const wilsonZ = 1.959963984540054

// Wilson is the 95 % Wilson score interval of k successes in n trials; it
// stays inside [0, 1] and behaves at 0 and n, where the normal interval
// does not. n = 0 gives [0, 1].
func Wilson(k, n int) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	p := float64(k) / float64(n)
	z2 := wilsonZ * wilsonZ
	nf := float64(n)
	centre := (p + z2/(2*nf)) / (1 + z2/nf)
	half := wilsonZ / (1 + z2/nf) * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	return math.Max(0, centre-half), math.Min(1, centre+half)
}

// McNemarExact is the two-sided exact McNemar p-value for b and c
// discordant pairs: twice the binomial(b+c, 1/2) tail of the smaller count,
// capped at 1; 1 when there are no discordant pairs.
func McNemarExact(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	k := min(b, c)
	// Sum P(X <= k) in log space: C(n,i) / 2^n.
	tail := 0.0
	for i := 0; i <= k; i++ {
		tail += math.Exp(logChoose(n, i) - float64(n)*math.Ln2)
	}
	return math.Min(1, 2*tail)
}

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}
