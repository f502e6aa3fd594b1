// Command sdkstream is the fair floor of Parley's streaming benchmarks: the
// least a Go program pays to read an OpenAI Responses stream through the
// SDK Parley uses (go-openai, the same version), with nothing of Parley's.
//
//	sdkstream read URL [QUESTION]
//	                     reads one answer from the server at URL (its base,
//	                     …/v1) and writes its text to stdout: headless's floor
//	sdkstream relay URL  serves Chat Completions chunks, one per upstream
//	                     text delta, each JSON-encoded and flushed: the
//	                     door's floor; it prints its address first
package main

import (
	"bufio"
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
		fmt.Fprintln(os.Stderr, "usage: sdkstream read URL [QUESTION] | relay URL")
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
