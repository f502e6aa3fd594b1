package verdict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/parleyhq/parley/debate/sanitize"
)

// Vote is one MAGI member's vote in one round.
type Vote string

const (
	VoteApprove Vote = "approve"
	VoteReject  Vote = "reject"
	VoteAbstain Vote = "abstain"
	// VoteInvalid: no usable vote this round (unparseable twice, or the
	// provider failed). It is never counted for either side.
	VoteInvalid Vote = "invalid"
)

// Valid reports whether v is a cast vote (approve, reject or abstain).
func (v Vote) Valid() bool { return v == VoteApprove || v == VoteReject || v == VoteAbstain }

// Verdict is the council's result.
type Verdict string

const (
	VerdictApproved    Verdict = "APPROVED"
	VerdictRejected    Verdict = "REJECTED"
	VerdictNoConsensus Verdict = "NO CONSENSUS" // every vote valid, no majority
	VerdictIncomplete  Verdict = "INCOMPLETE"   // an invalid vote left no majority
)

// Bounds on the work ParseVote does for one answer.
const (
	maxVoteAnswerBytes  = 256 << 10 // longer answers are read up to here
	maxVoteObjectsTried = 64        // '{' positions tried as an object start
)

// Ballot is a parsed vote answer.
type Ballot struct {
	Vote Vote `json:"vote"`
	// Answer and Confidence are set by answer-type councils (Vote then
	// holds the answer too); empty for approve/reject/abstain.
	Answer     string  `json:"answer,omitempty"`
	Confidence float64 `json:"confidence,omitempty"`
	Reasoning  string  `json:"reasoning"`
	Summary    string  `json:"summary"`
	// ChangedBy names, in rounds 2–3, the argument that changed the
	// member's vote; "" when it kept its vote (or did not say).
	ChangedBy string `json:"changed_by,omitempty"`
	// Ranking orders every option, the answer first (option answers; nil
	// when the member gave none).
	Ranking []string `json:"ranking,omitempty"`
	// Evidence are the evidence ids the member says its answer rests on
	// ("E2"; checked by the core, evidencecheck.go).
	Evidence []string `json:"evidence,omitempty"`
}

// JSON is the ballot's canonical form, as stored and as shown to the other
// members in later rounds.
func (b Ballot) JSON() string {
	if b.Answer != "" {
		return b.answerJSON()
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(struct {
		Vote      Vote     `json:"vote"`
		Reasoning string   `json:"reasoning"`
		Summary   string   `json:"summary"`
		ChangedBy string   `json:"changed_by,omitempty"`
		Evidence  []string `json:"evidence,omitempty"`
	}{b.Vote, b.Reasoning, b.Summary, b.ChangedBy, b.Evidence}) // strings cannot fail to encode
	return strings.TrimSpace(buf.String())
}

// VoteSchema is the structured-output schema every MAGI answer is asked
// for; a fresh map each call, since adapters may adapt it.
func VoteSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"vote":       map[string]any{"type": "string", "enum": []any{"approve", "reject", "abstain"}, "description": "your vote on the question"},
			"reasoning":  map[string]any{"type": "string", "description": "2-4 sentences explaining the vote"},
			"summary":    map[string]any{"type": "string", "description": "one line"},
			"changed_by": changedBySchema(),
		},
		"required": []any{"vote", "reasoning", "summary", "changed_by"},
	}
}

// ParseVote reads a vote answer tolerantly: the JSON object may sit in a code
// fence or among prose, be nested in a wrapper object, use any case for its
// keys and vote word, quote with single quotes and leave trailing commas. What it will not do is guess: without a JSON object
// holding a known vote word and a reasoning, it returns an error that says
// what is wrong (quoted back to the model in the retry).
func ParseVote(text string) (Ballot, error) {
	return findBallot(text, "vote", ballotOf)
}

// findBallot tries every '{' of text as the start of an object: the first
// object that has key and reads without error wins. This skips prose,
// fences and wrapper objects alike.
func findBallot(text, key string, read func(map[string]any) (Ballot, bool, error)) (Ballot, error) {
	if len(text) > maxVoteAnswerBytes {
		text = text[:maxVoteAnswerBytes]
	}
	if strings.TrimSpace(text) == "" {
		return Ballot{}, errors.New("the answer is empty")
	}
	b, tried, firstErr, ok := FirstObject(text, read)
	if ok {
		return b, nil
	}
	if firstErr != nil {
		return Ballot{}, firstErr
	}
	if tried == 0 {
		return Ballot{}, fmt.Errorf(`no JSON object found; answer with {"%s": ..., "reasoning": ..., "summary": ...}`, key)
	}
	return Ballot{}, fmt.Errorf(`no JSON object with a "%s" field found`, key)
}

