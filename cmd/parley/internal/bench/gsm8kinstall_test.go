package bench

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/bench/gsm8ktest"
	"github.com/parleyhq/parley/internal/numfmt"
)

// readReal is the real test set's bytes.
func readReal(tb testing.TB) []byte {
	raw, err := os.ReadFile(gsm8ktest.RealFile(tb))
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// mirror serves body at /test.jsonl, as a mirror (or GitHub) would, with its
// length.
func mirror(t *testing.T, body []byte) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/test.jsonl" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// installedNothing fails when a refused download left anything under xdg.
func installedNothing(t *testing.T, xdg, what string) {
	t.Helper()
	if _, err := os.Stat(xdg); !errors.Is(err, os.ErrNotExist) {
		entries, _ := filepath.Glob(filepath.Join(xdg, "*", "*", "*"))
		t.Errorf("%s: a refused download left files behind: %v", what, entries)
	}
}

func TestPinnedChecksumIsThePublishedOne(t *testing.T) {
	if GSM8KSHA256 != gsm8ktest.SHA256 {
		t.Fatalf("pinned %s, published %s", GSM8KSHA256, gsm8ktest.SHA256)
	}
	if !strings.HasPrefix(GSM8KURL, "https://raw.githubusercontent.com/openai/grade-school-math/") || !strings.HasSuffix(GSM8KURL, "/grade_school_math/data/test.jsonl") {
		t.Errorf("not the official raw address: %s", GSM8KURL)
	}
}

func TestDownloadGSM8KInstallsThePublishedSet(t *testing.T) {
	real := readReal(t)
	for name, body := range map[string][]byte{"plain": real, "gzip copy": gzipped(t, real)} {
		t.Run(name, func(t *testing.T) {
			srv := mirror(t, body)
			xdg := filepath.Join(t.TempDir(), "xdg")
			env := envOf(map[string]string{"XDG_DATA_HOME": xdg, GSM8KURLEnv: srv.URL + "/test.jsonl"})
			var bar bytes.Buffer
			in, err := DownloadGSM8K(context.Background(), GSM8KDownload{Progress: &bar, Timeout: time.Minute}, env)
			if err != nil || !in.Published || in.Problems != GSM8KProblems || in.SHA256 != gsm8ktest.SHA256 {
				t.Fatalf("%+v, %v", in, err)
			}
			of := numfmt.Thousands(len(body))
			if !strings.HasSuffix(bar.String(), "GSM8K: "+of+" of "+of+" bytes\n") || strings.Count(bar.String(), "\n") > 4 {
				t.Errorf("piped progress, a line a quarter:\n%s", bar.String())
			}
			stored, _ := os.ReadFile(in.Dest)
			if !bytes.HasPrefix(stored, []byte{0x1f, 0x8b}) || len(stored) >= len(real)/2 {
				t.Errorf("the installed copy is not compressed: %d bytes", len(stored))
			}
			qs, _, path, err := LoadGSM8K("", env)
			if err != nil || path != in.Dest || len(qs) != GSM8KProblems {
				t.Errorf("loading the installed copy: %d from %s, %v", len(qs), path, err)
			}
			if plain, _ := plainGSM8K(stored); !bytes.Equal(plain, real) {
				t.Errorf("the installed copy is not the file byte for byte")
			}
		})
	}
}

func TestDownloadGSM8KDrawsABarOnATerminal(t *testing.T) {
	real := readReal(t)
	srv := mirror(t, real)
	var bar bytes.Buffer
	env := envOf(map[string]string{"XDG_DATA_HOME": filepath.Join(t.TempDir(), "xdg")})
	if _, err := DownloadGSM8K(context.Background(), GSM8KDownload{URL: srv.URL + "/test.jsonl", Progress: &bar, TTY: true}, env); err != nil {
		t.Fatal(err)
	}
	frames := strings.Split(strings.TrimSuffix(bar.String(), "\n"), "\r\x1b[K")
	last := frames[len(frames)-1]
	if len(frames) < 3 || frames[0] != "" || last != "GSM8K ["+strings.Repeat("█", 24)+"] 749,738 of 749,738 bytes" || !strings.HasSuffix(bar.String(), "\n") {
		t.Errorf("%d frames, last %q", len(frames), last)
	}
}

func TestDownloadGSM8KRefusesWhatIsNotThePublishedSet(t *testing.T) {
	real := readReal(t)
	// A letter of the first question changed: the file still parses, so only
	// the checksum can refuse it.
	corrupted := bytes.Clone(real)
	at := bytes.Index(corrupted, []byte("Janet"))
	corrupted[at] = 'B'
	if qs, bad, err := ParseGSM8K(bytes.NewReader(corrupted)); err != nil || len(bad) != 0 || len(qs) != GSM8KProblems {
		t.Fatalf("the corrupted copy should still parse: %d %v %v", len(qs), bad, err)
	}
	cut := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(real)))
		w.Write(real[:len(real)/2])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // closes the connection mid-body
	}))
	defer cut.Close()
	stalled := make(chan struct{})
	stall := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // answers nothing until the client gives up
		case <-r.Context().Done():
		case <-stalled:
		}
	}))
	defer stall.Close()
	defer close(stalled)
	good := mirror(t, real)
	bad := mirror(t, corrupted)
	for _, c := range []struct {
		name, url string
		timeout   time.Duration
		want      []string
	}{
		{"corrupted byte", bad.URL + "/test.jsonl", 0, []string{"sha256", GSM8KSHA256, "refused, nothing installed"}},
		{"corrupted gzip copy", "", 0, []string{"sha256", "refused"}},
		{"404", good.URL + "/nope.jsonl", 0, []string{"404 Not Found", "nothing installed"}},
		{"cut connection", cut.URL + "/test.jsonl", 0, []string{"connection was cut", "nothing installed"}},
		{"timeout", stall.URL + "/test.jsonl", 50 * time.Millisecond, []string{"no complete answer within 50ms (--timeout)", "nothing installed"}},
		{"not http", "file:///etc/passwd", 0, []string{"not an http(s) address"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.url == "" {
				srv := mirror(t, gzipped(t, corrupted))
				c.url = srv.URL + "/test.jsonl"
			}
			xdg := filepath.Join(t.TempDir(), "xdg")
			in, err := DownloadGSM8K(context.Background(), GSM8KDownload{URL: c.url, Timeout: c.timeout}, envOf(map[string]string{"XDG_DATA_HOME": xdg}))
			if err == nil {
				t.Fatalf("accepted: %+v", in)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q: %v", w, err)
				}
			}
			installedNothing(t, xdg, c.name)
		})
	}
}

