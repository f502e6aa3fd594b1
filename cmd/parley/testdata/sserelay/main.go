// Command sserelay is the floor BenchmarkDoorStream compares the OpenAI
// door with: a minimal Go HTTP server that sends each request's body on to
// the upstream URL given as its argument and relays the event stream back,
// flushing after every line. It prints its address first.
package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
)

func main() {
	upstream := os.Args[1]
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("http://" + ln.Addr().String())
	_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequestWithContext(r.Context(), http.MethodPost, upstream, r.Body)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer k")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			_, _ = w.Write(append(sc.Bytes(), '\n'))
			f.Flush()
		}
	}))
}
