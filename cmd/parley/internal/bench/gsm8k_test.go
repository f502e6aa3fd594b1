package bench

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/verdict"
)

const fixture = "testdata/gsm8k_fixture.jsonl"

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func gzipped(t testing.TB, raw []byte) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(raw)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestParseGSM8KTakesTheNumberAfterTheMarks(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string][]byte{"plain": raw, "gzip": gzipped(t, raw)} {
		qs, bad, err := ParseGSM8K(bytes.NewReader(body))
		if err != nil || len(bad) != 0 {
			t.Fatalf("%s: %v %v", name, err, bad)
		}
		var got []string
		for _, q := range qs {
			got = append(got, q.ID+"="+q.Answer)
			if q.Type != verdict.AnswerNumber || strings.Contains(q.Question, "####") {
				t.Errorf("%s: %+v", name, q)
			}
		}
		if strings.Join(got, " ") != "gsm8k-0001=36 gsm8k-0002=1500 gsm8k-0003=-7 gsm8k-0004=36" {
			t.Errorf("%s: %v", name, got)
		}
	}
	in := "{\"question\":\"q\",\"answer\":\"no marks 5\"}\n\n{\"question\":\"\",\"answer\":\"#### 1\"}\n{\"question\":\"q\",\"answer\":\"#### one\"}\n{\"question\":\"q\"}\n{\"question\":\"ok\",\"answer\":\"a #### 2 #### 3\"} {}\n{\"question\":\"ok\",\"answer\":\"x #### 3.50\"}\n"
	qs, bad, err := ParseGSM8K(strings.NewReader(in))
	if err != nil || len(qs) != 1 || qs[0].ID != "gsm8k-0007" || qs[0].Answer != "3.5" {
		t.Fatalf("questions %+v, %v", qs, err)
	}
	var lines []string
	for _, b := range bad {
		lines = append(lines, fmt.Sprint(b.Line))
	}
	if strings.Join(lines, ",") != "1,3,4,5,6" || !strings.Contains(bad[0].Problem, `no "####"`) || !strings.Contains(bad[2].Problem, "holds no number") {
		t.Errorf("bad lines %+v", bad)
	}
}

func TestLoadGSM8KLooksInOrderAndSaysHowToInstall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	raw, _ := os.ReadFile(fixture)
	flag, env := filepath.Join(dir, "flag.jsonl"), filepath.Join(dir, "env.jsonl.gz")
	os.WriteFile(flag, raw[:bytes.IndexByte(raw, '\n')+1], 0o600) // one problem
	os.WriteFile(env, gzipped(t, raw), 0o600)                     // four, compressed
	xdg := filepath.Join(dir, "xdg")
	count := func(data string, vars map[string]string) (int, error) {
		qs, _, _, err := LoadGSM8K(data, envOf(vars))
		return len(qs), err
	}
	if n, err := count(flag, map[string]string{"PARLEY_GSM8K": env, "XDG_DATA_HOME": xdg}); n != 1 || err != nil {
		t.Errorf("--data: %d, %v", n, err)
	}
	if n, err := count("", map[string]string{"PARLEY_GSM8K": env, "XDG_DATA_HOME": xdg}); n != 4 || err != nil {
		t.Errorf("$PARLEY_GSM8K: %d, %v", n, err)
	}
	if _, err := count(filepath.Join(dir, "nope.jsonl"), map[string]string{"XDG_DATA_HOME": xdg}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing --data file: %v", err)
	}
	if _, err := count("", map[string]string{"PARLEY_GSM8K": filepath.Join(dir, "nope"), "XDG_DATA_HOME": xdg}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing $PARLEY_GSM8K file: %v", err)
	}
	_, err := count("", map[string]string{"XDG_DATA_HOME": xdg})
	var missing *MissingGSM8KError
	if !errors.As(err, &missing) {
		t.Fatalf("nothing installed: %v", err)
	}
	for _, want := range []string{GSM8KURL, "MIT licence", "Cobbe et al. 2021", "parley bench gsm8k-install", filepath.Join(xdg, "parley", "gsm8k", "test.jsonl.gz"), "--demo"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%s", want, err)
		}
	}
	plain := filepath.Join(xdg, "parley", "gsm8k", "test.jsonl")
	os.MkdirAll(filepath.Dir(plain), 0o755)
	os.WriteFile(plain, raw, 0o600)
	if n, err := count("", map[string]string{"XDG_DATA_HOME": xdg}); n != 4 || err != nil {
		t.Errorf("an uncompressed copy under XDG_DATA_HOME: %d, %v", n, err)
	}
}

