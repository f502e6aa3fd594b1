package verdict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/parleyhq/parley/internal/lazyregexp"

	"github.com/parleyhq/parley/debate/sanitize"
)

// AnswerType says what a MAGI council votes over. Approve (approve /
// reject / abstain) is the default; the others let the same round machinery
// answer a question whose answer is an option letter, a number or a short
// string, and the verdict is the majority answer.
type AnswerType string

const (
	AnswerApprove AnswerType = "approve"
	AnswerOption  AnswerType = "option"
	AnswerNumber  AnswerType = "number"
	AnswerText    AnswerType = "text"
)

// AnswerTypes lists the answer types, the default first.
var AnswerTypes = []AnswerType{AnswerApprove, AnswerOption, AnswerNumber, AnswerText}

// ParseAnswerType reads a configured or flagged answer type ("" is approve).
func ParseAnswerType(s string) (AnswerType, error) {
	switch t := AnswerType(strings.ToLower(strings.TrimSpace(s))); t {
	case "", AnswerApprove:
		return AnswerApprove, nil
	case AnswerOption, AnswerNumber, AnswerText:
		return t, nil
	}
	return "", fmt.Errorf("unknown answer type %q (one of approve, option, number, text)", s)
}

// maxAnswerRunes bounds a normalised text answer: a council votes over
// short answers, not essays.
const maxAnswerRunes = 200

var (
	// numberToken finds a number written with optional sign, thousands
	// commas, decimals and exponent.
	numberToken = lazyregexp.New(`[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|[-+−]?\.\d+`)
	optionToken = lazyregexp.New(`^(?i:option\s+|answer\s*:?\s*)?\(?([A-Za-z])\)?(?:[\s.):,-].*)?$`)
)

// NormalizeAnswer brings an answer to its canonical form for its type, so
// answers that mean the same compare equal: numbers lose thousands commas,
// trailing zeros and signs of zero (`1,000`, `1000.0` and ` 1000 ` are all
// "1000"); option letters are upper case ("(b)" is "B"); text is lower case
// with runs of space folded and trailing punctuation dropped. An answer that
// cannot be read for its type is an error saying why.
func NormalizeAnswer(t AnswerType, raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", errors.New("the answer is empty")
	}
	switch t {
	case AnswerApprove, "":
		v, ok := normalizeVote(s)
		if !ok {
			return "", fmt.Errorf("%q is not approve, reject or abstain", sanitize.Clip(s, 40))
		}
		return string(v), nil
	case AnswerNumber:
		return normalizeNumber(s)
	case AnswerOption:
		m := optionToken.FindStringSubmatch(s)
		if m == nil {
			return "", fmt.Errorf("%q is not an option letter (A, B, C, ...)", sanitize.Clip(s, 40))
		}
		return strings.ToUpper(m[1]), nil
	case AnswerText:
		// Control and format characters go: the answer is shown in
		// terminals as the vote and the verdict.
		s = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
				return ' '
			}
			return r
		}, s)
		s = strings.ToLower(strings.Join(strings.Fields(s), " "))
		s = strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || (unicode.IsPunct(r) && r != '%' && r != '$') })
		if s == "" {
			return "", errors.New("the answer is only punctuation")
		}
		if r := []rune(s); len(r) > maxAnswerRunes {
			s = strings.TrimRightFunc(string(r[:maxAnswerRunes]), func(r rune) bool { return unicode.IsSpace(r) || (unicode.IsPunct(r) && r != '%' && r != '$') })
		}
		return s, nil
	}
	return "", fmt.Errorf("unknown answer type %q", t)
}

