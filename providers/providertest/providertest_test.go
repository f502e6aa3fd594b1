package providertest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

func post(t *testing.T, ctx context.Context, url string, header map[string]string, body string) (*http.Response, []byte, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp, data, err
}

func TestSplitWordsJoinsBack(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "one", "one two  three ", " lead", "a\nb c"} {
		got := providertest.SplitWords(s)
		if strings.Join(got, "") != s {
			t.Errorf("SplitWords(%q) = %q", s, got)
		}
	}
	if got := providertest.SplitWords("one two three"); !reflect.DeepEqual(got, []string{"one", " two", " three"}) {
		t.Errorf("got %q", got)
	}
}

func TestSequenceRepeatsLast(t *testing.T) {
	t.Parallel()
	next := providertest.Sequence(providertest.Reply{Text: "a"}, providertest.Reply{Text: "b"})
	var got []string
	for range 4 {
		got = append(got, next(providertest.Request{}).Text)
	}
	if strings.Join(got, "") != "abbb" {
		t.Errorf("got %v", got)
	}
}

func TestOpenAIFakeWire(t *testing.T) {
	t.Parallel()
	srv := providertest.OpenAI(t, func(r providertest.Request) providertest.Reply {
		return providertest.Reply{Text: "hi there", Usage: providers.Usage{InputTokens: 5, OutputTokens: 2, CachedTokens: 3}}
	})
	body := `{"model":"gpt-5","stream":true,"stream_options":{"include_usage":true},
		"messages":[{"role":"system","content":"sys"},{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"a"}]}]}`
	resp, data, err := post(t, context.Background(), srv.URL+"/chat/completions", map[string]string{"Authorization": "Bearer k"}, body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	s := string(data)
	for _, want := range []string{`"content":"hi"`, `"content":" there"`, `"finish_reason":"stop"`,
		`"choices":[]`, `"cached_tokens":3`, "data: [DONE]\n\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("stream lacks %s:\n%s", want, s)
		}
	}
	r := srv.Requests()[0]
	want := []providers.Message{{Role: "user", Content: "q"}, {Role: "assistant", Content: "a"}}
	if r.Model != "gpt-5" || r.System != "sys" || !reflect.DeepEqual(r.Messages, want) || r.Path != "/v1/chat/completions" {
		t.Errorf("decoded %+v", r)
	}
}

func TestFakesRefuseBadKeyTheVendorsWay(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		fake   func(testing.TB, func(providertest.Request) providertest.Reply) *providertest.Server
		path   string
		header map[string]string
		status int
		marker string
	}{
		{"openai", providertest.OpenAI, "/chat/completions", map[string]string{"Authorization": "Bearer bad-key"}, 401, "invalid_api_key"},
		{"anthropic", providertest.Anthropic, "/v1/messages", map[string]string{"X-Api-Key": "bad-key"}, 401, "authentication_error"},
		{"gemini", providertest.Gemini, "/v1beta/models/g:streamGenerateContent?alt=sse", map[string]string{"X-Goog-Api-Key": "bad-key"}, 400, "API_KEY_INVALID"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.fake(t, nil)
			resp, data, err := post(t, context.Background(), srv.URL+tc.path, tc.header, `{}`)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.status || !bytes.Contains(data, []byte(tc.marker)) || !json.Valid(data) {
				t.Errorf("status %d body %s", resp.StatusCode, data)
			}
			if len(srv.Requests()) != 1 {
				t.Errorf("requests not recorded")
			}
		})
	}
}

func TestErrorRepliesCarryRetryAfter(t *testing.T) {
	t.Parallel()
	srv := providertest.Gemini(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Status: 429, RetryAfter: "3"}
	})
	resp, data, err := post(t, context.Background(), srv.URL+"/v1beta/models/g:streamGenerateContent", nil, `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" ||
		!bytes.Contains(data, []byte(`"retryDelay":"3s"`)) || !bytes.Contains(data, []byte("RESOURCE_EXHAUSTED")) {
		t.Errorf("status %d header %q body %s", resp.StatusCode, resp.Header.Get("Retry-After"), data)
	}
}

func TestCutAfterBreaksTheBody(t *testing.T) {
	t.Parallel()
	srv := providertest.Anthropic(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: "a b c d", CutAfter: 2}
	})
	_, data, err := post(t, context.Background(), srv.URL+"/v1/messages", nil, `{"model":"m"}`)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want unexpected EOF", err)
	}
	if !bytes.Contains(data, []byte(`"text":" b"`)) || bytes.Contains(data, []byte(`" c"`)) || bytes.Contains(data, []byte("message_stop")) {
		t.Errorf("body before the cut:\n%s", data)
	}
}

func TestForcedToolStreamsInputJSON(t *testing.T) {
	t.Parallel()
	srv := providertest.Anthropic(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Chunks: []string{`{"a":`, `1}`}}
	})
	_, data, err := post(t, context.Background(), srv.URL+"/v1/messages", nil,
		`{"model":"m","tool_choice":{"type":"tool","name":"answer"},"system":[{"type":"text","text":"s"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"type":"tool_use"`, `"name":"answer"`, `"partial_json":"{\"a\":"`, `"stop_reason":"tool_use"`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("stream lacks %s:\n%s", want, data)
		}
	}
	if srv.Requests()[0].System != "s" {
		t.Errorf("system = %q", srv.Requests()[0].System)
	}
}

func TestDelayEndsWhenTheClientGoes(t *testing.T) {
	t.Parallel()
	srv := providertest.Gemini(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: "late", Delay: time.Minute}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, _, err := post(t, ctx, srv.URL+"/v1beta/models/g:streamGenerateContent", nil, `{}`); err == nil {
		t.Fatal("expected the client's deadline to end the request")
	}
	srv.Close() // must not wait out the delay
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v", d)
	}
}
