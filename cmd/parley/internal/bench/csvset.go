package bench

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"

	"github.com/parleyhq/parley/internal/lazyregexp"

	"github.com/parleyhq/parley/debate/verdict"
)

// The multiple-choice knowledge sets read as published (docs/bench.md,
// "Knowledge sets"): TruthfulQA's TruthfulQA.csv (Lin et al. 2021) and
// MMLU's per-subject CSVs (Hendrycks et al. 2021).

// maxCSVBytes bounds a CSV set (TruthfulQA.csv is ~0.5 MB, the largest
// MMLU subject ~0.3 MB).
const maxCSVBytes = 64 << 20

// truthfulQAColumns are the columns TruthfulQA's multiple choice is built
// from.
var truthfulQAColumns = []string{"Question", "Best Answer", "Correct Answers", "Incorrect Answers"}

// CSVFormatError says a CSV file is neither layout, naming the column.
type CSVFormatError struct{ Problem string }

func (e *CSVFormatError) Error() string {
	return "not a TruthfulQA or MMLU CSV: " + e.Problem +
		" (TruthfulQA.csv has a header with Question, Best Answer, Correct Answers, Incorrect Answers; an MMLU subject file has no header and six columns: question, options A–D, the answer letter)"
}

// ParseCSVSet reads a multiple-choice set in either published layout,
// told by its columns: a header naming TruthfulQA's columns, or MMLU's six
// columns without a header. name (the file's path) gives MMLU's subject for
// the ids. Each question's options are shuffled by seed, so the right
// answer's position varies; the gold answer is its letter. Bad rows come
// back by line, never dropped silently.
func ParseCSVSet(r io.Reader, name string, seed uint64) ([]Question, []LineError, error) {
	lr := &io.LimitedReader{R: r, N: maxCSVBytes + 1}
	cr := csv.NewReader(lr)
	cr.FieldsPerRecord = -1
	var (
		out   []Question
		bad   []LineError
		read  func([]string) (Question, error)
		first = true
		mmlu  bool
	)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("CSV: %w", err) // a broken quote: the rows after it cannot be told apart
		}
		line, _ := cr.FieldPos(0)
		if first {
			first = false
			rec[0] = strings.TrimPrefix(rec[0], "\ufeff") // a byte-order mark
			header := map[string]int{}
			for i, col := range rec {
				header[strings.TrimSpace(col)] = i
			}
			if _, ok := header["Question"]; ok {
				for _, col := range truthfulQAColumns {
					if _, ok := header[col]; !ok {
						return nil, nil, &CSVFormatError{Problem: fmt.Sprintf("a header with Question but no %q column", col)}
					}
				}
				read = func(rec []string) (Question, error) { return truthfulQARow(rec, header) }
				continue
			}
			if err := mmluShape(rec); err != nil {
				return nil, nil, err
			}
			read, mmlu = mmluRow, true
		}
		q, err := read(rec)
		if err != nil {
			bad = append(bad, LineError{Line: line, Problem: err.Error()})
			continue
		}
		q.ID = fmt.Sprintf("%s-%04d", csvPrefix(name, mmlu), len(out)+len(bad)+1)
		shuffleOptions(&q, seed)
		out = append(out, q)
	}
	switch {
	case lr.N <= 0:
		return nil, nil, fmt.Errorf("CSV larger than %d MiB", maxCSVBytes>>20)
	case first:
		return nil, nil, errors.New("empty CSV file")
	}
	return out, bad, nil
}

// mmluShape checks a header-less first row against MMLU's layout.
func mmluShape(rec []string) error {
	if len(rec) != 6 {
		return &CSVFormatError{Problem: fmt.Sprintf("no Question column in the first row, and %d columns, not MMLU's 6", len(rec))}
	}
	if !isLetterAD(rec[5]) {
		return &CSVFormatError{Problem: fmt.Sprintf("column 6 (MMLU's answer) is %q, not a letter A–D", clip(rec[5]))}
	}
	return nil
}

