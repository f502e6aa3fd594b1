// Package numfmt formats numbers the way Parley shows them to people.
package numfmt

import "strconv"

// Thousands writes n with a comma between groups of three digits:
// 1234567 is "1,234,567", -1234 is "-1,234".
func Thousands(n int) string {
	s := strconv.Itoa(n)
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	out := make([]byte, 0, len(sign)+len(s)+len(s)/3)
	out = append(out, sign...)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
