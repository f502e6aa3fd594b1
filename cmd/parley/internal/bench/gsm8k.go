package bench

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/verdict"
)

// BuiltinGSM8K is the GSM8K test set (Cobbe et al. 2021), read from a file
// the user downloaded: Parley does not ship it.
const BuiltinGSM8K = "builtin:gsm8k"

// GSM8KProblems is the size of the official test split; an install of any
// other size is refused (a truncated download, or the train split).
const GSM8KProblems = 1319

// GSM8KURL is the test split's official raw address in openai/grade-school-math.
const GSM8KURL = "https://raw.githubusercontent.com/openai/grade-school-math/master/grade_school_math/data/test.jsonl"

// gsm8kRelPath is the installed file under $XDG_DATA_HOME.
var gsm8kRelPath = filepath.Join("parley", "gsm8k", "test.jsonl.gz")

// ParseGSM8K reads GSM8K's JSONL, one {"question": …, "answer": "…#### 72"}
// a line, plain or gzip-compressed (told by its first bytes). The gold answer
// is the number after the last "####", thousands commas removed; problem i
// (1-based line number) is "gsm8k-000i". Bad lines are returned by number,
// never dropped silently; blank lines are skipped.
func ParseGSM8K(r io.Reader) ([]Question, []LineError, error) {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("gzip: %w", err)
		}
		defer zr.Close()
		return parseGSM8KLines(zr)
	}
	return parseGSM8KLines(br)
}

func parseGSM8KLines(r io.Reader) ([]Question, []LineError, error) {
	var out []Question
	bad, err := eachLine(r, func(line int, text string) error {
		q, err := parseGSM8KLine([]byte(text))
		if err != nil {
			return err
		}
		q.ID = fmt.Sprintf("gsm8k-%04d", line)
		out = append(out, q)
		return nil
	})
	return out, bad, err
}

func parseGSM8KLine(text []byte) (Question, error) {
	var raw struct {
		Question *string `json:"question"`
		Answer   *string `json:"answer"`
	}
	if err := json.Unmarshal(text, &raw); err != nil { // one value a line: trailing text is an error too
		return Question{}, fmt.Errorf(`not a JSON object with string "question" and "answer": %v`, err)
	}
	switch {
	case raw.Question == nil || strings.TrimSpace(*raw.Question) == "":
		return Question{}, errors.New(`"question" is missing or empty`)
	case raw.Answer == nil:
		return Question{}, errors.New(`"answer" is missing`)
	}
	i := strings.LastIndex(*raw.Answer, "####")
	if i < 0 {
		return Question{}, errors.New(`"answer" has no "####" before the final number`)
	}
	gold, err := verdict.NormalizeAnswer(verdict.AnswerNumber, (*raw.Answer)[i+4:])
	if err != nil {
		return Question{}, fmt.Errorf(`the number after "####": %v`, err)
	}
	return Question{Question: strings.TrimSpace(*raw.Question), Answer: gold, Type: verdict.AnswerNumber}, nil
}

// GSM8KPaths are where builtin:gsm8k looks, in order: --data, $PARLEY_GSM8K,
// then the installed copy under $XDG_DATA_HOME (~/.local/share), compressed
// or not.
func GSM8KPaths(data string, getenv func(string) string) []string {
	var out []string
	if data != "" {
		return []string{data} // an explicit file is the only candidate
	}
	if p := getenv("PARLEY_GSM8K"); p != "" {
		out = append(out, p)
	}
	if p, err := GSM8KInstallPath(getenv); err == nil {
		out = append(out, p, strings.TrimSuffix(p, ".gz"))
	}
	return out
}

// GSM8KInstallPath is where gsm8k-install puts the test set.
func GSM8KInstallPath(getenv func(string) string) (string, error) {
	dir, err := store.DataDir(getenv)
	if err != nil {
		return "", fmt.Errorf("cannot find where to keep GSM8K: set XDG_DATA_HOME (%w)", err)
	}
	return filepath.Join(dir, gsm8kRelPath), nil
}

// MissingGSM8KError says the test set is not there and how to get it.
type MissingGSM8KError struct{ Tried []string }

func (e *MissingGSM8KError) Error() string {
	return fmt.Sprintf(`builtin:gsm8k needs the GSM8K test set (1,319 problems), which Parley does not ship. Install it with

  parley bench gsm8k-install

which downloads it from %s
(MIT licence; Cobbe et al. 2021, "Training Verifiers to Solve Math Word Problems"), checks its sha256
and keeps a compressed copy. Or give the file with --data FILE or PARLEY_GSM8K=FILE.
--demo runs a labelled simulation without it.
looked in: %s`, GSM8KURL, strings.Join(e.Tried, ", "))
}

// FindGSM8K is the first of GSM8KPaths that exists. A file named with
// --data or $PARLEY_GSM8K must exist; the installed copies are looked for.
func FindGSM8K(data string, getenv func(string) string) (string, error) {
	paths := GSM8KPaths(data, getenv)
	named := data != "" || getenv("PARLEY_GSM8K") != "" // paths[0] was asked for by name
	for i, p := range paths {
		_, err := os.Stat(p)
		if err == nil || (named && i == 0) {
			return p, err
		}
	}
	return "", &MissingGSM8KError{Tried: paths}
}

// LoadGSM8K reads the test set FindGSM8K finds.
func LoadGSM8K(data string, getenv func(string) string) (qs []Question, bad []LineError, path string, err error) {
	if path, err = FindGSM8K(data, getenv); err != nil {
		return nil, nil, path, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, path, err
	}
	defer f.Close()
	qs, bad, err = ParseGSM8K(f)
	if err != nil {
		return nil, nil, path, fmt.Errorf("%s: %w", path, err)
	}
	return qs, bad, path, nil
}

// SampleQuestions draws n questions at random with seed (n ≤ 0: DefaultN;
// n ≥ len: all), kept in the set's order: the same seed draws the same ones.
func SampleQuestions(qs []Question, n int, seed uint64) []Question {
	if n <= 0 {
		n = DefaultN
	}
	if n >= len(qs) {
		return qs
	}
	r := rand.New(rand.NewPCG(seed, 0x65d8))
	picked := r.Perm(len(qs))[:n]
	sort.Ints(picked)
	out := make([]Question, n)
	for i, k := range picked {
		out[i] = qs[k]
	}
	return out
}
