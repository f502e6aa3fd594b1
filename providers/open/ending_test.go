package open_test

import (
	"context"
	"io"
	"log"
	"testing"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// A stream that stops before the vendor's terminal event (OpenAI Chat's
// finish_reason, the Responses API's response.completed, Anthropic's
// message_delta stop_reason, Gemini's finishReason) was cut, whether the
// connection was aborted or the body ended cleanly: the adapter reports a
// network error with the text that arrived, never a normal end, so the
// engine saves the turn partial instead of complete.
func TestAdapterStreamEndedWithoutItsFinishIsCut(t *testing.T) {
	defer log.SetOutput(log.Writer())
	log.SetOutput(io.Discard) // genai logs a cut stream through the log package
	const text = "one two three four five"
	cases := []struct {
		name  string
		reply providertest.Reply
		want  string
	}{
		{"aborted after 2 chunks", providertest.Reply{Text: text, CutAfter: 2}, "one two"},
		{"clean EOF after 2 chunks", providertest.Reply{Text: text, EndAfter: 2}, "one two"},
		{"clean EOF after every chunk", providertest.Reply{Text: text, EndAfter: 5}, text},
	}
	for _, v := range vendors {
		for _, c := range cases {
			t.Run(v.name+"/"+c.name, func(t *testing.T) {
				srv := v.fake(t, func(providertest.Request) providertest.Reply { return c.reply })
				p, _ := openFake(t, v, srv, "good-key")
				o := run(t, p, context.Background(), simpleRequest(v.model))
				if o.text() != c.want {
					t.Fatalf("text %q, want %q", o.text(), c.want)
				}
				if o.err == nil {
					t.Fatalf("a stream without its finish ended normally (finish %q): it would be saved complete", o.res.FinishReason)
				}
				wantKind(t, o.err, providers.KindNetwork)
				if n := len(srv.Requests()); n != 1 {
					t.Fatalf("requests = %d, want 1 (no retry after text)", n)
				}
			})
		}
	}
}

// The same fakes with their terminal event end normally: the test above
// fails for the cut, not for the fake.
func TestAdapterStreamWithItsFinishEndsNormally(t *testing.T) {
	for _, v := range vendors {
		t.Run(v.name, func(t *testing.T) {
			srv := v.fake(t, func(providertest.Request) providertest.Reply {
				return providertest.Reply{Text: "one two three four five", EndAfter: 9}
			})
			p, _ := openFake(t, v, srv, "good-key")
			o := run(t, p, context.Background(), simpleRequest(v.model))
			if o.err != nil || o.text() != "one two three four five" {
				t.Fatalf("text %q err %v", o.text(), o.err)
			}
		})
	}
}
