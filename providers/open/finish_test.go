package open_test

import (
	"context"
	"strings"
	"testing"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// Each vendor's way of saying "cut at the limit", "refused" and "blocked"
// reaches the Result so the engine can refuse to call it complete.
func TestAdapterReportsAbnormalFinishes(t *testing.T) {
	cases := []struct {
		vendor string
		reply  providertest.Reply
		want   providers.Finish
		detail string
	}{
		{"openai", providertest.Reply{Text: "half", FinishReason: "length"}, providers.FinishLength, ""},
		{"openai", providertest.Reply{Refusal: "I can't help with that."}, providers.FinishRefusal, "I can't help with that."},
		{"openai", providertest.Reply{Text: "x", FinishReason: "content_filter"}, providers.FinishFiltered, ""},
		{"openai-responses", providertest.Reply{Text: "half", FinishReason: "max_output_tokens"}, providers.FinishLength, ""},
		{"openai-responses", providertest.Reply{Refusal: "No."}, providers.FinishRefusal, "No."},
		{"openai-responses", providertest.Reply{Text: "x", FinishReason: "content_filter"}, providers.FinishFiltered, ""},
		{"anthropic", providertest.Reply{Text: "half", FinishReason: "max_tokens"}, providers.FinishLength, ""},
		{"anthropic", providertest.Reply{Refusal: "x"}, providers.FinishRefusal, ""},
		{"gemini", providertest.Reply{Text: "half", FinishReason: "MAX_TOKENS"}, providers.FinishLength, ""},
		{"gemini", providertest.Reply{Text: "x", FinishReason: "SAFETY"}, providers.FinishFiltered, ""},
		{"gemini", providertest.Reply{BlockReason: "PROHIBITED_CONTENT"}, providers.FinishFiltered, ""},
	}
	for _, c := range cases {
		t.Run(c.vendor+"/"+string(c.want), func(t *testing.T) {
			v := vendorNamed(c.vendor)
			srv := v.fake(t, func(providertest.Request) providertest.Reply { return c.reply })
			p, _ := openFake(t, v, srv, "good-key")
			o := run(t, p, context.Background(), simpleRequest(v.model))
			if o.err != nil {
				t.Fatalf("err = %v", o.err)
			}
			if got := providers.ClassifyFinish(o.res.FinishReason); got != c.want {
				t.Fatalf("finish %q classified %s, want %s", o.res.FinishReason, got, c.want)
			}
			if c.detail != "" && o.res.Detail != c.detail {
				t.Errorf("detail = %q, want %q", o.res.Detail, c.detail)
			}
			if providers.FinishError(v.name, o.res, o.text(), 0) == nil {
				t.Error("an abnormal finish passes as complete")
			}
		})
	}
}

// The Responses API's usage carries cached and reasoning tokens; a
// response.failed event is a server error, retried before any text.
func TestResponsesUsageAndFailedEvent(t *testing.T) {
	v := vendorNamed("openai-responses")
	srv := v.fake(t, providertest.Sequence(
		providertest.Reply{FinishReason: "failed"},
		providertest.Reply{Text: "after the failure", Usage: providers.Usage{InputTokens: 900, CachedTokens: 400, CacheWriteTokens: 100, OutputTokens: 300, ReasoningTokens: 250}},
	))
	p, rec := openFake(t, v, srv, "good-key")
	o := run(t, p, context.Background(), simpleRequest(v.model))
	if o.err != nil || o.text() != "after the failure" {
		t.Fatalf("text %q err %v", o.text(), o.err)
	}
	if len(rec.recorded()) != 1 {
		t.Errorf("waits = %v, want one retry after response.failed", rec.recorded())
	}
	want := providers.Usage{InputTokens: 900, CachedTokens: 400, CacheWriteTokens: 100, OutputTokens: 300, ReasoningTokens: 250}
	if o.res.Usage != want || o.res.FinishReason != "completed" {
		t.Errorf("usage %+v finish %q", o.res.Usage, o.res.FinishReason)
	}
	for _, r := range srv.Requests() {
		if r.Path != "/v1/responses" {
			t.Errorf("path %s", r.Path)
		}
	}
}

// An error event in the middle of a Responses stream keeps the text that
// arrived and reports the server's code and message.
func TestResponsesErrorEventAfterText(t *testing.T) {
	v := vendorNamed("openai-responses")
	raw := "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"r\",\"object\":\"response\",\"status\":\"in_progress\",\"output\":[]}}\n\n" +
		"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":1,\"item_id\":\"m\",\"output_index\":0,\"content_index\":0,\"delta\":\"partial \"}\n\n" +
		"event: error\ndata: {\"type\":\"error\",\"sequence_number\":2,\"code\":\"rate_limit_exceeded\",\"message\":\"Slow down\",\"param\":null}\n\n"
	srv := v.fake(t, func(providertest.Request) providertest.Reply { return providertest.Reply{Raw: []byte(raw)} })
	p, _ := openFake(t, v, srv, "good-key")
	o := run(t, p, context.Background(), simpleRequest(v.model))
	pe := wantKind(t, o.err, providers.KindRateLimit)
	if o.text() != "partial " || !strings.Contains(pe.Message, "Slow down") {
		t.Fatalf("text %q err %v", o.text(), o.err)
	}
}

// A Responses stream that ends without a terminal event was cut.
func TestResponsesStreamWithoutCompletedIsCut(t *testing.T) {
	v := vendorNamed("openai-responses")
	raw := "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":1,\"delta\":\"half\"}\n\n"
	srv := v.fake(t, func(providertest.Request) providertest.Reply { return providertest.Reply{Raw: []byte(raw)} })
	p, _ := openFake(t, v, srv, "good-key")
	o := run(t, p, context.Background(), simpleRequest(v.model))
	wantKind(t, o.err, providers.KindNetwork)
	if o.text() != "half" {
		t.Fatalf("text %q", o.text())
	}
}