// gsm8kLike writes n problems in GSM8K's format, about as long as the real
// ones (about 570 bytes a line).
func gsm8kLike(n int) []byte {
	var b bytes.Buffer
	for i, q := range GSM8KStyle(n, 3) {
		var steps strings.Builder
		for k := range 4 {
			fmt.Fprintf(&steps, "Step %d takes %d + %d = <<%d+%d=%d>>%d of them.\n", k+1, i, k, i, k, i+k, i+k)
		}
		line, _ := json.Marshal(map[string]string{"question": q.Question, "answer": steps.String() + "#### " + q.Answer})
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func TestInstallGSM8KChecksAndCompresses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := envOf(map[string]string{"XDG_DATA_HOME": filepath.Join(dir, "xdg")})
	if _, err := InstallGSM8K(fixture, env); err == nil || !strings.Contains(err.Error(), "4 problems, GSM8K's test split has 1319") {
		t.Errorf("a four-problem file: %v", err)
	}
	broken := filepath.Join(dir, "broken.jsonl")
	os.WriteFile(broken, append(gsm8kLike(GSM8KProblems-1), "{oops\n"...), 0o600)
	if _, err := InstallGSM8K(broken, env); err == nil || !strings.Contains(err.Error(), "line 1319") {
		t.Errorf("a file with a bad line: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "xdg")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused install left files behind")
	}
	good := filepath.Join(dir, "test.jsonl")
	os.WriteFile(good, gsm8kLike(GSM8KProblems), 0o600)
	in, err := InstallGSM8K(good, env)
	dest := in.Dest
	if err != nil || in.Problems != GSM8KProblems || in.Published || !strings.HasSuffix(dest, filepath.Join("parley", "gsm8k", "test.jsonl.gz")) {
		t.Fatalf("install of a valid file that is not the published one: %+v %v", in, err)
	}
	if w := in.NotPublishedWarning(good); !strings.Contains(w, "not the published test set") || !strings.Contains(w, GSM8KSHA256) {
		t.Errorf("warning: %s", w)
	}
	stored, _ := os.ReadFile(dest)
	if !bytes.HasPrefix(stored, []byte{0x1f, 0x8b}) {
		t.Errorf("the installed copy is not gzip")
	}
	qs, _, path, err := LoadGSM8K("", env)
	if err != nil || path != dest || len(qs) != GSM8KProblems || qs[41].Answer != GSM8KStyle(GSM8KProblems, 3)[41].Answer {
		t.Errorf("loading the installed copy: %d from %s, %v", len(qs), path, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dest))
	if len(entries) != 1 {
		t.Errorf("install left %d files, want only the copy", len(entries))
	}
}

func TestSampleQuestionsIsSeeded(t *testing.T) {
	t.Parallel()
	all := GSM8KStyle(200, 1)
	a, b, c := SampleQuestions(all, 20, 7), SampleQuestions(all, 20, 7), SampleQuestions(all, 20, 8)
	same, differ := true, false
	for i := range a {
		same = same && a[i].ID == b[i].ID
		differ = differ || a[i].ID != c[i].ID
		if i > 0 && a[i].ID <= a[i-1].ID {
			t.Errorf("sample out of the set's order: %s after %s", a[i].ID, a[i-1].ID)
		}
	}
	if !same || !differ || len(a) != 20 || len(SampleQuestions(all, 0, 1)) != DefaultN || len(SampleQuestions(all, 500, 1)) != 200 {
		t.Errorf("same seed same sample %v, other seed differs %v", same, differ)
	}
}

func TestGSM8KStyleProblemsAreWholeAndPositive(t *testing.T) {
	t.Parallel()
	qs := GSM8KStyle(300, 5)
	for i, q := range qs {
		var n int
		if _, err := fmt.Sscan(q.Answer, &n); err != nil || n <= 0 || q.Question == "" {
			t.Errorf("problem %d: %q → %q", i, q.Question, q.Answer)
		}
	}
	if GSM8KStyle(5, 5)[3].Question != qs[3].Question || GSM8KStyle(5, 6)[3].Question == qs[3].Question {
		t.Errorf("the generator is not seeded")
	}
}

func FuzzParseGSM8K(f *testing.F) {
	raw, _ := os.ReadFile(fixture)
	for _, s := range []string{string(raw), `{"question":"q","answer":"#### 1,000"}`, `{"question":"q","answer":"#### 1,5"}`,
		"{\"question\":1}\n{", `{"question":"q","answer":"####"}`, string(gzipped(f, raw)), "\x1f\x8b\x08garbage"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		qs, bad, err := ParseGSM8K(strings.NewReader(in))
		if err != nil {
			return
		}
		ids := map[string]bool{}
		for _, q := range qs {
			if q.Question == "" || ids[q.ID] || q.Type != verdict.AnswerNumber {
				t.Fatalf("accepted a bad problem %+v", q)
			}
			ids[q.ID] = true
			if again, err := verdict.NormalizeAnswer(verdict.AnswerNumber, q.Answer); err != nil || again != q.Answer {
				t.Fatalf("gold %q is not a normalised number (%q, %v)", q.Answer, again, err)
			}
		}
		for _, b := range bad {
			if b.Line < 1 || b.Problem == "" {
				t.Fatalf("bad line without a number or a reason: %+v", b)
			}
		}
	})
}
