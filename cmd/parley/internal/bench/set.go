// Package bench runs a labelled question set through MAGI councils and
// measures, from the same calls, each member alone, the round-1 majority,
// the verdict after each later round and early stop: accuracy with Wilson
// intervals, the debate's delta with an exact McNemar test, flips, cost.
// It drives the engine like any consumer: one engine per question, read
// through its events (MagiRoundFinished, MagiDecided).
package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/parleyhq/parley/debate/verdict"
)

// Question is one labelled item of a set.
type Question struct {
	ID       string             `json:"id"`
	Question string             `json:"question"`
	Options  []string           `json:"options,omitempty"`
	Answer   string             `json:"answer"` // normalised for Type
	Type     verdict.AnswerType `json:"type"`
}

// Prompt is what the council is asked: the question, then its options
// lettered A, B, C, ...
func (q Question) Prompt() string {
	if len(q.Options) == 0 {
		return q.Question
	}
	var b strings.Builder
	b.WriteString(q.Question)
	b.WriteString("\n\nOptions:")
	for i, o := range q.Options {
		fmt.Fprintf(&b, "\n%c) %s", 'A'+i, o)
	}
	b.WriteString("\n\nAnswer with the option's letter.")
	return b.String()
}

// LineError is a line of a JSONL set that was skipped, and why.
type LineError struct {
	Line    int
	Problem string
}

func (e LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Problem) }

// maxSetLine bounds one JSONL line (a question with its options).
const maxSetLine = 1 << 20

// maxOptions is the most options a question may have (A to Z).
const maxOptions = 26

// ParseJSONL reads a set, one {"id","question","options"?,"answer","type"?}
// object a line. Bad lines are returned with their line numbers, never
// dropped silently; blank lines and lines starting with # are skipped.
// The type is inferred when absent: option with options, number when the
// answer reads as one, else text.
func ParseJSONL(r io.Reader) ([]Question, []LineError, error) {
	var (
		out  []Question
		seen = map[string]int{}
	)
	bad, err := eachLine(r, func(line int, text string) error {
		if strings.HasPrefix(text, "#") {
			return nil
		}
		q, err := parseLine(text)
		if err != nil {
			return err
		}
		if q.ID == "" {
			q.ID = fmt.Sprintf("line-%d", line)
		}
		if first, dup := seen[q.ID]; dup {
			return fmt.Errorf("duplicate id %q (first on line %d)", q.ID, first)
		}
		seen[q.ID] = line
		out = append(out, q)
		return nil
	})
	return out, bad, err
}

// eachLine calls fn with every non-blank line of r, trimmed and numbered
// from 1; the lines fn refuses come back with their numbers and reasons. A
// line over 1 MiB ends the reading, reported as a bad line.
func eachLine(r io.Reader, fn func(line int, text string) error) ([]LineError, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxSetLine)
	var bad []LineError
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		if err := fn(line, text); err != nil {
			bad = append(bad, LineError{Line: line, Problem: err.Error()})
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return append(bad, LineError{Line: line + 1, Problem: "line longer than 1 MiB; reading stopped"}), nil
		}
		return bad, err
	}
	return bad, nil
}

func parseLine(text string) (Question, error) {
	var raw struct {
		ID       json.RawMessage `json:"id"`
		Question string          `json:"question"`
		Options  []string        `json:"options"`
		Answer   json.RawMessage `json:"answer"`
		Type     string          `json:"type"`
	}
	dec := json.NewDecoder(strings.NewReader(text))
	if err := dec.Decode(&raw); err != nil {
		return Question{}, fmt.Errorf("not a JSON object with string fields: %v", err)
	}
	if dec.More() {
		return Question{}, errors.New("more than one JSON value on the line")
	}
	q := Question{Question: strings.TrimSpace(raw.Question), Options: raw.Options}
	id, err := scalar(raw.ID)
	if err != nil {
		return Question{}, fmt.Errorf(`"id": %v`, err)
	}
	q.ID = strings.TrimSpace(id)
	answer, err := scalar(raw.Answer)
	switch {
	case err != nil:
		return Question{}, fmt.Errorf(`"answer": %v`, err)
	case q.Question == "":
		return Question{}, errors.New(`"question" is missing or empty`)
	case strings.TrimSpace(answer) == "":
		return Question{}, errors.New(`"answer" is missing or empty`)
	case len(q.Options) > maxOptions:
		return Question{}, fmt.Errorf("%d options; at most %d (A to Z)", len(q.Options), maxOptions)
	case len(q.Options) == 1:
		return Question{}, errors.New("one option is no choice; give two or more, or none")
	}
	for i, o := range q.Options {
		if strings.TrimSpace(o) == "" {
			return Question{}, fmt.Errorf("option %c is empty", 'A'+i)
		}
	}
	q.Type, err = verdict.ParseAnswerType(raw.Type)
	if err != nil {
		return Question{}, err
	}
	if raw.Type == "" {
		q.Type = inferType(q, answer)
	}
	if q.Type == verdict.AnswerOption {
		if len(q.Options) == 0 {
			return Question{}, errors.New(`type "option" needs "options"`)
		}
		answer = optionLetter(q.Options, answer)
	}
	q.Answer, err = verdict.NormalizeAnswer(q.Type, answer)
	if err != nil {
		return Question{}, fmt.Errorf(`"answer": %v`, err)
	}
	if q.Type == verdict.AnswerOption && int(q.Answer[0]-'A') >= len(q.Options) {
		return Question{}, fmt.Errorf(`"answer" %s names no option (there are %d)`, q.Answer, len(q.Options))
	}
	return q, nil
}

