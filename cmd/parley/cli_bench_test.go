package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// The costs of the commands a script runs, each beside a floor in the same
// run: A and B are run in turn (A, B, A, B, …) and the median CPU (user +
// system, from the process's rusage) of each is reported.
//
//	go test -run '^$' -bench 'BenchmarkAskFixedCost|BenchmarkSessionsList' -benchtime 1x ./cmd/parley/
//
// (BenchmarkHeadlessStream, in startup_test.go, puts `parley ask` streaming
// 5,000 chunks beside curl -N.)

// cliEnv is an isolated home for the binary, with the openai provider at
// fakeURL when it is given.
type cliEnv struct {
	dir string
	env []string
}

func newCLIEnv(b *testing.B, fakeURL string) *cliEnv {
	b.Helper()
	dir := b.TempDir()
	if fakeURL != "" {
		yaml := "providers:\n  openai: {type: openai, base_url: " + fakeURL + ", api_key_env: PARLEY_TEST_OPENAI_KEY, max_retries: 0}\n"
		if err := os.WriteFile(filepath.Join(dir, "parley.yaml"), []byte(yaml), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	env := append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"PARLEY_CACHE_DIR="+filepath.Join(dir, "cache"), "PARLEY_TEST_OPENAI_KEY=k", "OPENAI_API_KEY=", "PARLEY_DB="+filepath.Join(dir, "parley.db"))
	return &cliEnv{dir: dir, env: env}
}

// cpuOf runs a command to its end and returns its CPU time.
func (e *cliEnv) cpuOf(b *testing.B, name string, args ...string) time.Duration {
	b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = e.dir, e.env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %v: %v\n%s", name, args, err, errOut.String())
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// pair runs a and b in turn rounds times; the medians.
func pair(rounds int, a, b func() time.Duration) (ma, mb time.Duration) {
	var as, bs []time.Duration
	for range rounds {
		as, bs = append(as, a()), append(bs, b())
	}
	median := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	return median(as), median(bs)
}

func chunkFake(b *testing.B, n int) *providertest.Server {
	chunks := make([]string, n)
	for i := range chunks {
		chunks[i] = "w" + strconv.Itoa(i%10) + " "
	}
	return providertest.OpenAI(b, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Chunks: chunks, Usage: providers.Usage{InputTokens: 10, OutputTokens: n}}
	})
}

// BenchmarkAskFixedCost: `parley ask` answered in one chunk by the
// wire-level fake — what a script pays per ask before any token (start-up,
// configuration, the database, one exchange) — and `parley version`
// beside a cobra + viper hello (testdata/hellocli), in CPU.
func BenchmarkAskFixedCost(b *testing.B) {
	parley := buildParley(b)
	hello := filepath.Join(b.TempDir(), "hellocli")
	if out, err := exec.Command("go", "build", "-o", hello, "./testdata/hellocli").CombinedOutput(); err != nil {
		b.Fatalf("building hellocli: %v\n%s", err, out)
	}
	e := newCLIEnv(b, chunkFake(b, 1).URL)
	for range b.N {
		version, floor := pair(15, func() time.Duration { return e.cpuOf(b, parley, "version") },
			func() time.Duration { return e.cpuOf(b, hello, "version") })
		ask, _ := pair(15, func() time.Duration { return e.cpuOf(b, parley, "ask", "@chatgpt hi") }, func() time.Duration { return 0 })
		b.Logf("parley version %.1f ms CPU, cobra+viper hello %.1f ms (%.1f×); parley ask (one chunk) %.1f ms",
			ms(version), ms(floor), float64(version)/float64(floor), ms(ask))
		b.ReportMetric(ms(ask), "ask-ms")
		b.ReportMetric(ms(version), "version-ms")
		b.ReportMetric(ms(floor), "hello-ms")
	}
}

