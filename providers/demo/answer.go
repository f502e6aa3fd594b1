package demo

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/parleyhq/parley/internal/lazyregexp"
	"github.com/parleyhq/parley/internal/numfmt"

	"github.com/parleyhq/parley/providers"
)

// demoAnswerSchema is the schema name of a MAGI council voting over answers
// (verdict.AnswerSchemaName); the demo answers those from the request's
// structure: the question in the first message, its round in providers.Meta, the
// peers' answers in the JSON objects it was shown.
const demoAnswerSchema = "magi_answer"

var (
	demoExpr   = lazyregexp.New(`\d+(?:\s*[-+*×]\s*\d+)+`)
	demoOption = lazyregexp.New(`(?m)^\s*\(?([A-Z])\)\s*(.+?)\s*$`)
	demoPeer   = lazyregexp.New(`"answer"\s*:\s*"([^"]*)"`)
)

// demoAnswer plays a fallible solver: it works arithmetic out (mostly right;
// a seeded share of members slips by evaluating left to right, a mistake two
// members can share), and in later rounds it may join answers its peers
// agree on, right or wrong, so a demo bench shows flips both ways.
func demoAnswer(req providers.Request) string {
	name := personaName(req)
	q := firstQuestion(req.Messages)
	right, wrong, kind := demoSolve(q)
	n := seed(name, q)
	slip := 8 + int(seed(name)%3)*6 // 8, 14 or 20 % of questions
	answer, why := right, "I worked it out step by step, multiplication before addition."
	if int(n%100) < slip {
		answer, why = wrong, "I evaluated it in the order written."
	}
	round := req.Meta.Round
	if round > 1 {
		answer, why = demoDeliberate(req.Messages, answer, right, n, why)
	}
	shown := answer
	if kind == "number" && n%7 == 3 { // models write numbers in many forms
		if v, err := strconv.Atoi(answer); err == nil && (v >= 1000 || v <= -1000) {
			shown = numfmt.Thousands(v)
		} else {
			shown = answer + ".0"
		}
	}
	conf := 0.9
	if answer != right {
		conf = 0.6
	}
	reasoning := fmt.Sprintf("As %s: %s The result is %s.", name, why, answer)
	return fmt.Sprintf(`{"answer": %q, "confidence": %.2f, "reasoning": %q, "summary": %q}`, shown, conf, reasoning,
		fmt.Sprintf("%s answers %s", name, answer))
}

// demoDeliberate decides a later round: a member joins an answer both peers
// agree on most of the time, and sometimes takes a lone peer's correct
// answer when it sees its own slip.
func demoDeliberate(msgs []providers.Message, own, right string, n uint32, why string) (string, string) {
	last := latestUser(msgs)
	counts := map[string]int{}
	for _, m := range demoPeer.FindAllStringSubmatch(last, -1) {
		counts[strings.TrimSpace(m[1])]++
	}
	for a, c := range counts {
		if a != own && c >= 2 && (n>>8)%10 < 7 {
			return a, "The others converge on this result and I defer to them."
		}
	}
	if own != right && counts[right] >= 1 && (n>>12)%2 == 0 {
		return right, "Rechecking the operator precedence, multiplication binds tighter, which corrects my earlier slip."
	}
	return own, why
}

// firstQuestion is the host's question in the council's first message.
func firstQuestion(msgs []providers.Message) string {
	if len(msgs) == 0 {
		return ""
	}
	first := msgs[0].Content
	if i := strings.LastIndex(first, "[Host]: "); i >= 0 {
		return first[i+len("[Host]: "):]
	}
	return first
}

// demoSolve finds the right answer and a plausible wrong one: with options,
// the letter of the largest value (or another letter); else the arithmetic
// expression's value (or its left-to-right value).
func demoSolve(q string) (right, wrong, kind string) {
	if opts := demoOption.FindAllStringSubmatch(q, -1); len(opts) >= 2 {
		best, bestV := "", 0
		for _, o := range opts {
			v, _, ok := evalDemo(strings.ReplaceAll(o[2], ",", ""))
			if ok && (best == "" || v > bestV) {
				best, bestV = o[1], v
			}
		}
		if best == "" {
			best = opts[0][1]
		}
		wrong = opts[0][1]
		if wrong == best {
			wrong = opts[1][1]
		}
		return best, wrong, "option"
	}
	if v, lr, ok := evalDemo(q); ok {
		if lr == v {
			lr = v + 10
		}
		return strconv.Itoa(v), strconv.Itoa(lr), "number"
	}
	return "42", "41", "number"
}

// evalDemo evaluates the first expression in s of whole numbers with + - *
// (× too): its value with precedence, and left to right.
func evalDemo(s string) (value, leftToRight int, ok bool) {
	expr := demoExpr.FindString(s)
	if expr == "" {
		if v, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			return v, v, true
		}
		return 0, 0, false
	}
	var nums []int
	var ops []byte
	num := -1
	for _, r := range strings.ReplaceAll(expr, "×", "*") {
		switch {
		case r >= '0' && r <= '9':
			if num < 0 {
				num = 0
			}
			num = num*10 + int(r-'0')
		case r == '+' || r == '-' || r == '*':
			nums, ops, num = append(nums, num), append(ops, byte(r)), -1
		}
	}
	nums = append(nums, num)
	leftToRight = nums[0]
	for i, op := range ops {
		leftToRight = applyOp(leftToRight, op, nums[i+1])
	}
	// Precedence: fold products first, then sum the terms.
	terms, signs := []int{nums[0]}, []byte{'+'}
	for i, op := range ops {
		if op == '*' {
			terms[len(terms)-1] *= nums[i+1]
			continue
		}
		terms, signs = append(terms, nums[i+1]), append(signs, op)
	}
	for i, t := range terms {
		value = applyOp(value, signs[i], t)
	}
	return value, leftToRight, true
}

func applyOp(a int, op byte, b int) int {
	switch op {
	case '+':
		return a + b
	case '-':
		return a - b
	}
	return a * b
}
