package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to read the ledger as it is

	"github.com/parleyhq/parley/debate/store/pgtest"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// Twenty OpenAI-door requests at once, ten to each of two parley serve
// replicas on one Postgres, from twenty users, against a server window
// (server_max_cost_per_day, defaulting to max_cost_per_day: $0.05) that
// holds five worst cases ($0.0090 each: 1000 tokens at $9 per 1M). The
// fake provider holds every call it receives until each request was
// either received or refused, so no early settle frees room: exactly five
// reach it, the fifteen others are refused with the documented 429 naming
// the server's window, and the database's window never holds more than
// the cap; once all answered, it holds nothing in flight and has spent
// what the five cost.
func TestReplicasShareTheSpendWindows(t *testing.T) {
	t.Parallel() // its own rig (folder, fake, binary processes) and its own Postgres schema
	r := newSharedRig(t)
	c := pgtest.Require(t)
	url := c.Schema(t)
	const requests, admits, capUSD = 20, 5, 0.05

	var mu sync.Mutex
	arrived, refused := 0, 0
	release := make(chan struct{})
	settled := func() { // under mu: every request is accounted for
		if arrived+refused == requests {
			close(release)
		}
	}
	fake := providertest.OpenAI(t, func(req providertest.Request) providertest.Reply {
		if n := len(req.Messages); n == 0 || !strings.Contains(req.Messages[n-1].Content, "spend race") {
			return providertest.Reply{Text: "ok"}
		}
		mu.Lock()
		arrived++
		settled()
		mu.Unlock()
		select {
		case <-release:
		case <-time.After(90 * time.Second): // the test fails on its own count
		}
		return providertest.Reply{Text: "an answer", Usage: providers.Usage{InputTokens: 10, OutputTokens: 100}}
	})
	r.env = append(r.env, "OPENAI_BASE_URL="+fake.URL)
	config := "agents:\n  - name: chatgpt\n    max_tokens: 1000\npricing:\n  gpt-6.1-sol: {input: 0, output: 9}\nserve:\n  max_cost_per_day: 0.05\n"
	if err := os.WriteFile(filepath.Join(r.dir, "parley.yaml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	a, _ := r.serveReplica(url)
	b, _ := r.serveReplica(url)
	day := time.Now().UTC().Format(time.DateOnly)

	type answer struct {
		code int
		body []byte
	}
	answers := make(chan answer, requests)
	var wg sync.WaitGroup
	for i := range requests {
		wg.Go(func() {
			base := a
			if i%2 == 1 {
				base = b
			}
			body := fmt.Sprintf(`{"model":"chatgpt","user":"u%02d","messages":[{"role":"user","content":"spend race %02d"}]}`, i, i)
			resp, err := http.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(body))
			if err != nil {
				t.Error(err)
				return
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				mu.Lock()
				refused++
				settled()
				mu.Unlock()
			}
			answers <- answer{resp.StatusCode, data}
		})
	}
	wg.Wait()
	close(answers)
	if time.Now().UTC().Format(time.DateOnly) != day {
		t.Skip("the day (UTC) turned during the test: its window started again; run it again")
	}

	ran, spentByAnswers := 0, 0.0
	for ans := range answers {
		switch ans.code {
		case http.StatusOK:
			var done struct {
				Parley struct {
					CostUSD float64 `json:"cost_usd"`
				} `json:"parley"`
			}
			if err := json.Unmarshal(ans.body, &done); err != nil {
				t.Fatal(err)
			}
			ran++
			spentByAnswers += done.Parley.CostUSD
		case http.StatusTooManyRequests:
			var e struct {
				Error struct{ Code, Message string }
			}
			_ = json.Unmarshal(ans.body, &e)
			if e.Error.Code != "server_max_cost_per_day" || !strings.HasPrefix(e.Error.Message, "spend limit reached: this server ") {
				t.Errorf("a refusal: %s, want the server's day window", ans.body)
			}
		default:
			t.Errorf("a request answered %d %s, want 200 or 429", ans.code, ans.body)
		}
	}
	if ran != admits || arrived != admits {
		t.Fatalf("%d requests answered and %d reached the provider, want exactly %d of %d under a window of %d worst cases",
			ran, arrived, admits, requests, admits)
	}

	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var spent, reserved float64
	if err := db.QueryRow(`SELECT spent, reserved FROM spend_window WHERE server = 1 AND setting = 'server_max_cost_per_day'`).Scan(&spent, &reserved); err != nil {
		t.Fatal(err)
	}
	if spent+reserved > capUSD || reserved > 1e-12 || math.Abs(spent-spentByAnswers) > 1e-9 || spent == 0 {
		t.Fatalf("the server's day holds spent %v and %v in flight; want what the %d answers cost (%v), nothing in flight, under %v",
			spent, reserved, admits, spentByAnswers, capUSD)
	}
	t.Logf("%d of %d admitted across two replicas; the window spent $%.4f of $%.2f", ran, requests, spent, capUSD)
}
