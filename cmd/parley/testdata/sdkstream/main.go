// Command sdkstream is the fair floor of Parley's streaming benchmarks: the
// least a Go program pays to read an OpenAI Responses stream through the
// SDK Parley uses (go-openai, the same version), with nothing of Parley's.
//
//	sdkstream read URL [QUESTION]
//	                     reads one answer from the server at URL (its base,
//	                     …/v1) and writes its text to stdout: headless's floor
//	sdkstream hand URL [QUESTION]
//	                     the same without the SDK: net/http, a bufio line
//	                     reader and json into a two-field struct — what a
//	                     minimal hand decoder costs (Parley's adapter lets
//	                     the SDK send the request, then reads the stream
//	                     much like this: providers/openai/eventlines.go)
//	sdkstream relay URL  serves Chat Completions chunks, one per upstream
//	                     text delta, each JSON-encoded and flushed: the
//	                     door's floor; it prints its address first
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	openai "github.com/sashabaranov/go-openai"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: sdkstream read URL [QUESTION] | hand URL [QUESTION] | relay URL")
		os.Exit(2)
	}
	cfg := openai.DefaultConfig("k")
	cfg.BaseURL = os.Args[2]
	client := openai.NewClientWithConfig(cfg)
	var err error
	switch os.Args[1] {
	case "read":
		out := bufio.NewWriter(os.Stdout)
		question := "count"
		if len(os.Args) > 3 {
			question = os.Args[3]
		}
		err = stream(context.Background(), client, question, func(delta string) error {
			_, err := out.WriteString(delta)
			return err
		})
		if err == nil {
			err = out.Flush()
		}
	case "hand":
		question := "count"
		if len(os.Args) > 3 {
			question = os.Args[3]
		}
		err = hand(os.Args[2], question)
	case "relay":
		err = relay(client)
	default:
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// stream reads one answer and hands each text delta to emit.
func stream(ctx context.Context, client *openai.Client, question string, emit func(string) error) error {
	store := false
	s, err := client.CreateResponseStream(ctx, openai.CreateResponseRequest{Model: "gpt-6.1-sol", Input: question, Store: &store})
	if err != nil {
		return err
	}
	defer s.Close()
	for {
		ev, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if ev.Type == openai.ResponseStreamEventOutputTextDelta {
			if err := emit(ev.Delta); err != nil {
				return err
			}
		}
	}
}

// hand reads one answer from the Responses API at base with no SDK: one
// POST, then each "data: " line decoded into the two fields it needs.
func hand(base, question string) error {
	body, err := json.Marshal(map[string]any{"model": "gpt-6.1-sol", "stream": true, "store": false, "input": question})
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, base+"/responses", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer k")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %s", resp.Status)
	}
	out := bufio.NewWriter(os.Stdout)
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(make([]byte, 64<<10), 1<<20)
	var ev struct {
		Type  string `json:"type"`
		Delta string `json:"delta"`
	}
	for lines.Scan() {
		data, ok := bytes.CutPrefix(lines.Bytes(), []byte("data: "))
		if !ok || bytes.Equal(data, []byte("[DONE]")) {
			continue
		}
		ev.Type, ev.Delta = "", ""
		if err := json.Unmarshal(data, &ev); err != nil {
			return err
		}
		if ev.Type == "response.output_text.delta" {
			if _, err := out.WriteString(ev.Delta); err != nil {
				return err
			}
		}
	}
	if err := lines.Err(); err != nil {
		return err
	}
	return out.Flush()
}

// chunk is the least of a Chat Completions stream chunk.
type chunk struct {
	Choices [1]struct {
		Delta struct {
			Content string `json:"content"`
		} `json:"delta"`
	} `json:"choices"`
}

func relay(client *openai.Client) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println("http://" + ln.Addr().String())
	return http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		flush := w.(http.Flusher)
		err := stream(r.Context(), client, "count", func(delta string) error {
			var c chunk
			c.Choices[0].Delta.Content = delta
			data, err := json.Marshal(c)
			if err != nil {
				return err
			}
			if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
				return err
			}
			flush.Flush()
			return nil
		})
		if err == nil {
			_, _ = io.WriteString(w, "data: [DONE]\n\n")
		}
	}))
}
