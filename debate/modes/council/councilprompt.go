package council

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/parleyhq/parley/internal/lazyregexp"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers"
)

// responseLabel is the anonymous name of the nth answer a ranker sees.
func responseLabel(n int) string {
	if n < 26 {
		return "Response " + string(rune('A'+n))
	}
	return fmt.Sprintf("Response %c%d", 'A'+n%26, n/26)
}

// shuffledLabels gives the answers of members (in council order) to one
// ranker in its own order: seed and the ranker's index fix the shuffle, so
// a council is reproducible from its recorded seed.
func shuffledLabels(members []string, seed uint64, ranker int) (labels []string, byLabel map[string]string) {
	order := slices.Clone(members)
	r := rand.New(rand.NewPCG(seed, uint64(ranker)+1))
	r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	byLabel = make(map[string]string, len(order))
	for i, m := range order {
		l := responseLabel(i)
		labels = append(labels, l)
		byLabel[l] = m
	}
	return labels, byLabel
}

// RankingSchema is the structured output every ranking is asked for: the
// labels the ranker saw, best first, each once.
func RankingSchema(labels []string) *providers.Schema {
	enum := make([]any, len(labels))
	for i, l := range labels {
		enum[i] = l
	}
	return &providers.Schema{Name: CouncilRankingSchemaName, Description: "A ranking of anonymous responses to a question, best first",
		JSON: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"evaluation": map[string]any{"type": "string", "description": "a few sentences on each response's strengths and weaknesses"},
				"ranking":    map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": enum}, "description": "every response label exactly once, best first"},
			},
			"required": []any{"evaluation", "ranking"},
		}}
}

// CouncilRankingSchemaName names the ranking schema (the demo agents answer by it).
const CouncilRankingSchemaName = "council_ranking"

// Bounds on the work ParseRanking does for one answer.
const maxRankingAnswerBytes = 256 << 10

var (
	rankLabelRE   = lazyregexp.New(`(?i)\bresponse\s*[-_:#]?\s*([a-z])\b`)
	finalRankRE   = lazyregexp.New(`(?i)final\s+ranking\s*:?`)
	bareLetterRE  = lazyregexp.New(`(?i)^\s*(?:response\s*[-_:#]?\s*)?([a-z])\s*[.)]?\s*$`)
	errNoRankList = errors.New(`no ranking found; answer with {"evaluation": "...", "ranking": ["Response A", ...]}`)
)

// ParseRanking reads a ranking answer tolerantly: a JSON object with a
// "ranking" (or "order", "rank") array anywhere in the text — in a fence,
// among prose, with single quotes or trailing commas; items as "Response B",
// "b", or objects with a "label"; else a "FINAL RANKING:" list in prose. It
// returns labels (as given in labels) best first, and an error that says
// what is wrong (quoted back to the model in the retry) unless the ranking
// names every label exactly once and nothing else.
func ParseRanking(text string, labels []string) (order []string, evaluation string, err error) {
	if len(text) > maxRankingAnswerBytes {
		text = text[:maxRankingAnswerBytes]
	}
	if strings.TrimSpace(text) == "" {
		return nil, "", errors.New("the answer is empty")
	}
	type ranked struct {
		order      []string
		evaluation string
	}
	found, _, firstErr, ok := verdict.FirstObject(text, func(obj map[string]any) (ranked, bool, error) {
		items, eval, has := rankingItems(obj)
		if !has {
			return ranked{}, false, nil
		}
		order, err := resolveLabels(items, labels)
		return ranked{order, eval}, true, err
	})
	if ok {
		return found.order, found.evaluation, nil
	}
	if firstErr != nil {
		return nil, "", firstErr
	}
	// Prose: the labels in the order they appear after "FINAL RANKING:".
	if loc := finalRankRE.FindStringIndex(text); loc != nil {
		var items []string
		for _, m := range rankLabelRE.FindAllStringSubmatch(text[loc[1]:], -1) {
			items = append(items, m[1])
		}
		order, err := resolveLabels(items, labels)
		return order, strings.TrimSpace(text[:loc[0]]), err
	}
	return nil, "", errNoRankList
}

