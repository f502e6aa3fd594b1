package fieldstream_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parleyhq/parley/debate/fieldstream"
	"github.com/parleyhq/parley/debate/verdict"
)

// decodeAll feeds text to a fresh decoder in chunks cut at the given byte
// offsets and returns the prose per field, the prose as one stream, and the
// complete values in order.
func decodeAll(text string, cuts []int) (prose map[string]string, stream string, values []fieldstream.Piece) {
	d := fieldstream.NewDecoder()
	prose = map[string]string{}
	var b strings.Builder
	take := func(ps []fieldstream.Piece) {
		for _, p := range ps {
			if p.Complete {
				values = append(values, p)
				continue
			}
			prose[p.Field] += strings.TrimPrefix(p.Text, "\n\n")
			b.WriteString(p.Text)
		}
	}
	last := 0
	for _, c := range cuts {
		take(d.Write(text[last:c]))
		last = c
	}
	take(d.Write(text[last:]))
	take(d.Flush())
	return prose, b.String(), values
}

func everyByte(n int) []int {
	cuts := make([]int, 0, n)
	for i := 1; i < n; i++ {
		cuts = append(cuts, i)
	}
	return cuts
}

func TestFieldDecoderStreamsProseAndCompletesValues(t *testing.T) {
	t.Parallel()
	ballot := verdict.Ballot{Vote: verdict.VoteReject, Reasoning: "As CASPER, on \"should we…\" — no:\nthe evidence is thin. 証拠は薄い 🙂", Summary: "Reject; the evidence is thin."}
	raw := "```json\n" + ballot.JSON() + "\n```"
	for name, cuts := range map[string][]int{"whole": nil, "every byte": everyByte(len(raw))} {
		prose, stream, values := decodeAll(raw, cuts)
		if prose["reasoning"] != ballot.Reasoning || prose["summary"] != ballot.Summary {
			t.Errorf("%s: prose = %q, want the ballot's reasoning and summary unescaped", name, prose)
		}
		if want := ballot.Reasoning + "\n\n" + ballot.Summary; stream != want {
			t.Errorf("%s: joined prose = %q, want %q", name, stream, want)
		}
		if len(values) != 1 || values[0].Field != "vote" || values[0].Value != "reject" {
			t.Errorf("%s: values = %+v, want the vote once", name, values)
		}
		if strings.ContainsAny(stream, "{}") || strings.Contains(stream, `\"`) {
			t.Errorf("%s: JSON syntax reached the prose: %q", name, stream)
		}
	}
}

func TestFieldDecoderYieldsTheVoteWhenItsFieldIsComplete(t *testing.T) {
	t.Parallel()
	d := fieldstream.NewDecoder()
	for _, chunk := range []string{`{"vo`, `te": "rej`, `ect`} {
		for _, p := range d.Write(chunk) {
			if p.Complete {
				t.Fatalf("value %+v yielded before its field was complete (chunk %q)", p, chunk)
			}
		}
	}
	got := d.Write(`", "reasoning": "x"}`)
	if len(got) == 0 || !got[0].Complete || got[0].Value != "reject" {
		t.Fatalf("after the closing quote and comma: %+v, want the vote", got)
	}
}

func TestFieldDecoderRankingAndNumbers(t *testing.T) {
	t.Parallel()
	raw := `{'evaluation': 'A is right, B is vague.', "ranking": ["Response B", "Response A",], "confidence": 0.8,}`
	prose, _, values := decodeAll(raw, everyByte(len(raw)))
	if prose["evaluation"] != "A is right, B is vague." {
		t.Errorf("evaluation = %q", prose["evaluation"])
	}
	want := []fieldstream.Piece{{Field: "ranking", Complete: true, Value: "Response B, Response A"}, {Field: "confidence", Complete: true, Value: "0.8"}}
	if len(values) != 2 || values[0] != want[0] || values[1] != want[1] {
		t.Errorf("values = %+v, want %+v", values, want)
	}
}

func TestFieldDecoderFallsBackToTheText(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		"I reject this proposal because the evidence is thin.",
		`{"vote": "reject", "reasoning": "x" "summary": "y"}`,
		`{"vote": reject because, "reasoning": "x"}`,
	} {
		d := fieldstream.NewDecoder()
		var got strings.Builder
		for _, p := range append(d.Write(raw), d.Flush()...) {
			if p.Field == fieldstream.Raw {
				got.WriteString(p.Text)
			}
		}
		if d.Parsed() {
			t.Errorf("%q: Parsed() = true, want the fallback", raw)
		}
		if got.Len() == 0 || !strings.HasSuffix(raw, strings.TrimSpace(got.String())) {
			t.Errorf("%q: raw text %q, want the answer's text from where it stopped reading", raw, got.String())
		}
	}
	// a well-formed answer is not marked raw
	d := fieldstream.NewDecoder()
	d.Write(`{"vote": "approve", "reasoning": "fine"}`)
	if !d.Parsed() {
		t.Error("a well-formed answer reads as not parsed")
	}
}