func isLetterAD(s string) bool {
	s = strings.TrimSpace(s)
	return len(s) == 1 && s[0] >= 'A' && s[0] <= 'D'
}

// mmluRow is a question, options A–D and the answer letter.
func mmluRow(rec []string) (Question, error) {
	if len(rec) != 6 {
		return Question{}, fmt.Errorf("%d columns; MMLU rows have 6", len(rec))
	}
	q := Question{Question: strings.TrimSpace(rec[0]), Type: verdict.AnswerOption}
	for i, o := range rec[1:5] {
		o = strings.TrimSpace(o)
		if o == "" {
			return Question{}, fmt.Errorf("option %c is empty", 'A'+i)
		}
		q.Options = append(q.Options, o)
	}
	switch {
	case q.Question == "":
		return Question{}, errors.New("the question (column 1) is empty")
	case !isLetterAD(rec[5]):
		return Question{}, fmt.Errorf("the answer (column 6) is %q, not a letter A–D", clip(rec[5]))
	}
	q.Answer = strings.TrimSpace(rec[5])
	return q, nil
}

// truthfulQARow makes a multiple choice of a TruthfulQA row: the best
// answer and every incorrect answer (semicolon-separated), without
// duplicates and without an incorrect answer that is also listed correct.
func truthfulQARow(rec []string, header map[string]int) (Question, error) {
	col := func(name string) string {
		if i := header[name]; i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	q := Question{Question: col("Question"), Type: verdict.AnswerOption}
	best := col("Best Answer")
	switch {
	case q.Question == "":
		return Question{}, errors.New(`"Question" is empty`)
	case best == "":
		return Question{}, errors.New(`"Best Answer" is empty`)
	}
	correct := map[string]bool{strings.ToLower(best): true}
	for _, a := range splitAnswers(col("Correct Answers")) {
		correct[strings.ToLower(a)] = true
	}
	q.Options = []string{best}
	seen := map[string]bool{strings.ToLower(best): true}
	for _, a := range splitAnswers(col("Incorrect Answers")) {
		k := strings.ToLower(a)
		if correct[k] || seen[k] || len(q.Options) == maxOptions {
			continue
		}
		seen[k] = true
		q.Options = append(q.Options, a)
	}
	if len(q.Options) < 2 {
		return Question{}, errors.New(`no "Incorrect Answers" to choose against`)
	}
	q.Answer = "A" // the best answer, before the shuffle
	return q, nil
}

// splitAnswers splits TruthfulQA's "a; b; c" lists.
func splitAnswers(s string) []string {
	var out []string
	for _, a := range strings.Split(s, ";") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// shuffleOptions puts q's options in an order drawn from seed and the
// question's id, moving the gold letter with its option.
func shuffleOptions(q *Question, seed uint64) {
	gold := int(q.Answer[0] - 'A')
	perm := rand.New(rand.NewPCG(seed, hashOf("options", q.ID))).Perm(len(q.Options))
	opts := make([]string, len(q.Options))
	for to, from := range perm {
		opts[to] = q.Options[from]
		if from == gold {
			q.Answer = string(rune('A' + to))
		}
	}
	q.Options = opts
}

var subjectRe = lazyregexp.New(`[^a-z0-9_]+`)

// csvPrefix names a set's ids: truthfulqa, or mmlu-SUBJECT from an MMLU
// file's name (abstract_algebra_test.csv → mmlu-abstract_algebra).
func csvPrefix(name string, mmlu bool) string {
	if !mmlu {
		return "truthfulqa"
	}
	base := strings.ToLower(strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)))
	for _, split := range []string{"_test", "_dev", "_val"} {
		base = strings.TrimSuffix(base, split)
	}
	base = strings.Trim(subjectRe.ReplaceAllString(base, "_"), "_")
	if base == "" {
		return "mmlu"
	}
	return "mmlu-" + base
}

// clip shortens outside text for an error message.
func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