// normalizeNumber reads exactly one number from s. Commas count only as
// thousands separators in groups of three ("1,5" is refused rather than
// guessed at).
func normalizeNumber(s string) (string, error) {
	if len(s) > 200 {
		return "", errors.New("the answer is too long for a number")
	}
	found := numberToken.FindAllString(s, 3)
	if len(found) == 0 {
		return "", fmt.Errorf("%q holds no number", sanitize.Clip(s, 40))
	}
	if len(found) > 1 {
		return "", fmt.Errorf("%q holds more than one number", sanitize.Clip(s, 40))
	}
	rest := strings.Replace(s, found[0], "", 1)
	for _, r := range rest {
		if unicode.IsDigit(r) {
			return "", fmt.Errorf("%q is not one number", sanitize.Clip(s, 40))
		}
	}
	n := strings.ReplaceAll(found[0], ",", "")
	n = strings.Replace(n, "−", "-", 1)
	f, err := strconv.ParseFloat(n, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", fmt.Errorf("%q is not a finite number", sanitize.Clip(s, 40))
	}
	if f == 0 {
		f = 0 // -0 is 0
	}
	return strconv.FormatFloat(f, 'f', -1, 64), nil
}

// AnswerSchema is the structured-output schema of an answer-type council;
// a fresh map each call, since adapters may adapt it.
func AnswerSchema(t AnswerType) map[string]any {
	props := map[string]any{
		"answer":     map[string]any{"type": "string", "description": AnswerHint(t)},
		"confidence": map[string]any{"type": "number", "description": "how sure you are, from 0 to 1"},
		"reasoning":  map[string]any{"type": "string", "description": "2-4 sentences explaining the answer"},
		"summary":    map[string]any{"type": "string", "description": "one line"},
		"changed_by": changedBySchema(),
	}
	required := []any{"answer", "confidence", "reasoning", "summary", "changed_by"}
	if t == AnswerOption {
		// Borda counts need every member's order over the options.
		props["ranking"] = map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "every option's letter, best first (your answer first)"}
		required = append(required, "ranking")
	}
	return map[string]any{"type": "object", "properties": props, "required": required}
}

func AnswerHint(t AnswerType) string {
	switch t {
	case AnswerOption:
		return `the letter of one option, e.g. "B"`
	case AnswerNumber:
		return `one number, digits only, e.g. "1234" or "-3.5"`
	}
	return "a short answer: a word or a few words"
}

// AnswerRules are the format rules of an answer-type council's system prompt.
func AnswerRules(t AnswerType) string {
	ranking := ""
	if t == AnswerOption {
		ranking = `, "ranking": every option's letter, best first`
	}
	return fmt.Sprintf(`Every answer is one JSON object and nothing else: {"answer": %s, "confidence": a number from 0 to 1, "reasoning": "2-4 sentences", "summary": "one line", "changed_by": "" or the argument that changed your answer%s}.
The council's verdict is the answer most members give.
`, AnswerHint(t), ranking)
}

// ParseAnswer reads an answer-type reply as tolerantly as ParseVote reads a
// vote: the first JSON object with an "answer" key wins. The answer is
// normalised for t (it lands in Vote as well, so every consumer of votes
// sees it); confidence is clamped to 0..1 (a percentage is read as one); a
// missing summary is the reasoning's first sentence.
func ParseAnswer(t AnswerType, text string) (Ballot, error) {
	if t == AnswerApprove || t == "" {
		return ParseVote(text)
	}
	return findBallot(text, "answer", func(obj map[string]any) (Ballot, bool, error) { return answerBallotOf(t, obj) })
}

func answerBallotOf(t AnswerType, obj map[string]any) (b Ballot, found bool, err error) {
	raw, ok := fieldOf(obj, "answer")
	if !ok {
		return Ballot{}, false, nil
	}
	var word string
	switch v := raw.(type) {
	case string:
		word = v
	case float64:
		word = strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return Ballot{}, true, fmt.Errorf(`"answer" must be a string, got %s`, jsonKind(raw))
	}
	if b.Answer, err = NormalizeAnswer(t, word); err != nil {
		return Ballot{}, true, fmt.Errorf(`"answer": %v`, err)
	}
	b.Vote = Vote(b.Answer)
	if c, ok := fieldOf(obj, "confidence"); ok {
		switch v := c.(type) {
		case float64:
			b.Confidence = clampConfidence(v)
		case string:
			if f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), "%"), 64); err == nil {
				b.Confidence = clampConfidence(f)
			}
		}
	}
	if err := readReasoning(obj, &b); err != nil {
		return Ballot{}, true, err
	}
	if t == AnswerOption {
		b.Ranking = readRanking(obj, b.Answer)
	}
	return b, true, nil
}