// BenchmarkAskAgainstBase runs this tree's binary and another
// (PARLEY_BENCH_BASE, e.g. main's built with `go build -o`) in turn, each
// on its own database beside the same fake, 101 rounds of `ask` answered
// in one chunk and of `version`: a change to the fixed cost measured
// against what it changed in one run. Besides the medians it reports the
// median of the rounds' ratios (new / base, each pair run back to back),
// which the machine's load drifting over the run moves least.
//
//	go build -o /tmp/parley-base ./cmd/parley   # in the tree to compare against
//	PARLEY_BENCH_BASE=/tmp/parley-base go test -run '^$' -bench BenchmarkAskAgainstBase -benchtime 1x ./cmd/parley/
func BenchmarkAskAgainstBase(b *testing.B) {
	base := os.Getenv("PARLEY_BENCH_BASE")
	if base == "" {
		b.Skip("PARLEY_BENCH_BASE names no binary to compare with")
	}
	// Both run from copies made alike: on this machine the same bytes ran
	// up to 10 % apart from two paths (the page cache of a file written
	// one way or another), more than the changes measured.
	base, parley := copyBinary(b, base), copyBinary(b, buildParley(b))
	fake := chunkFake(b, 1).URL
	eBase, eNew := newCLIEnv(b, fake), newCLIEnv(b, fake)
	for range b.N {
		for _, args := range [][]string{{"ask", "@chatgpt hi"}, {"version"}} {
			var olds, news, ratios []float64
			for range 101 {
				o, n := ms(eBase.cpuOf(b, base, args...)), ms(eNew.cpuOf(b, parley, args...))
				olds, news, ratios = append(olds, o), append(news, n), append(ratios, n/o)
			}
			median := func(v []float64) float64 { slices.Sort(v); return v[len(v)/2] }
			o, n, r := median(olds), median(news), median(ratios)
			b.Logf("parley %s: %.1f ms CPU against the base's %.1f; the rounds' ratios' median %.3f×", args[0], n, o, r)
			b.ReportMetric(n, args[0]+"-ms")
			b.ReportMetric(o, "base-"+args[0]+"-ms")
			b.ReportMetric(r, args[0]+"-ratio")
		}
	}
}

// copyBinary copies the executable at path into a new folder.
func copyBinary(b *testing.B, path string) string {
	b.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	dst := filepath.Join(b.TempDir(), filepath.Base(path))
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		b.Fatal(err)
	}
	return dst
}

func BenchmarkSessionsList(b *testing.B) {
	const n = 10000
	parley := buildParley(b)
	fake := chunkFake(b, 1)
	e := newCLIEnv(b, fake.URL)
	e.cpuOf(b, parley, "ask", "@chatgpt a question to copy") // one real session, copied below
	db := filepath.Join(e.dir, "parley.db")
	copySessions := fmt.Sprintf(`WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM k WHERE i < %d)
		INSERT INTO conversation_meta (conversation_id, topic, mode, title, state, start_time, updated_time)
		SELECT printf('%%012x', i), m.topic, m.mode, m.title, m.state, m.start_time, strftime('%%Y-%%m-%%dT%%H:%%M:%%f000000Z', 'now', '-' || i || ' seconds')
		FROM conversation_meta m, k;
		INSERT INTO conversation_log (conversation_id, turn_number, speaker_name, model_used, response, display_name, provider, mode, kind, status, tokens_in, tokens_out, cost_usd, origin, finished_time)
		SELECT m.conversation_id, l.turn_number, l.speaker_name, l.model_used, l.response, l.display_name, l.provider, l.mode, l.kind, l.status, l.tokens_in, l.tokens_out, l.cost_usd, l.origin, l.finished_time
		FROM conversation_log l, conversation_meta m WHERE m.conversation_id <> l.conversation_id;`, n-1)
	if out, err := exec.Command("sqlite3", db, copySessions).CombinedOutput(); err != nil {
		b.Fatalf("sqlite3: %v\n%s", err, out)
	}
	for range b.N {
		list, floor := pair(7, func() time.Duration { return e.cpuOf(b, parley, "sessions", "list") },
			func() time.Duration { return e.cpuOf(b, "sqlite3", db, store.ListSQL) })
		js, _ := pair(7, func() time.Duration { return e.cpuOf(b, parley, "sessions", "list", "--json") }, func() time.Duration { return 0 })
		b.Logf("sessions list of %d: %.0f ms CPU, --json %.0f ms; sqlite3 running its query %.0f ms (%.2f×)",
			n, ms(list), ms(js), ms(floor), float64(list)/float64(floor))
		b.ReportMetric(ms(list), "list-ms")
		b.ReportMetric(ms(js), "json-ms")
		b.ReportMetric(ms(floor), "sqlite3-ms")
	}
}