// FirstObject tries every '{' of text (up to maxVoteObjectsTried) as the
// start of a JSON object: the first object in which read finds what it looks
// for and reads without error wins (ok). Otherwise it reports how many
// objects it tried and the first error of one that had the field.
func FirstObject[T any](text string, read func(map[string]any) (T, bool, error)) (v T, tried int, firstErr error, ok bool) {
	for i := 0; i < len(text) && tried < maxVoteObjectsTried; i++ {
		if text[i] != '{' {
			continue
		}
		tried++
		obj, decoded := decodeObject(text[i:])
		if !decoded {
			continue
		}
		got, found, err := read(obj)
		switch {
		case !found:
		case err == nil:
			return got, tried, nil, true
		case firstErr == nil:
			firstErr = err
		}
	}
	return v, tried, firstErr, false
}

// decodeObject decodes the JSON object text starts with; when strict JSON
// fails it tries again with single-quoted strings and trailing commas
// turned into JSON, the two slips models make most.
func decodeObject(text string) (map[string]any, bool) {
	var obj map[string]any
	if json.NewDecoder(strings.NewReader(text)).Decode(&obj) == nil {
		return obj, true
	}
	relaxed, changed := relaxJSON(text)
	if !changed {
		return nil, false
	}
	obj = nil
	if json.NewDecoder(strings.NewReader(relaxed)).Decode(&obj) != nil {
		return nil, false
	}
	return obj, true
}