func TestDownloadGSM8KRefusesAnOversizedBody(t *testing.T) {
	srv := mirror(t, bytes.Repeat([]byte("x"), maxGSM8KBytes+10))
	xdg := filepath.Join(t.TempDir(), "xdg")
	_, err := DownloadGSM8K(context.Background(), GSM8KDownload{URL: srv.URL + "/test.jsonl"}, envOf(map[string]string{"XDG_DATA_HOME": xdg}))
	if err == nil || !strings.Contains(err.Error(), "not GSM8K's test set") {
		t.Errorf("%v", err)
	}
	installedNothing(t, xdg, "oversized")
}

func TestInstallGSM8KFromDiskChecksTheSameWay(t *testing.T) {
	real := readReal(t)
	dir := t.TempDir()
	env := envOf(map[string]string{"XDG_DATA_HOME": filepath.Join(dir, "xdg")})
	gz := filepath.Join(dir, "test.jsonl.gz")
	os.WriteFile(gz, gzipped(t, real), 0o600)
	in, err := InstallGSM8K(gz, env)
	if err != nil || !in.Published || in.Problems != GSM8KProblems {
		t.Fatalf("the published set, gzip, from disk: %+v %v", in, err)
	}
	edited := bytes.Replace(real, []byte("Janet"), []byte("Jones"), 1)
	other := filepath.Join(dir, "edited.jsonl")
	os.WriteFile(other, edited, 0o600)
	in, err = InstallGSM8K(other, env)
	if err != nil || in.Published || in.Problems != GSM8KProblems {
		t.Errorf("a valid edited copy from disk is accepted, flagged: %+v %v", in, err)
	}
}

func TestLoadGSM8KReadsTheRealSet(t *testing.T) {
	path := gsm8ktest.RealFile(t)
	qs, bad, _, err := LoadGSM8K(path, envOf(nil))
	if err != nil || len(bad) != 0 || len(qs) != GSM8KProblems {
		t.Fatalf("%d problems, %d bad lines, %v", len(qs), len(bad), err)
	}
	first, last := qs[0], qs[len(qs)-1]
	if first.ID != "gsm8k-0001" || first.Answer != "18" || !strings.HasPrefix(first.Question, "Janet’s ducks lay 16 eggs per day.") {
		t.Errorf("first: %+v", first)
	}
	if last.ID != "gsm8k-1319" || last.Answer != "14" || !strings.HasPrefix(last.Question, "Henry and 3 of his friends order 7 pizzas for lunch.") {
		t.Errorf("last: %+v", last)
	}
	// Every label, read straight from the file: an integer after "####".
	raw := readReal(t)
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	label := regexp.MustCompile(`#### (-?[0-9,]+)"}$`)
	for i, line := range lines {
		m := label.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("line %d has no integer label after ####: %.80s…", i+1, line[max(0, len(line)-80):])
		}
		n, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
		if err != nil || qs[i].Answer != strconv.Itoa(n) || qs[i].ID != "gsm8k-"+leftPad(i+1) {
			t.Errorf("line %d: label %s, loaded %+v", i+1, m[1], qs[i])
		}
	}
}

func leftPad(n int) string { return strings.Repeat("0", 4-len(strconv.Itoa(n))) + strconv.Itoa(n) }

// BenchmarkLoadGSM8K reads the real test set and samples 50 of it, as every
// builtin:gsm8k run does: the installed gzip copy, and the plain file. On a
// shared, loaded machine wall time (ms/load) waits for the CPU; cpu-ms/load
// is the process CPU (getrusage) a load costs, GC included.
func BenchmarkLoadGSM8K(b *testing.B) {
	real := readReal(b)
	gz := filepath.Join(b.TempDir(), "test.jsonl.gz")
	if err := os.WriteFile(gz, gzipped(b, real), 0o600); err != nil {
		b.Fatal(err)
	}
	for name, path := range map[string]string{"installed-gzip": gz, "plain": gsm8ktest.RealFile(b)} {
		b.Run(name, func(b *testing.B) {
			cpu0 := processCPU(b)
			for range b.N {
				qs, bad, _, err := LoadGSM8K(path, envOf(nil))
				if err != nil || len(bad) > 0 || len(qs) != GSM8KProblems {
					b.Fatal(err, len(bad), len(qs))
				}
				_ = SampleQuestions(qs, 50, 1)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/load")
			b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/load")
		})
	}
}

// processCPU is the user and system CPU time the process has used.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
