package serve

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// BenchmarkSSEFanout: one text delta from the engine to 100 SSE clients
// over real HTTP connections; the time until the 100th client has parsed
// it. Goal: p99 ≤ 20 ms.
func BenchmarkSSEFanout(b *testing.B) {
	for _, n := range []int{100} {
		b.Run(fmt.Sprintf("subscribers=%d", n), func(b *testing.B) {
			f := newFixture(b)
			id := f.createSession(map[string]any{"mode": "mention"})
			ss := f.srv.sessions.live[id]
			type receipt struct {
				n  int
				at time.Time
			}
			got := make(chan receipt, n*4)
			var wg sync.WaitGroup
			for range n {
				s := f.events(id, "", "")
				wg.Add(1)
				go func() {
					defer wg.Done()
					for s.sc.Scan() {
						line := s.sc.Bytes()
						if len(line) < 6 || string(line[:6]) != "data: " {
							continue
						}
						var d debate.TextDelta
						if json.Unmarshal(line[6:], &d) != nil || d.Agent != "bench" {
							continue
						}
						k, _ := strconv.Atoi(d.Text)
						got <- receipt{k, time.Now()}
					}
				}()
			}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				t0 := time.Now()
				ss.eng.Emit(debate.TextDelta{Turn: 1, Agent: "bench", Text: strconv.Itoa(i)})
				var last time.Time
				for range n {
					r := <-got
					if r.n != i {
						b.Fatalf("client got delta %d during round %d", r.n, i)
					}
					last = r.at
				}
				lat = append(lat, last.Sub(t0))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)*50/100].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99-ms")
			f.srv.Close() // ends the streams
			wg.Wait()
		})
	}
}

// BenchmarkServeConcurrentSessions: sessions each asking one agent at once
// over the API, against a fake provider that answers after 100 ms and
// streams ten chunks 10 ms apart; wall time ÷ one session's wall time
// (goal ≤ 1.2).
func BenchmarkServeConcurrentSessions(b *testing.B) {
	for _, n := range []int{1, 50} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			f := newFixture(b, func(o *Options) {
				o.Agents = fakeAgents(b, func(providertest.Request) providertest.Reply {
					return providertest.Reply{Chunks: strings.Fields("a short answer streamed in ten chunks, one every ten ms"),
						Delay: 100 * time.Millisecond, ChunkDelay: 10 * time.Millisecond, Usage: providers.Usage{InputTokens: 20, OutputTokens: 10}}
				})
			})
			var ones []time.Duration // one session's wall time: the median of 5
			for range 5 {
				ones = append(ones, runSessions(b, f, 1))
			}
			slices.Sort(ones)
			one := ones[2]
			var total time.Duration
			b.ResetTimer()
			for range b.N {
				total += runSessions(b, f, n)
			}
			b.StopTimer()
			b.ReportMetric(float64(total/time.Duration(b.N))/float64(one), "wall/one")
			b.ReportMetric(float64(one.Microseconds())/1000, "one-ms")
		})
	}
}

// runSessions creates n sessions, then posts one question to each at once
// over HTTP and waits for every answer to be in; it returns that wall time.
func runSessions(b *testing.B, f *fixture, n int) time.Duration {
	b.StopTimer()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = f.createSession(map[string]any{"mode": "mention"})
	}
	b.StartTimer()
	t0 := time.Now()
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if code, body := f.do("POST", "/api/v1/sessions/"+id+"/messages", `{"text":"@chatgpt hi"}`); code != 202 {
				b.Errorf("%d %s", code, body)
			}
			f.waitIdle(id)
		}()
	}
	wg.Wait()
	elapsed := time.Since(t0)
	b.StopTimer()
	f.srv.sessions.closeAll() // live sessions do not pile up over b.N
	b.StartTimer()
	return elapsed
}

// BenchmarkDoorRequest: one non-streaming OpenAI-door request (model
// chatgpt, one agent, a new saved session) in process, against the wire
// fake: what the soak's door figure is made of, with its allocations.
func BenchmarkDoorRequest(b *testing.B) {
	f := newFixture(b, func(o *Options) {
		o.Agents = fakeAgents(b, func(providertest.Request) providertest.Reply {
			return providertest.Reply{Text: "A short answer from the fake.", Usage: providers.Usage{InputTokens: 40, OutputTokens: 8}}
		})
	})
	body := `{"model":"chatgpt","messages":[{"role":"user","content":"one short question"}]}`
	b.ReportAllocs()
	for b.Loop() {
		if code, out := f.do("POST", "/v1/chat/completions", body); code != 200 {
			b.Fatalf("%d %s", code, out)
		}
	}
}