func TestFieldDecoderEscapes(t *testing.T) {
	t.Parallel()
	raw := `{"reasoning": "a\u00e9\ud83d\ude00\n\t\/\\\"z\ud800!\q"}`
	prose, _, _ := decodeAll(raw, everyByte(len(raw)))
	if want := "aé😀\n\t/\\\"z\uFFFD!q"; prose["reasoning"] != want {
		t.Errorf("reasoning = %q, want %q", prose["reasoning"], want)
	}
}

// FuzzDecoder: whatever a model sends, the decoder does not panic,
// yields valid UTF-8 for valid input, and yields the same prose and values
// however the answer is chunked; for a well-formed ballot the prose is the
// ballot's own text.
func FuzzDecoder(f *testing.F) {
	f.Add(`{"vote":"approve","reasoning":"ok \"quoted\" 日本","summary":"s"}`, "reasoning text", uint8(3))
	f.Add("```json\n{'vote': 'reject', 'reasoning': 'a',}\n```", "x", uint8(1))
	f.Add(`{"ranking":["Response A","Response B"],"evaluation":"e"}`, "🙂 emoji", uint8(7))
	f.Add(`{"reasoning":"\ud83d`, "", uint8(2))
	f.Add("plain prose answer", "", uint8(5))
	f.Fuzz(func(t *testing.T, raw, reasoning string, step uint8) {
		whole, wholeStream, wholeValues := decodeAll(raw, nil)
		var cuts []int
		for i := int(step%13) + 1; i < len(raw); i += int(step%13) + 1 {
			cuts = append(cuts, i)
		}
		split, splitStream, splitValues := decodeAll(raw, cuts)
		if wholeStream != splitStream || len(whole) != len(split) || len(wholeValues) != len(splitValues) {
			t.Fatalf("chunking changed the output: %q vs %q", wholeStream, splitStream)
		}
		for i := range wholeValues {
			if wholeValues[i] != splitValues[i] {
				t.Fatalf("chunking changed value %d: %+v vs %+v", i, wholeValues[i], splitValues[i])
			}
		}
		if utf8.ValidString(raw) && !utf8.ValidString(splitStream) {
			t.Fatalf("invalid UTF-8 out of valid input: %q", splitStream)
		}
		if !utf8.ValidString(reasoning) {
			return
		}
		enc, _ := json.Marshal(map[string]string{"reasoning": reasoning, "vote": "approve"})
		got, _, values := decodeAll(string(enc), everyByte(len(enc)))
		if got["reasoning"] != reasoning || len(values) != 1 || values[0].Value != "approve" {
			t.Fatalf("ballot %s: prose %q values %+v", enc, got["reasoning"], values)
		}
	})
}

// A chunk that ends one prose field and completes the next field yields the
// whole prose first (issue 43: the summary's last words arrived after the
// next field's value, and /v1 printed them under it); an empty field is
// not reported, and an empty prose field adds no blank line.
func TestFieldDecoderFinishesProseBeforeTheNextValue(t *testing.T) {
	t.Parallel()
	raw := `{"vote": "approve", "reasoning": "low risk", "summary": "", "changed_by": "", "also": []}`
	chunks := []string{`{"vote": "approve", "reasoning": "low risk", "summary": "low risk, quick`, ` rollback", "changed_by": "", "ranking": ["A"]}`}
	d := fieldstream.NewDecoder()
	var order []string
	for _, c := range chunks {
		for _, p := range d.Write(c) {
			if p.Complete {
				order = append(order, "="+p.Field+":"+p.Value)
			} else {
				order = append(order, p.Field+":"+p.Text)
			}
		}
	}
	for _, p := range d.Flush() {
		order = append(order, "late "+p.Field+":"+p.Text)
	}
	want := []string{"=vote:approve", "reasoning:low risk", "summary:\n\nlow risk, quick", "summary: rollback", "=ranking:A"}
	if strings.Join(order, "|") != strings.Join(want, "|") {
		t.Errorf("pieces in order:\n%q\nwant\n%q", order, want)
	}
	_, stream, values := decodeAll(raw, everyByte(len(raw)))
	if stream != "low risk" {
		t.Errorf("prose with empty fields = %q, want the reasoning alone", stream)
	}
	if len(values) != 1 || values[0].Field != "vote" {
		t.Errorf("values = %+v, want the vote alone (empty fields are not reported)", values)
	}
}
