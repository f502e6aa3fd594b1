package bench

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruthfulQAIsReadAsMultipleChoice(t *testing.T) {
	qs, bad, err := Load(filepath.Join("testdata", "truthfulqa_fixture.csv"), 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Row 5 lists no incorrect answer: no choice to make, reported by line.
	if len(bad) != 1 || bad[0].Line != 6 || !strings.Contains(bad[0].Problem, "Incorrect Answers") {
		t.Errorf("bad rows %+v", bad)
	}
	if len(qs) != 5 {
		t.Fatalf("%d questions, want 5", len(qs))
	}
	best := []string{"It passes through your digestive system", "No, goldfish remember things for months", "White", "The Pacific Ocean",
		"No, studies have found no link"}
	sizes := []int{4, 3, 4, 4, 3} // the best answer and the incorrect ones; "The Pacific" is listed correct too
	for i, q := range qs {
		if q.Type != "option" || len(q.Options) != sizes[i] || q.Options[q.Answer[0]-'A'] != best[i] {
			t.Errorf("%s: %q, answer %s: %q", q.ID, q.Question, q.Answer, q.Options)
		}
		for _, o := range q.Options {
			if o == "The Pacific" {
				t.Errorf("%s: a correct answer among the wrong options", q.ID)
			}
		}
	}
	if qs[0].ID != "truthfulqa-0001" || qs[4].ID != "truthfulqa-0006" {
		t.Errorf("ids %s … %s: the row numbers", qs[0].ID, qs[4].ID)
	}
}

func TestMMLUSubjectFileIsReadByItsColumns(t *testing.T) {
	qs, bad, err := Load(filepath.Join("testdata", "mmlu", "astronomy_test.csv"), 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) != 1 || bad[0].Line != 7 || !strings.Contains(bad[0].Problem, "option C is empty") {
		t.Errorf("bad rows %+v", bad)
	}
	right := []string{"Mercury", "8 minutes", "Hydrogen", "Pluto", "Gravity", "Surface temperature"}
	if len(qs) != len(right) {
		t.Fatalf("%d questions", len(qs))
	}
	for i, q := range qs {
		if len(q.Options) != 4 || q.Options[q.Answer[0]-'A'] != right[i] || !strings.HasPrefix(q.ID, "mmlu-astronomy-000") {
			t.Errorf("%s: %q answer %s", q.ID, q.Options, q.Answer)
		}
	}
	if !strings.Contains(qs[5].Question, `its "what"?`) {
		t.Errorf("quoted field: %q", qs[5].Question)
	}
}

// The options are shuffled by the seed: the right answer moves, the same
// seed gives the same order, and over the set the letters differ.
func TestOptionsAreShuffledBySeed(t *testing.T) {
	path := filepath.Join("testdata", "mmlu", "astronomy_test.csv")
	a, _, _ := Load(path, 0, 1)
	again, _, _ := Load(path, 0, 1)
	letters := func(qs []Question) string {
		var b strings.Builder
		for _, q := range qs {
			b.WriteString(q.Answer)
		}
		return b.String()
	}
	differs := false
	for seed := uint64(2); seed < 6; seed++ {
		b, _, _ := Load(path, 0, seed)
		differs = differs || letters(b) != letters(a)
	}
	if letters(a) != letters(again) || !differs || letters(a) == "BBCADB" {
		t.Errorf("seed 1: %s, again %s; other seeds differ: %v (published order BBCADB)", letters(a), letters(again), differs)
	}
}

func TestACSVOfNeitherLayoutNamesTheColumn(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"id,prompt,label\n1,What?,4\n", "3 columns, not MMLU's 6"},
		{"Question,Best Answer,Incorrect Answers\nq,a,b\n", `no "Correct Answers" column`},
		{"What?,a,b,c,d,E\n", `column 6 (MMLU's answer) is "E"`},
		{"", "empty CSV file"},
		{"q,\"a,b,c,d,A\n", "CSV:"},
	} {
		_, _, err := ParseCSVSet(strings.NewReader(c.text), "x.csv", 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
	_, _, err := Load(filepath.Join("testdata", "not_a_set.csv"), 0, 1)
	var format *CSVFormatError
	if !errors.As(err, &format) || !strings.Contains(err.Error(), "not_a_set.csv") {
		t.Errorf("Load: %v", err)
	}
}

func FuzzParseCSVSet(f *testing.F) {
	for _, name := range []string{"truthfulqa_fixture.csv", "mmlu/astronomy_test.csv", "not_a_set.csv"} {
		raw, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw, uint64(1))
	}
	f.Add([]byte("Question,Best Answer,Correct Answers,Incorrect Answers\n\"q\",\"\",;;,\"a;b\"\n"), uint64(7))
	f.Fuzz(func(t *testing.T, raw []byte, seed uint64) {
		qs, bad, err := ParseCSVSet(bytes.NewReader(raw), "subject_test.csv", seed)
		if err != nil {
			if len(qs) != 0 || len(bad) != 0 {
				t.Fatalf("an error with results: %v", err)
			}
			return
		}
		ids := map[string]bool{}
		for _, q := range qs {
			if ids[q.ID] {
				t.Fatalf("duplicate id %s", q.ID)
			}
			ids[q.ID] = true
			if len(q.Options) < 2 || len(q.Options) > maxOptions || len(q.Answer) != 1 || int(q.Answer[0]-'A') >= len(q.Options) || q.Question == "" {
				t.Fatalf("question %+v", q)
			}
			for _, o := range q.Options {
				if strings.TrimSpace(o) == "" {
					t.Fatalf("empty option in %+v", q)
				}
			}
			if !utf8.ValidString(q.Prompt()) && utf8.Valid(raw) {
				t.Fatalf("prompt not UTF-8 from UTF-8 input")
			}
		}
		for _, b := range bad {
			if b.Line < 1 || b.Problem == "" {
				t.Fatalf("bad row %+v", b)
			}
		}
	})
}
