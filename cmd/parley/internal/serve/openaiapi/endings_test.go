package openaiapi_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers/providertest"
)

// failingReplies answers as a provider in trouble, by what the question
// says: FAIL answers 500 on every try, CUT breaks the stream after two
// words, LIMIT stops at the output limit after two words; anything else
// answers in full.
func failingReplies(r providertest.Request) providertest.Reply {
	q := ""
	for _, m := range r.Messages {
		q += m.Content
	}
	switch {
	case strings.Contains(q, "FAIL"):
		return providertest.Reply{Status: 500, Text: "upstream exploded"}
	case strings.Contains(q, "CUT"):
		return providertest.Reply{Chunks: []string{"Half ", "an ", "answer"}, CutAfter: 2}
	case strings.Contains(q, "LIMIT"):
		return providertest.Reply{Chunks: []string{"Cut ", "short"}, FinishReason: "length"}
	}
	return providertest.Reply{Text: "A whole answer."}
}

// answer is what a raw client read from one completion, streaming or not.
type answer struct {
	status  int    // HTTP status
	content string // the answer's text
	finish  string // finish_reason ("" when none came)
	errCode string // the error's code ("" when none came)
	parley  struct {
		SessionID string `json:"session_id"`
		Status    string
	}
	done bool // the stream ended with data: [DONE]
}

// ask posts one completion to model and reads it as a raw client would.
func (f *fixture) ask(t *testing.T, model, question string, stream bool) answer {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"model": model, "stream": stream, "messages": []map[string]string{{"role": "user", "content": question}}})
	req, _ := http.NewRequestWithContext(ctx(t), "POST", f.ts.URL+"/v1/chat/completions", strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+f.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a answer
	a.status = resp.StatusCode
	// Every object either way reads into this: a completion, a chunk or
	// an error, with the parley extension on the last.
	type object struct {
		Choices []struct {
			Message      struct{ Content string }
			Delta        struct{ Content string }
			FinishReason *string `json:"finish_reason"`
		}
		Error  *struct{ Code string }
		Parley *json.RawMessage
	}
	read := func(o object) {
		for _, c := range o.Choices {
			a.content += c.Message.Content + c.Delta.Content
			if c.FinishReason != nil {
				a.finish = *c.FinishReason
			}
		}
		if o.Error != nil {
			a.errCode = o.Error.Code
		}
		if o.Parley != nil {
			_ = json.Unmarshal(*o.Parley, &a.parley)
		}
	}
	if !stream {
		var o object
		if err := json.NewDecoder(resp.Body).Decode(&o); err != nil {
			t.Fatal(err)
		}
		read(o)
		return a
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			a.done = true
			continue
		}
		var o object
		if err := json.Unmarshal([]byte(data), &o); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		read(o)
	}
	return a
}

// TestAFailedRunIsNoSuccess: an agent whose provider answers 500 on every
// try gives no answer: 502 run_failed (streaming: an error event, no
// [DONE]), never a 200 whose content is the error. A stream cut midway is
// an answer broken off (502 answer_incomplete, or the error event after
// the words that came); one cut at its output limit answers with
// finish_reason length and parley.status truncated. A whole answer stops.
func TestAFailedRunIsNoSuccess(t *testing.T) {
	t.Parallel()
	fake, agents := fakeAgents(t, failingReplies)
	f := newFixture(t, agents)
	for _, tc := range []struct {
		question, finish, errCode, status, content string
	}{
		{"FAIL: hello?", "", "run_failed", "error", ""},
		{"CUT: hello?", "", "answer_incomplete", "error", "Half an "},
		{"LIMIT: hello?", "length", "", "truncated", "Cut short"},
		{"hello?", "stop", "", "complete", "A whole answer."},
	} {
		for _, stream := range []bool{false, true} {
			before := len(fake.Requests())
			a := f.ask(t, "chatgpt", tc.question, stream)
			wantHTTP := 200
			if tc.errCode != "" && !stream {
				wantHTTP = 502
			}
			if a.status != wantHTTP || a.finish != tc.finish || a.errCode != tc.errCode || a.parley.Status != tc.status ||
				a.done != (stream && tc.errCode == "") || a.parley.SessionID == "" {
				t.Errorf("%q (stream %v): %+v", tc.question, stream, a)
			}
			if stream && a.content != tc.content || !stream && tc.errCode == "" && a.content != tc.content {
				t.Errorf("%q (stream %v): content %q, want %q (only what the model wrote)", tc.question, stream, a.content, tc.content)
			}
			if calls := len(fake.Requests()) - before; strings.HasPrefix(tc.question, "FAIL") && calls != 4 {
				t.Errorf("%q: %d calls, want the first and 3 retries", tc.question, calls)
			}
			_, entries := f.load(a.parley.SessionID)
			if replies := agentReplies(entries, 0); len(replies) != 1 || tc.status == "complete" && replies[0].Status != transcript.StatusComplete {
				t.Errorf("%q: saved %+v", tc.question, replies)
			}
		}
	}
}