// readRanking reads an option ranking leniently: letters it cannot read or
// repeats are skipped, and the member's own answer goes first (nil when
// the answer has none: a ranking is optional).
func readRanking(obj map[string]any, answer string) []string {
	raw, ok := fieldOf(obj, "ranking")
	items, isList := raw.([]any)
	if !ok || !isList {
		return nil
	}
	out := []string{answer}
	seen := map[string]bool{answer: true}
	for _, it := range items[:min(len(items), maxOptionLetters)] {
		word, isString := it.(string)
		if !isString {
			continue
		}
		if letter, err := NormalizeAnswer(AnswerOption, word); err == nil && !seen[letter] {
			seen[letter] = true
			out = append(out, letter)
		}
	}
	return out
}

// maxOptionLetters bounds a ranking: A to Z.
const maxOptionLetters = 26

func clampConfidence(f float64) float64 {
	switch {
	case math.IsNaN(f) || f < 0:
		return 0
	case f > 1 && f <= 100:
		return f / 100
	case f > 1:
		return 1
	}
	return f
}

// answerJSON is the canonical form of an answer ballot.
func (b Ballot) answerJSON() string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(struct {
		Answer     string   `json:"answer"`
		Confidence float64  `json:"confidence"`
		Reasoning  string   `json:"reasoning"`
		Summary    string   `json:"summary"`
		ChangedBy  string   `json:"changed_by,omitempty"`
		Ranking    []string `json:"ranking,omitempty"`
		Evidence   []string `json:"evidence,omitempty"`
	}{b.Answer, b.Confidence, b.Reasoning, b.Summary, b.ChangedBy, b.Ranking, b.Evidence})
	return strings.TrimSpace(buf.String())
}

// DecideAnswers is the verdict over answers: the most frequent valid answer
// when it leads by more than the invalid votes could overturn; NO CONSENSUS
// when every vote is valid and the lead is shared; INCOMPLETE when invalid
// votes might have decided it. answer is "" without a verdict.
func DecideAnswers(votes []Vote) (verdict Verdict, answer string) {
	count := map[Vote]int{}
	invalid := 0
	for _, v := range votes {
		if v == VoteInvalid || v == "" {
			invalid++
			continue
		}
		count[v]++
	}
	var top Vote
	best, second := 0, 0
	for v, c := range count {
		switch {
		case c > best || (c == best && v < top):
			if c > best {
				second = best
			} else {
				second = c
			}
			top, best = v, c
		case c > second:
			second = c
		}
	}
	switch {
	case best > 0 && best > second+invalid:
		return Verdict(top), string(top)
	case invalid > 0 || len(votes) == 0:
		return VerdictIncomplete, ""
	}
	return VerdictNoConsensus, ""
}

// TallyAnswers counts votes by answer, with "invalid" always present.
func TallyAnswers(votes []Vote) map[string]int {
	t := map[string]int{string(VoteInvalid): 0}
	for _, v := range votes {
		if v == "" {
			v = VoteInvalid
		}
		t[string(v)]++
	}
	return t
}

// AnswerTallyLine is an answer tally in one line, most votes first:
// "2 × 42, 1 × 41, 0 invalid".
func AnswerTallyLine(t map[string]int) string {
	var keys []string
	for k := range t {
		if k != string(VoteInvalid) {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if t[keys[i]] != t[keys[j]] {
			return t[keys[i]] > t[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d × %s", t[k], k))
	}
	return strings.Join(append(parts, fmt.Sprintf("%d invalid", t[string(VoteInvalid)])), ", ")
}

// Unanimous reports whether every vote is valid and the same.
func Unanimous(votes []MagiVote) bool {
	if len(votes) == 0 {
		return false
	}
	for _, v := range votes {
		if !v.Valid || v.Vote != votes[0].Vote {
			return false
		}
	}
	return true
}
