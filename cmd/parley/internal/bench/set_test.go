package bench

import (
	"fmt"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/verdict"
)

func TestParseJSONLReportsBadLinesByNumber(t *testing.T) {
	t.Parallel()
	in := `{"id":"a","question":"2+2?","answer":"4"}
not json
{"id":"b","question":"Pick","options":["x","y"],"answer":"y"}

{"id":"a","question":"dup","answer":"1"}
{"id":"c","question":"","answer":"1"}
{"id":"d","question":"Which?","options":["x","y"],"answer":"C"}
{"question":"Capital of France?","answer":"Paris "}
{"id":7,"question":"n","answer":1000.0}
`
	qs, bad, err := ParseJSONL(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, q := range qs {
		got = append(got, q.ID+"="+string(q.Type)+":"+q.Answer)
	}
	if strings.Join(got, " ") != "a=number:4 b=option:B line-8=text:paris 7=number:1000" {
		t.Errorf("questions: %v", got)
	}
	var lines []int
	for _, b := range bad {
		lines = append(lines, b.Line)
	}
	if len(bad) != 4 || lines[0] != 2 || lines[1] != 5 || lines[2] != 6 || lines[3] != 7 ||
		!strings.Contains(bad[1].Problem, `duplicate id "a" (first on line 1)`) || !strings.Contains(bad[3].Problem, "names no option") {
		t.Errorf("bad lines: %+v", bad)
	}
}

func TestBuiltinSetsAreSeededAndExact(t *testing.T) {
	t.Parallel()
	a, b := Arith(20, 3), Arith(20, 3)
	for i := range a {
		if a[i].Question != b[i].Question || a[i].Answer != b[i].Answer {
			t.Fatal("same seed, different set")
		}
		var x [6]int
		if n, _ := fmtSscanf(a[i].Question, &x); n != 6 {
			t.Fatalf("question %q", a[i].Question)
		}
		for _, v := range x {
			if v < 10 || v > 99 {
				t.Errorf("%d is not two-digit", v)
			}
		}
		if want := x[0] + x[1]*x[2] + x[3] - x[4]*x[5]; a[i].Answer != itoa(want) {
			t.Errorf("%s: answer %s, want %d", a[i].Question, a[i].Answer, want)
		}
	}
	if Arith(5, 4)[0].Question == a[0].Question {
		t.Error("another seed gave the same question")
	}
	for _, q := range Compare(30, 1) {
		if q.Type != verdict.AnswerOption || len(q.Options) != 2 || (q.Answer != "A" && q.Answer != "B") {
			t.Errorf("compare question %+v", q)
		}
	}
}

func FuzzParseJSONL(f *testing.F) {
	for _, s := range []string{`{"id":"a","question":"q","answer":"1,000"}`, "{\"question\":\"q\",\"options\":[\"a\",\"b\"],\"answer\":\"a\"}\n\n#c\n{", `{"answer":[1]}`, `{"id":{},"question":"q","answer":"x","type":"bogus"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		qs, bad, err := ParseJSONL(strings.NewReader(in))
		if err != nil {
			return
		}
		ids := map[string]bool{}
		for _, q := range qs {
			if q.Question == "" || q.Answer == "" || ids[q.ID] {
				t.Fatalf("accepted a bad question %+v", q)
			}
			ids[q.ID] = true
			if again, err := verdict.NormalizeAnswer(q.Type, q.Answer); err != nil || again != q.Answer {
				t.Fatalf("gold answer %q is not normalised (%q, %v)", q.Answer, again, err)
			}
			_ = q.Prompt()
		}
		for _, b := range bad {
			if b.Line < 1 || b.Problem == "" {
				t.Fatalf("bad line without a number or a reason: %+v", b)
			}
		}
	})
}

func fmtSscanf(q string, x *[6]int) (int, error) {
	return fmt.Sscanf(q, "What is the result of %d+%d*%d+%d-%d*%d?", &x[0], &x[1], &x[2], &x[3], &x[4], &x[5])
}

func itoa(n int) string { return fmt.Sprint(n) }
