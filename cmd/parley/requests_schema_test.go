package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	openai "github.com/sashabaranov/go-openai"
	"google.golang.org/genai"
)

// responsesEfforts is ReasoningEffort's enum in openai/openai-openapi's
// openapi.yaml (components.schemas.ReasoningEffort, read 2026-11-25).
var responsesEfforts = []string{"none", "minimal", "low", "medium", "high", "xhigh", "max"}

// TestGoldenRequestBodiesFitTheVendorsTypes decodes every golden request
// body into the vendor's own request type with unknown fields refused —
// the genai SDK's GenerationConfig for Gemini, go-openai's
// CreateResponseRequest (which mirrors the OpenAPI document) for OpenAI —
// and checks each effort against the values the vendor documents
// (Anthropic's OutputConfigEffort in anthropic-sdk-go v1.84.0, Gemini's
// ThinkingLevel, OpenAI's ReasoningEffort enum). Every body sends an
// output limit, and Gemini never gets both thinking fields.
func TestGoldenRequestBodiesFitTheVendorsTypes(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join("testdata", "requests", "*.json"))
	if len(files) < 8 {
		t.Fatalf("%d golden bodies, want every default model's two", len(files))
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var golden struct {
			Path string          `json:"path"`
			Body json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(data, &golden); err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(file)
		switch {
		case strings.Contains(golden.Path, "/responses"):
			var req openai.CreateResponseRequest
			strictDecode(t, name, golden.Body, &req)
			if req.MaxOutputTokens <= 0 {
				t.Errorf("%s: no max_output_tokens", name)
			}
			if req.Reasoning == nil || !slices.Contains(responsesEfforts, req.Reasoning.Effort) {
				t.Errorf("%s: reasoning %+v is not one of the documented efforts", name, req.Reasoning)
			}
		case strings.Contains(golden.Path, "/messages"):
			var req struct {
				MaxTokens    int `json:"max_tokens"`
				OutputConfig struct {
					Effort anthropic.OutputConfigEffort `json:"effort"`
				} `json:"output_config"`
				Thinking json.RawMessage `json:"thinking"`
			}
			_ = json.Unmarshal(golden.Body, &req)
			efforts := []anthropic.OutputConfigEffort{anthropic.OutputConfigEffortLow, anthropic.OutputConfigEffortMedium, anthropic.OutputConfigEffortHigh}
			if req.MaxTokens <= 0 || !slices.Contains(efforts, req.OutputConfig.Effort) || req.Thinking != nil {
				t.Errorf("%s: max_tokens %d, output_config.effort %q, thinking %s", name, req.MaxTokens, req.OutputConfig.Effort, req.Thinking)
			}
		case strings.Contains(golden.Path, "GenerateContent"):
			var req struct {
				GenerationConfig json.RawMessage `json:"generationConfig"`
			}
			_ = json.Unmarshal(golden.Body, &req)
			var cfg genai.GenerationConfig
			strictDecode(t, name, req.GenerationConfig, &cfg)
			tc := cfg.ThinkingConfig
			if cfg.MaxOutputTokens <= 0 || tc == nil || tc.ThinkingBudget != nil ||
				!slices.Contains([]genai.ThinkingLevel{genai.ThinkingLevelLow, genai.ThinkingLevelMedium, genai.ThinkingLevelHigh}, tc.ThinkingLevel) {
				t.Errorf("%s: maxOutputTokens %d, thinkingConfig %+v", name, cfg.MaxOutputTokens, tc)
			}
		default:
			t.Errorf("%s: unknown endpoint %s", name, golden.Path)
		}
	}
}

func strictDecode(t *testing.T, name string, body []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Errorf("%s: %v", name, err)
	}
}
