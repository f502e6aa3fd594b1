package demo

import (
	"strings"
	"sync"
	"unicode"
)

// maxSalient is how many of the question's words a demo answer weaves in.
const maxSalient = 4

// stopWords are words that carry no topic: question words, fillers and the
// verbs people open a request with. Compared lower-cased. Built on first
// use, as are this package's patterns: every command links the demo
// provider, few run it (issue 50).
var stopWords = sync.OnceValue(func() map[string]bool {
	words := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if of on in at to for from by with about into over
		is are was were be been being do does did done have has had can could should would will shall may might must
		i me my we our you your he she it its they them their this that these those there here
		what which who whom whose when where why how whether than then also just very really much many more most
		some any each every all both either neither none not no yes please thanks thank
		compare explain describe tell give show make want need know think help use using used between versus
		like such other another same good best better thing things something anything way ways
		small large big little fast slow quick easy hard simple new old`) {
		words[w] = true
	}
	return words
})

// salientWords are the question's topic words, in order, each once:
// capitalised words (names: Kafka, NATS) first, then other words longer
// than three letters, none of them stop words. A word keeps only its
// letters, digits and inner + # . - (C++, C#, Node.js), so nothing a user
// typed reaches an answer as markup or a control character.
func salientWords(q string) []string {
	var names, others []string
	seen := map[string]bool{}
	for _, raw := range strings.Fields(q) {
		if strings.HasPrefix(raw, "@") {
			continue // an address, not a topic
		}
		w := cleanWord(raw)
		key := strings.ToLower(w)
		if w == "" || seen[key] || stopWords()[key] {
			continue
		}
		first := []rune(w)[0]
		switch {
		case unicode.IsUpper(first) && len([]rune(w)) >= 2:
			names = append(names, w)
		case len([]rune(w)) > 3 && unicode.IsLetter(first):
			others = append(others, w)
		default:
			continue
		}
		seen[key] = true
	}
	out := append(names, others...)
	return out[:min(len(out), maxSalient)]
}

// cleanWord keeps a word's letters and digits, and + # . - between or after
// them (C++, C#), dropping trailing punctuation and anything else.
func cleanWord(raw string) string {
	var b strings.Builder
	for _, r := range raw {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		case (r == '+' || r == '#' || r == '.' || r == '-') && b.Len() > 0:
			b.WriteRune(r)
		}
	}
	w := strings.TrimRight(b.String(), ".-")
	if len([]rune(w)) > 30 {
		return "" // not a word: a hash, a URL, a run of letters
	}
	return w
}

// topic names the question's subject in an answer: its first two salient
// words ("Kafka and NATS"), else a plain stand-in.
func topic(words []string) string {
	switch len(words) {
	case 0:
		return "the question"
	case 1:
		return words[0]
	}
	return words[0] + " and " + words[1]
}

// focus is the salient word a point of an answer dwells on: each persona
// (its seed n) starts at a different word, so agents weigh different parts
// of one question.
func focus(words []string, n uint32, i int) string {
	if len(words) == 0 {
		return "the idea"
	}
	return words[(int(n%uint32(len(words)))+i)%len(words)]
}

// sanitizeQuestion drops control characters and bidirectional overrides
// from a question quoted in an answer: the user's words pass through the
// same care as any text a terminal or page shows.
func sanitizeQuestion(q string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) {
			return -1
		}
		return r
	}, q)
}