// relaxJSON rewrites the object text starts with: 'single-quoted' strings
// become "double-quoted" ones and a comma before a closing } or ] goes. It
// stops where the object closes, so prose after it (apostrophes included)
// is left alone; changed reports whether it rewrote anything.
func relaxJSON(text string) (out string, changed bool) {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch c {
		case '"':
			j := stringEnd(text, i, '"')
			b.WriteString(text[i:j])
			i = j - 1
		case '\'':
			j := stringEnd(text, i, '\'')
			b.WriteString(doubleQuoted(text[i+1 : max(i+1, j-1)]))
			i, changed = j-1, true
		case ',':
			k := i + 1
			for k < len(text) && strings.IndexByte(" \t\r\n", text[k]) >= 0 {
				k++
			}
			if k < len(text) && (text[k] == '}' || text[k] == ']') {
				changed = true // a trailing comma: dropped
				continue
			}
			b.WriteByte(c)
		case '{', '[':
			depth++
			b.WriteByte(c)
		case '}', ']':
			depth--
			b.WriteByte(c)
			if depth <= 0 {
				return b.String(), changed
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), changed
}

// stringEnd is the index just past the string that opens at text[i] with
// quote; past the end of text when it never closes.
func stringEnd(text string, i int, quote byte) int {
	for j := i + 1; j < len(text); j++ {
		switch text[j] {
		case '\\':
			j++
		case quote:
			return j + 1
		}
	}
	return len(text)
}

// doubleQuoted turns the body of a single-quoted string into a JSON string:
// \' is a plain quote there, a bare " needs escaping.
func doubleQuoted(body string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '\\' && i+1 < len(body) && body[i+1] == '\'':
			b.WriteByte('\'')
			i++
		case c == '\\' && i+1 < len(body):
			b.WriteByte(c)
			b.WriteByte(body[i+1])
			i++
		case c == '\\':
			b.WriteString(`\\`)
		case c == '"':
			b.WriteString(`\"`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// ballotOf reads a decoded object; found is false when it has no vote key.
func ballotOf(obj map[string]any) (b Ballot, found bool, err error) {
	raw, ok := fieldOf(obj, "vote")
	if !ok {
		return Ballot{}, false, nil
	}
	word, ok := raw.(string)
	if !ok {
		return Ballot{}, true, fmt.Errorf(`"vote" must be a string ("approve", "reject" or "abstain"), got %s`, jsonKind(raw))
	}
	b.Vote, ok = normalizeVote(word)
	if !ok {
		return Ballot{}, true, fmt.Errorf(`"vote" is %q; it must be "approve", "reject" or "abstain"`, sanitize.Clip(word, 40))
	}
	if err := readReasoning(obj, &b); err != nil {
		return Ballot{}, true, err
	}
	return b, true, nil
}

// fieldOf finds a key in any case.
func fieldOf(obj map[string]any, name string) (any, bool) {
	for k, v := range obj {
		if strings.EqualFold(strings.TrimSpace(k), name) {
			return v, true
		}
	}
	return nil, false
}

// readReasoning fills the reasoning (required) and the summary (the
// reasoning's first sentence when missing) of b from obj.
func readReasoning(obj map[string]any, b *Ballot) error {
	if r, ok := fieldOf(obj, "reasoning"); ok {
		s, isString := r.(string)
		if !isString {
			return fmt.Errorf(`"reasoning" must be a string, got %s`, jsonKind(r))
		}
		b.Reasoning = strings.TrimSpace(s)
	}
	if b.Reasoning == "" {
		return errors.New(`"reasoning" is missing or empty`)
	}
	b.Evidence = evidenceField(obj)
	if s, ok := fieldOf(obj, "summary"); ok {
		if str, isString := s.(string); isString {
			b.Summary = strings.TrimSpace(str)
		}
	}
	if c, ok := fieldOf(obj, "changed_by"); ok {
		if str, isString := c.(string); isString {
			b.ChangedBy = strings.TrimSpace(str)
		}
	}
	if b.Summary == "" {
		// A missing one-liner is not worth a retry: the reasoning's first
		// sentence stands in for it.
		b.Summary = firstSentence(b.Reasoning)
	}
	return nil
}

// normalizeVote maps the vote word, in any case and with stray punctuation,
// to a Vote.
func normalizeVote(word string) (Vote, bool) {
	w := strings.ToLower(strings.TrimFunc(word, func(r rune) bool { return !unicode.IsLetter(r) }))
	switch w {
	case "approve", "approved", "approval":
		return VoteApprove, true
	case "reject", "rejected", "rejection":
		return VoteReject, true
	case "abstain", "abstained", "abstention":
		return VoteAbstain, true
	}
	return "", false
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a string"
}

func firstSentence(s string) string {
	s = sanitize.FirstLine(s, 160)
	if i := strings.Index(s, ". "); i > 0 {
		s = s[:i+1]
	}
	return s
}

// Decide is the verdict on a round's votes: a strict majority of approve or
// reject wins (two of three); with no majority, NO CONSENSUS when every vote
// is valid (abstentions included) and INCOMPLETE when an invalid vote might
// have made one.
func Decide(votes []Vote) Verdict {
	need := len(votes)/2 + 1
	count := map[Vote]int{}
	for _, v := range votes {
		count[v]++
	}
	switch {
	case len(votes) > 0 && count[VoteApprove] >= need:
		return VerdictApproved
	case len(votes) > 0 && count[VoteReject] >= need:
		return VerdictRejected
	case len(votes) == 0:
		return VerdictIncomplete
	}
	for _, v := range votes {
		if !v.Valid() {
			return VerdictIncomplete
		}
	}
	return VerdictNoConsensus
}

// Tally counts votes by word; every word appears, zero or not.
func Tally(votes []Vote) map[string]int {
	t := map[string]int{string(VoteApprove): 0, string(VoteReject): 0, string(VoteAbstain): 0, string(VoteInvalid): 0}
	for _, v := range votes {
		if !v.Valid() {
			v = VoteInvalid
		}
		t[string(v)]++
	}
	return t
}

// TallyLine is the tally in one line, e.g. "2 approve, 1 reject, 0 abstain, 0 invalid".
func TallyLine(t map[string]int) string {
	return fmt.Sprintf("%d approve, %d reject, %d abstain, %d invalid",
		t[string(VoteApprove)], t[string(VoteReject)], t[string(VoteAbstain)], t[string(VoteInvalid)])
}

// Flip is a member's vote change between two consecutive rounds.
type Flip struct {
	Agent     string `json:"agent"`
	FromRound int    `json:"from_round"`
	ToRound   int    `json:"to_round"`
	From      Vote   `json:"from"`
	To        Vote   `json:"to"`
	// NewWords counts content words of the new reasoning found neither in
	// the member's earlier reasoning nor in the opinions it was shown.
	NewWords int `json:"new_words"`
	// Conformity flags a flip without a new argument: fewer than
	// MinNewWords new content words.
	Conformity bool `json:"conformity"`
	// ChangedBy is the argument the member named for its change ("" when
	// it named none).
	ChangedBy string `json:"changed_by,omitempty"`
}

// changedBySchema is the answer field where a member names what changed
// its mind (required, so strict structured output keeps it; "" to keep).
func changedBySchema() map[string]any {
	return map[string]any{"type": "string", "description": `rounds 2-3: if you change your vote, the argument that changed your mind (whose, and what it shows); "" if you keep it or in round 1`}
}

// MinNewWords is how many new content words a flip needs to count as
// argued rather than conformity.
const MinNewWords = 3

// NewWordsPhrase words a flip's count of new content words, as every door
// prints it: "1 new word", "0 new words", "4 new words".
func NewWordsPhrase(n int) string {
	if n == 1 {
		return "1 new word"
	}
	return fmt.Sprintf("%d new words", n)
}

// CountNewWords counts the distinct content words of reasoning that appear
// in none of the seen texts.
func CountNewWords(reasoning string, seen []string) int {
	known := map[string]bool{}
	for _, s := range seen {
		for w := range contentWords(s) {
			known[w] = true
		}
	}
	n := 0
	for w := range contentWords(reasoning) {
		if !known[w] {
			n++
		}
	}
	return n
}

// contentWords returns the distinct lower-cased words of s with four or more
// letters that are not common function words, with a plural -s trimmed so
// "risk" and "risks" are one word.
func contentWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) < 4 || stopWords[w] {
			continue
		}
		if strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && len(w) > 4 {
			w = w[:len(w)-1]
		}
		out[w] = true
	}
	return out
}

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`about above after again against also although among because been before being
below between both could does doing down during each either even every from further have having here into itself
just more most much must neither once only other over same shall should since some still such than that their
theirs them then there these they this those through thus under until upon very vote voted votes voting want
were what when where whether which while whom whose will with within without would your yours approve reject
abstain agree agreed think believe round member members opinion opinions council question
majority others everyone consensus colleague colleagues peer peers persuaded convinced group`) {
		m[w] = true
	}
	return m
}()
