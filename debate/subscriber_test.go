package debate

import "testing"

// A lagging subscriber's merged deltas keep a structured answer's fields
// apart and in order, and keep the raw text whole.
func TestMergedDeltasKeepFieldsApart(t *testing.T) {
	t.Parallel()
	s := &subscriber{wake: make(chan struct{}, 1), empty: make(chan struct{})}
	for _, d := range []TextDelta{
		{Turn: 1, Raw: `{"vote":"reject",`},
		{Turn: 1, Field: "reasoning", Text: "Thin ", Raw: `"reasoning":"Thin `},
		{Turn: 2, Text: "other turn"},
		{Turn: 1, Field: "reasoning", Text: "evidence.", Raw: `evidence.",`},
		{Turn: 1, Field: "summary", Text: "\n\nNo.", Raw: `"summary":"No."}`},
	} {
		s.push(d)
	}
	var got []TextDelta
	for _, ev := range s.queue {
		got = append(got, ev.(TextDelta))
	}
	want := []TextDelta{
		{Turn: 1, Field: "reasoning", Text: "Thin evidence.", Raw: `{"vote":"reject","reasoning":"Thin evidence.",`},
		{Turn: 2, Text: "other turn"},
		{Turn: 1, Field: "summary", Text: "\n\nNo.", Raw: `"summary":"No."}`},
	}
	if len(got) != len(want) {
		t.Fatalf("queue = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("delta %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
