package open_test

import (
	"context"
	"testing"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// chargeChunks are the text a fake streams: 49 bytes in 10 chunks.
var chargeChunks = []string{"One", " two", " three", " four", " five", " six", " seven", " eight", " nine", " ten."}

// chargeVendors are the four adapters: OpenAI's two APIs, Anthropic,
// Gemini, and an OpenAI-compatible server.
var chargeVendors = append(append([]vendor(nil), vendors...),
	vendor{"compatible", "openai-compatible", "llama3.3", providertest.OpenAI, ""})

// streamCharged streams req to its end (cancelling once cancelAfter deltas
// arrived, when > 0) and returns what the call is charged: the adapter's
// result completed by providers.Charge from the deltas received, plus the
// retried attempts.
func streamCharged(t *testing.T, p providers.Provider, req providers.Request, cancelAfter int) (providers.Usage, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := p.Stream(ctx, req)
	if err != nil {
		return providers.Charge(req, providers.Result{}, providers.Streamed{}, err), err
	}
	defer s.Close()
	var out providers.Streamed
	for s.Next() {
		out.Add(s.Delta())
		if cancelAfter > 0 && out.Chunks == cancelAfter {
			cancel()
		}
	}
	res := s.Result()
	return providers.Charge(req, res, out, s.Err()).Add(res.Retried), s.Err()
}

// Every call is charged what it consumed, on every adapter: the reported
// usage when the stream ends normally; otherwise the provider's partial
// figures completed by Parley's count — the prompt "Hello?" at two bytes a
// token (6+8 bytes, /2, +16 = 23 tokens) when no input count came, the
// text received at four bytes a token but never fewer than its chunks —
// and marked estimated. Anthropic reports its input (and one output token)
// at message_start and Gemini its prompt on every text chunk; the OpenAI APIs
// report nothing before the end. A retry's failed attempts add what they
// consumed: nothing for an HTTP 529 (never answered), the prompt for an
// error event inside a 200 stream.
func TestEveryAdapterChargesWhatWasConsumed(t *testing.T) {
	reported := providers.Usage{InputTokens: 40, OutputTokens: 12}
	full := providertest.Reply{Chunks: chargeChunks, Usage: reported}
	with := func(edit func(*providertest.Reply)) providertest.Reply {
		r := full
		edit(&r)
		return r
	}
	// est is the charge of a stream that ended early: openIn/openOut for
	// the OpenAI APIs (nothing reported), the reported input for Anthropic
	// and Gemini, at least one output token for Anthropic.
	type est struct{ openIn, out int }
	charge := func(v vendor, e est) providers.Usage {
		u := providers.Usage{InputTokens: e.openIn, OutputTokens: e.out, Estimated: true}
		switch v.typ {
		case "anthropic":
			u.InputTokens, u.OutputTokens = 40, max(e.out, 1)
		case "gemini":
			if e.out > 0 { // its prompt count rides on every chunk: none came before an error at once
				u.InputTokens = 40
			}
		}
		return u
	}
	cases := []struct {
		name        string
		replies     []providertest.Reply
		cancelAfter int
		wantErr     bool
		want        func(v vendor) providers.Usage
	}{
		{name: "complete", replies: []providertest.Reply{full},
			want: func(vendor) providers.Usage { return reported }},
		// 3 bytes, 1 chunk: 1 token.
		{name: "cut after 1 chunk", replies: []providertest.Reply{with(func(r *providertest.Reply) { r.CutAfter = 1 })}, wantErr: true,
			want: func(v vendor) providers.Usage { return charge(v, est{23, 1}) }},
		// 13 bytes in 3 chunks: 4 tokens.
		{name: "cut after 3 chunks", replies: []providertest.Reply{with(func(r *providertest.Reply) { r.CutAfter = 3 })}, wantErr: true,
			want: func(v vendor) providers.Usage { return charge(v, est{23, 4}) }},
		// 44 bytes in 9 chunks: 11 tokens.
		{name: "cut after 9 chunks", replies: []providertest.Reply{with(func(r *providertest.Reply) { r.CutAfter = 9 })}, wantErr: true,
			want: func(v vendor) providers.Usage { return charge(v, est{23, 11}) }},
		// 7 bytes in 2 chunks: 2 tokens.
		{name: "error event after 2 chunks", replies: []providertest.Reply{with(func(r *providertest.Reply) {
			r.StreamError, r.ErrorAfter = "Overloaded", 2
		})}, wantErr: true,
			want: func(v vendor) providers.Usage { return charge(v, est{23, 2}) }},
		{name: "client cancels after 2 chunks", replies: []providertest.Reply{with(func(r *providertest.Reply) { r.StallAfter = 2 })},
			cancelAfter: 2, wantErr: true,
			want: func(v vendor) providers.Usage { return charge(v, est{23, 2}) }},
		// 529 (never answered: free), then an overload event before any
		// text (the prompt was read: charged), then the whole answer.
		{name: "retried after 529 and an overload event", replies: []providertest.Reply{
			{Status: 529, Text: "Overloaded"},
			with(func(r *providertest.Reply) { r.StreamError, r.ErrorAfter = "Overloaded", 0 }),
			full,
		}, want: func(v vendor) providers.Usage {
			return charge(v, est{23, 0}).Add(reported)
		}},
		// 27 bytes in 6 chunks: 7 tokens.
		{name: "error event after 6 chunks", replies: []providertest.Reply{with(func(r *providertest.Reply) {
			r.StreamError, r.ErrorAfter = "Internal error", 6
		})}, wantErr: true,
			want: func(v vendor) providers.Usage { return charge(v, est{23, 7}) }},
		// 503 (never answered: free), then the whole answer.
		{name: "retried after 503", replies: []providertest.Reply{{Status: 503, Text: "Service unavailable"}, full},
			want: func(vendor) providers.Usage { return reported }},
		{name: "refused with HTTP 400", replies: []providertest.Reply{{Status: 400, Text: "bad request"}}, wantErr: true,
			want: func(vendor) providers.Usage { return providers.Usage{} }},
	}
	for _, v := range chargeVendors {
		for _, tc := range cases {
			t.Run(v.name+"/"+tc.name, func(t *testing.T) {
				srv := v.fake(t, providertest.Sequence(tc.replies...))
				p, _ := openFake(t, v, srv, "good-key")
				got, err := streamCharged(t, p, simpleRequest(v.model), tc.cancelAfter)
				if (err != nil) != tc.wantErr {
					t.Fatalf("err = %v, want an error: %v", err, tc.wantErr)
				}
				if want := tc.want(v); got != want {
					t.Fatalf("charged %+v, want %+v (err %v)", got, want, err)
				}
				if n := len(srv.Requests()); n != len(tc.replies) {
					t.Fatalf("%d requests, want %d", n, len(tc.replies))
				}
			})
		}
	}
}
