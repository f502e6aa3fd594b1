package sanitize

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzEscapeJSON: any string, encoded and escaped, decodes to itself and
// carries none of the escaped characters raw.
func FuzzEscapeJSON(f *testing.F) {
	f.Add("pay \u009b31m \u202eevil\u202c ok\U000e0041\U000e0042 \x7f end")
	f.Add("plain")
	f.Add("\u2028\u2029\ufeff\u2066x\u2069")
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		raw, err := json.Marshal(map[string]string{"text": s})
		if err != nil {
			t.Fatal(err)
		}
		esc := EscapeJSON(raw)
		for _, r := range string(esc) {
			if r == 0x7f || r >= 0x80 && r < 0xa0 || Invisible(r) {
				t.Fatalf("%U raw in %q", r, esc)
			}
		}
		var back map[string]string
		if err := json.Unmarshal(esc, &back); err != nil || back["text"] != s {
			t.Fatalf("%q decoded to %q, %v", s, back["text"], err)
		}
	})
}
