package debate

import (
	"encoding/json"
	"testing"

	"github.com/parleyhq/parley/providers"
)

// FuzzSavedToolTurn: a saved tool turn read back from a database is
// refused or fits: every count in range, messages of known roles ending
// with the model's message holding the call.
func FuzzSavedToolTurn(f *testing.F) {
	f.Add(`{"agent":"gemini","used":1,"prior":{"input_tokens":10},"call":{"ID":"c1","Name":"read_file"},"messages":[{"Role":"user","Content":"q"},{"Role":"assistant","ToolCalls":[{"ID":"c1","Name":"read_file"}]}]}`)
	f.Add(`{"agent":"gemini","used":-1,"prior":{"input_tokens":1e300}}`)
	f.Add(`{"messages":[{"Role":"system"}],"call":{"Name":""}}`)
	f.Add(`null`)
	f.Fuzz(func(t *testing.T, raw string) {
		var st savedToolTurn
		if json.Unmarshal([]byte(raw), &st) != nil || checkSavedToolTurn(st) != nil {
			return
		}
		if st.Used < 1 || st.Used > maxSavedToolCalls || st.Round < 0 || st.Call.Name == "" || len(st.Messages) == 0 || len(st.Messages) > maxSavedToolMessages {
			t.Fatalf("accepted out of range: %+v", st)
		}
		last := st.Messages[len(st.Messages)-1]
		if last.Role != providers.RoleAssistant {
			t.Fatalf("accepted without the model's message last: %+v", last)
		}
		u := st.Prior
		for _, n := range []int{u.InputTokens, u.OutputTokens, u.CachedTokens, u.CacheWriteTokens, u.ReasoningTokens, u.SearchCalls} {
			if n < 0 || n > maxSavedTokens {
				t.Fatalf("accepted a count of %d", n)
			}
		}
	})
}