// scalar reads a JSON string or number as text ("" when absent).
func scalar(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), nil
	}
	return "", errors.New("must be a string or a number")
}

func inferType(q Question, answer string) verdict.AnswerType {
	if len(q.Options) > 0 {
		return verdict.AnswerOption
	}
	if _, err := verdict.NormalizeAnswer(verdict.AnswerNumber, answer); err == nil {
		return verdict.AnswerNumber
	}
	return verdict.AnswerText
}

// optionLetter maps an answer given as an option's text to its letter.
func optionLetter(options []string, answer string) string {
	for i, o := range options {
		if strings.EqualFold(strings.TrimSpace(o), strings.TrimSpace(answer)) {
			return string(rune('A' + i))
		}
	}
	return answer
}

// Builtin sets are generated from a seed, so a run can be repeated.
const (
	BuiltinArith   = "builtin:arith"
	BuiltinCompare = "builtin:compare"
)

// Load reads a set by name: a builtin (generated with n questions from
// seed) or a JSONL file (its first n questions when n > 0).
func Load(name string, n int, seed uint64) ([]Question, []LineError, error) {
	switch name {
	case BuiltinArith:
		return Arith(n, seed), nil, nil
	case BuiltinCompare:
		return Compare(n, seed), nil, nil
	}
	if strings.HasPrefix(name, "builtin:") {
		return nil, nil, fmt.Errorf("unknown built-in set %q (builtin:arith, builtin:compare, builtin:gsm8k)", name)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	parse := ParseJSONL
	if strings.EqualFold(filepath.Ext(name), ".csv") {
		parse = func(r io.Reader) ([]Question, []LineError, error) { return ParseCSVSet(r, name, seed) }
	}
	qs, bad, err := parse(f)
	var format *CSVFormatError
	if errors.As(err, &format) {
		err = fmt.Errorf("%s: %w", name, err)
	}
	if n > 0 && len(qs) > n {
		qs = qs[:n]
	}
	return qs, bad, err
}

// DefaultN is the size of a builtin set when --n is not given.
const DefaultN = 50

// Arith is Du et al.'s (2023) arithmetic task: a+b*c+d-e*f over six
// random two-digit numbers, with its exact value.
func Arith(n int, seed uint64) []Question {
	if n <= 0 {
		n = DefaultN
	}
	r := rand.New(rand.NewPCG(seed, 0xa417))
	out := make([]Question, n)
	for i := range out {
		var x [6]int
		for k := range x {
			x[k] = 10 + r.IntN(90)
		}
		value := x[0] + x[1]*x[2] + x[3] - x[4]*x[5]
		out[i] = Question{ID: fmt.Sprintf("arith-%04d", i+1), Type: verdict.AnswerNumber, Answer: fmt.Sprint(value),
			Question: fmt.Sprintf("What is the result of %d+%d*%d+%d-%d*%d? Give the exact integer.", x[0], x[1], x[2], x[3], x[4], x[5])}
	}
	return out
}

// Compare asks which of a product and a nearby number is larger, with the
// two as options in a seeded order.
func Compare(n int, seed uint64) []Question {
	if n <= 0 {
		n = DefaultN
	}
	r := rand.New(rand.NewPCG(seed, 0xc0de))
	out := make([]Question, n)
	for i := range out {
		a, b := 11+r.IntN(89), 11+r.IntN(89)
		delta := 1 + r.IntN(max(1, a*b/20))
		if r.IntN(2) == 0 {
			delta = -delta
		}
		product, other := fmt.Sprintf("%d × %d", a, b), fmt.Sprint(a*b+delta)
		opts, answer := []string{product, other}, "B"
		if delta < 0 {
			answer = "A"
		}
		if r.IntN(2) == 0 {
			opts = []string{other, product}
			answer = map[string]string{"A": "B", "B": "A"}[answer]
		}
		out[i] = Question{ID: fmt.Sprintf("compare-%04d", i+1), Type: verdict.AnswerOption, Options: opts, Answer: answer,
			Question: "Which is larger?"}
	}
	return out
}