// rankingItems finds the ranking array of a decoded object, or of an object
// nested in it; items are strings as given.
func rankingItems(obj map[string]any) (items []string, evaluation string, found bool) {
	var list []any
	for k, v := range obj {
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "ranking", "rankings", "order", "rank", "final_ranking":
			if l, ok := v.([]any); ok {
				list, found = l, true
			}
		case "evaluation", "reasoning", "analysis":
			if s, ok := v.(string); ok {
				evaluation = strings.TrimSpace(s)
			}
		}
	}
	if !found {
		for _, v := range obj {
			if inner, ok := v.(map[string]any); ok {
				if items, ev, ok := rankingItems(inner); ok {
					return items, ev, true
				}
			}
		}
		return nil, "", false
	}
	for _, it := range list {
		switch v := it.(type) {
		case string:
			items = append(items, v)
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && (strings.EqualFold(k, "label") || strings.EqualFold(k, "response")) {
					items = append(items, s)
				}
			}
		default:
			items = append(items, fmt.Sprint(it))
		}
	}
	return items, evaluation, true
}

// resolveLabels maps ranked items to the known labels: each must name one
// of them, each label exactly once.
func resolveLabels(items []string, labels []string) ([]string, error) {
	byLetter := map[string]string{}
	for _, l := range labels {
		byLetter[strings.ToLower(strings.TrimPrefix(l, "Response "))] = l
	}
	var order []string
	seen := map[string]bool{}
	for _, it := range items {
		letter := ""
		if m := bareLetterRE.FindStringSubmatch(it); m != nil {
			letter = strings.ToLower(m[1])
		} else if m := rankLabelRE.FindStringSubmatch(it); m != nil {
			letter = strings.ToLower(m[1])
		}
		l, ok := byLetter[letter]
		switch {
		case !ok:
			return nil, fmt.Errorf("%q is not one of the labels (%s)", sanitize.Clip(it, 40), strings.Join(labels, ", "))
		case seen[l]:
			return nil, fmt.Errorf("%s is ranked twice", l)
		}
		seen[l] = true
		order = append(order, l)
	}
	var missing []string
	for _, l := range labels {
		if !seen[l] {
			missing = append(missing, l)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("the ranking leaves out %s; rank every response exactly once", strings.Join(missing, ", "))
	}
	return order, nil
}

// maskNames hides who wrote an answer before another member ranks it: every
// member's name, display name, model and provider becomes "[member]", so an
// answer that signs itself ("As Claude, …") gives nothing away. Tokens
// shorter than three characters are left alone.
func maskNames(text string, tokens []string) string {
	sort.Slice(tokens, func(i, j int) bool { return len(tokens[i]) > len(tokens[j]) })
	for _, t := range tokens {
		t = strings.TrimSpace(t)
		if len(t) < 3 {
			continue
		}
		pat := regexp.QuoteMeta(t)
		if isWordByte(t[0]) {
			pat = `\b` + pat
		}
		if isWordByte(t[len(t)-1]) {
			pat += `\b`
		}
		text = regexp.MustCompile(`(?i)`+pat).ReplaceAllString(text, "[member]")
	}
	return text
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// labelLegend is "Response A = chatgpt, Response B = claude", for the record.
func labelLegend(labels []string, byLabel map[string]string) string {
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = l + " = " + byLabel[l]
	}
	return strings.Join(parts, ", ")
}

// rankingRecord is a valid ranking as stored: authors named, best first,
// then the evaluation.
func rankingRecord(order []string, byLabel map[string]string, c *Council, eval string) string {
	var b strings.Builder
	b.WriteString("Ranking, best first: ")
	for i, l := range order {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d. %s (%s)", i+1, c.member(byLabel[l]).Label(), l)
	}
	if eval != "" {
		b.WriteString("\n\n" + eval)
	}
	return b.String()
}

// rankingPrompt shows a ranker the question and the answers under their
// labels, names masked; nothing in it says who wrote what or who asks.
// words are the host's notes, already masked.
func rankingPrompt(q string, labels []string, byLabel, texts map[string]string, mask []string, words string) string {
	var b strings.Builder
	b.WriteString("The question:\n\n")
	b.WriteString(q)
	b.WriteString("\n\nThe responses, in no particular order:\n")
	for _, l := range labels {
		fmt.Fprintf(&b, "\n--- %s ---\n%s\n", l, maskNames(sanitize.Clip(strings.TrimSpace(texts[byLabel[l]]), 12000), slices.Clone(mask)))
	}
	if words != "" {
		b.WriteString(strings.TrimPrefix(words, "\n"))
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nEvaluate each response for accuracy, depth and usefulness in a few sentences, then rank them from best to worst. Answer with one JSON object: {\"evaluation\": \"...\", \"ranking\": [\"%s\"]}, every label exactly once, best first.", strings.Join(labels, `", "`))
	return b.String()
}

func (c *Council) chairPrompt(q string, res *verdict.CouncilResult) string {
	var b strings.Builder
	b.WriteString("The council's answers to the host's question, with their authors:\n")
	for _, a := range res.Answers {
		if a.Status == verdict.AnswerDropped {
			fmt.Fprintf(&b, "\n--- %s (%s) ---\n(left out: %s)\n", a.Display, a.Model, a.Error)
			continue
		}
		if !a.Valid() {
			fmt.Fprintf(&b, "\n--- %s (%s) ---\n(no answer: %s)\n", a.Display, a.Model, sanitize.Clip(a.Error, 200))
			continue
		}
		fmt.Fprintf(&b, "\n--- %s (%s) ---\n%s\n", a.Display, a.Model, sanitize.Clip(strings.TrimSpace(a.Text), 12000))
	}
	b.WriteString("\nThe peer ranking (each member ranked the others' answers without knowing who wrote them; Borda points: n-1 for a first place among n, 0 for the last):\n")
	for i, s := range res.Aggregate {
		fmt.Fprintf(&b, "%d. %s: %d points, mean rank %.2f over %d rankings\n", i+1, s.Display, s.Borda, s.MeanRank, s.Rankings)
	}
	for _, r := range res.Rankings {
		if dropped(res, r.Ranker) {
			continue
		}
		if !r.Valid {
			fmt.Fprintf(&b, "- %s's ranking is invalid: %s\n", r.Display, sanitize.Clip(r.Error, 200))
			continue
		}
		names := make([]string, len(r.Order))
		for i, m := range r.Order {
			names[i] = c.member(m).Label()
		}
		fmt.Fprintf(&b, "- %s ranked: %s\n", r.Display, strings.Join(names, " > "))
	}
	if words := hostWords(c.host, 3); words != "" {
		b.WriteString(strings.TrimPrefix(words, "\n"))
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nWrite the council's final answer to the host's question:\n\n[%s]: %s", debate.HostName, q)
	return b.String()
}

const councilAnswerText = "You sit on a council of AI models. Each member answers the host's question on its own; then the members rank each other's answers anonymously and a chairman writes the final answer. Answer the host's latest message directly and completely, in Markdown."

// rankingSystem is the whole system prompt of a ranking turn: no persona,
// no name, nothing that tells the ranker which model it is.
const rankingSystem = "You are an impartial judge. You compare anonymous responses to a question on their merits alone: accuracy, depth, clarity and usefulness. Every answer is one JSON object and nothing else."

const rankingRetryText = `Your answer could not be read as the required ranking: %v
Answer again with only the JSON object: {"evaluation": "...", "ranking": ["%s"]}, every label exactly once, best first.`

const chairPersona = "You chair Parley's council of AI models. You weigh the members' answers and their peer ranking and write one final answer."

const chairInstruction = "Synthesise the single best answer to the host's question from the members' answers. Use the peer ranking as evidence of quality, not as a vote to copy: keep what is correct from any answer, resolve disagreements explicitly, and drop what is wrong. Write the answer itself in Markdown, not a report about the council."
