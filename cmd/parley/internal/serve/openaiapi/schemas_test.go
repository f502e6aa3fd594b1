package openaiapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	openai "github.com/sashabaranov/go-openai"
)

// The schemas are openai/openai-openapi's (testdata/openai-chat-schemas.json
// says which commit); testdata/extract-schemas.py made the file from its
// openapi.json.
const schemaFile = "testdata/openai-chat-schemas.json"

// openaiSchema resolves one of the OpenAPI document's component schemas.
func openaiSchema(t *testing.T, name string) *jsonschema.Resolved {
	t.Helper()
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs map[string]*jsonschema.Schema `json:"$defs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Defs[name] == nil {
		t.Fatalf("%s has no schema %s", schemaFile, name)
	}
	root := &jsonschema.Schema{Schema: "https://json-schema.org/draft/2020-12/schema", Ref: "#/$defs/" + name, Defs: doc.Defs}
	rs, err := root.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return rs
}

// exchange is one request and answer that passed the recorder.
type exchange struct {
	method, path string
	status       int
	request      []byte
	response     []byte
	contentType  string
}

// recorder keeps every /v1/ exchange the server answered.
type recorder struct {
	next http.Handler
	mu   sync.Mutex
	all  []exchange
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	rw := httptest.NewRecorder()
	tee := &teeWriter{ResponseWriter: w, copy: rw}
	rec.next.ServeHTTP(tee, r)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.all = append(rec.all, exchange{method: r.Method, path: r.URL.Path, status: tee.status, request: body,
		response: rw.Body.Bytes(), contentType: w.Header().Get("Content-Type")})
}

// teeWriter answers the client and keeps a copy.
type teeWriter struct {
	http.ResponseWriter
	copy   *httptest.ResponseRecorder
	status int
}

func (t *teeWriter) WriteHeader(code int) { t.status = code; t.ResponseWriter.WriteHeader(code) }
func (t *teeWriter) Write(b []byte) (int, error) {
	if t.status == 0 {
		t.status = http.StatusOK
	}
	t.copy.Write(b)
	return t.ResponseWriter.Write(b)
}
func (t *teeWriter) Flush() { t.ResponseWriter.(http.Flusher).Flush() }

func validate(t *testing.T, rs *jsonschema.Resolved, what string, data []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s is not JSON: %v: %s", what, err, data)
	}
	if err := rs.Validate(v); err != nil {
		t.Errorf("%s does not fit openai-openapi's schema: %v\n%s", what, err, data)
	}
}

// TestBodiesFitOpenAIsSchemas: every request and answer of a go-openai
// session — models, a completion, streams with and without usage, errors
// — validated against openai-openapi's CreateChatCompletionRequest,
// CreateChatCompletionResponse, CreateChatCompletionStreamResponse,
// ListModelsResponse, Model and ErrorResponse.
func TestBodiesFitOpenAIsSchemas(t *testing.T) {
	t.Parallel()
	f := newFixture(t, demoAgents)
	rec := &recorder{next: f.srv.Handler()}
	ts := httptest.NewServer(rec)
	defer ts.Close()
	cfg := openai.DefaultConfig(f.token)
	cfg.BaseURL = ts.URL + "/v1"
	client := openai.NewClientWithConfig(cfg)
	msgs := []openai.ChatCompletionMessage{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Go?"}}
	if _, err := client.ListModels(ctx(t)); err != nil {
		t.Fatal(err)
	}
	_, _ = client.GetModel(ctx(t), "magi")
	_, _ = client.GetModel(ctx(t), "nobody")
	if _, err := client.CreateChatCompletion(ctx(t), openai.ChatCompletionRequest{Model: "council", Messages: msgs, MaxCompletionTokens: 500, ReasoningEffort: "low", Metadata: map[string]string{"k": "v"}}); err != nil {
		t.Fatal(err)
	}
	_, _ = client.CreateChatCompletion(ctx(t), openai.ChatCompletionRequest{Model: "nobody", Messages: msgs})
	wrong := openai.DefaultConfig("not-the-token")
	wrong.BaseURL = cfg.BaseURL
	if _, err := openai.NewClientWithConfig(wrong).ListModels(ctx(t)); err == nil {
		t.Fatal("a wrong token was let in")
	}
	for _, usage := range []bool{false, true} {
		s, err := client.CreateChatCompletionStream(ctx(t), openai.ChatCompletionRequest{Model: "magi", Messages: msgs, Stream: true,
			StreamOptions: &openai.StreamOptions{IncludeUsage: usage}})
		if err != nil {
			t.Fatal(err)
		}
		readStream(t, s)
		s.Close()
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, name := range []string{"CreateChatCompletionRequest", "CreateChatCompletionResponse", "CreateChatCompletionStreamResponse", "ListModelsResponse", "Model", "ErrorResponse"} {
		schemas[name] = openaiSchema(t, name)
	}
	var checked, chunks int
	for _, ex := range rec.all {
		what := ex.method + " " + ex.path
		switch {
		case ex.status >= 400:
			validate(t, schemas["ErrorResponse"], what+" error", ex.response)
		case ex.path == "/v1/models":
			validate(t, schemas["ListModelsResponse"], what, ex.response)
		case strings.HasPrefix(ex.path, "/v1/models/"):
			validate(t, schemas["Model"], what, ex.response)
		case strings.HasPrefix(ex.contentType, "text/event-stream"):
			chunks += validateStream(t, schemas, what, ex.response)
		default:
			validate(t, schemas["CreateChatCompletionResponse"], what, ex.response)
		}
		if ex.method == "POST" {
			validate(t, schemas["CreateChatCompletionRequest"], what+" request", ex.request)
		}
		checked++
	}
	if checked != 8 || chunks < 10 {
		t.Fatalf("validated %d exchanges and %d chunks, want 8 and many", checked, chunks)
	}
}

// validateStream checks each data line of an SSE answer; it returns how many.
func validateStream(t *testing.T, schemas map[string]*jsonschema.Resolved, what string, body []byte) int {
	t.Helper()
	n := 0
	lines := strings.Split(string(body), "\n")
	if last := strings.TrimSpace(strings.Join(lines[max(0, len(lines)-3):], "\n")); last != "data: [DONE]" {
		t.Errorf("%s: the stream does not end with data: [DONE]: %q", what, last)
	}
	for _, line := range lines {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		name := "CreateChatCompletionStreamResponse"
		if strings.HasPrefix(data, `{"error"`) {
			name = "ErrorResponse"
		}
		validate(t, schemas[name], what+" chunk", []byte(data))
		n++
	}
	return n
}
