// Package demo is Parley's offline, deterministic agent: no key, no network.
package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/parleyhq/parley/internal/lazyregexp"

	"github.com/parleyhq/parley/providers"
)

// Demo is an offline, deterministic agent. It answers from the structure of
// the request — its mode, purpose and round (Request.Meta), its schema, the
// tool protocol flag — and the latest messages, and streams a plausible
// answer at a visible pace, so `--demo` exercises every mode of the product
// with no key and no network.
type Demo struct {
	name string
	pace time.Duration // between streamed words
}

// Pace is the delay between the words New's providers stream: a visible
// pace, as a model's stream is, and the one users see. Tests that run whole
// commands pass a faster one to NewWithPace (the suite would otherwise
// spend most of its time watching words arrive).
const Pace = 18 * time.Millisecond

// MaxPace bounds the pace PARLEY_DEMO_PACE may set.
const MaxPace = time.Second

// ParsePace reads PARLEY_DEMO_PACE, the delay between a demo agent's
// words: a Go duration from 0 (no delay; still one word at a time) to
// MaxPace. Anything else, unset included, is Pace. Recordings use it, and
// the tests that run the real binary where what they check does not depend
// on watching words arrive (most of their time would otherwise go there).
func ParsePace(v string) time.Duration {
	if d, err := time.ParseDuration(v); err == nil && d >= 0 && d <= MaxPace {
		return d
	}
	return Pace
}

// New returns a demo provider streaming at Pace.
func New(name string) providers.Provider { return &Demo{name: name, pace: Pace} }

// NewWithPace returns a demo provider with a chosen pace (0: instant), for tests.
func NewWithPace(name string, pace time.Duration) providers.Provider {
	return &Demo{name: name, pace: pace}
}

// Name implements providers.Provider.
func (d *Demo) Name() string { return d.name }

// Stream implements providers.Provider.
func (d *Demo) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	in := EstimateRequestTokens(req)
	if text, calls, ok := toolStep(req); ok { // native tools (tools.go)
		out := len(text)
		for _, c := range calls {
			out += len(c.Name) + len(c.Arguments)
		}
		return &demoStream{ctx: ctx, words: splitKeepSpace(text), pace: d.pace, calls: calls,
			usage: providers.Usage{InputTokens: in, OutputTokens: (out + 3) / 4}}, nil
	}
	answer, ok := afterTools(req)
	if !ok {
		answer = Answer(req)
	}
	return &demoStream{ctx: ctx, words: splitKeepSpace(answer), pace: d.pace,
		usage: providers.Usage{InputTokens: in, OutputTokens: (len(answer) + 3) / 4}}, nil
}

// EstimateRequestTokens estimates a request's prompt size (4 bytes a token).
func EstimateRequestTokens(req providers.Request) int {
	n := len(req.System)
	for _, m := range req.Messages {
		n += len(m.Content) + 4
		for _, r := range m.ToolResults {
			n += len(r.Content) + 4
		}
		for _, c := range m.ToolCalls {
			n += len(c.Name) + len(c.Arguments) + 4
		}
	}
	return (n + 3) / 4
}

// Answer is the whole answer a demo agent gives to req.
func Answer(req providers.Request) string {
	last := lastUser(req.Messages)
	switch {
	case req.Schema != nil && req.Schema.Name == demoAnswerSchema:
		return demoAnswer(req)
	case req.Schema != nil && isVoteSchema(req.Schema):
		return demoVote(req, last)
	case req.Schema != nil:
		return demoStructured(req, last)
	case req.Meta.Tools && wantsTools(req, last):
		return demoToolStep(req, latestUser(req.Messages)) // the tool result just sent
	case req.Meta.Purpose == providers.PurposeOpen || req.Meta.Purpose == providers.PurposeSummary || req.Meta.Purpose == providers.PurposeClose:
		return demoModerator(req, last)
	default:
		return demoReply(req, last)
	}
}

// fileWords mark a question about files, for which a demo agent that may
// use tools in a conversation reaches for them; other questions get a
// plain answer, as a real model would give. In agent mode the tools are
// always used.
var fileWords = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(read|file|files|code|repo|repository|folder|directory|source|package|workspace)\b|\w\.(go|py|rs|js|ts|md|yaml)\b`)
})

func wantsTools(req providers.Request, last string) bool {
	if req.Meta.Mode == "agent" {
		return true
	}
	for _, m := range req.Messages {
		if m.Role == providers.RoleUser && strings.Contains(m.Content, "[Host") {
			last = m.Content // the host's latest question decides
		}
	}
	return fileWords().MatchString(question(last))
}

// latestUser is the newest user message.
func latestUser(msgs []providers.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == providers.RoleUser {
			return msgs[i].Content
		}
	}
	return ""
}

// lastUser is the latest user message that holds the host's words, else
// the latest user message: what a demo agent answers to.
func lastUser(msgs []providers.Message) string {
	latest := latestUser(msgs)
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != providers.RoleUser || !strings.Contains(msgs[i].Content, "[Host") {
			continue
		}
		if msgs[i].Content == latest {
			return latest
		}
		// The host spoke earlier: answer that, but keep the newest speaker
		// in view so the demo can refer to them.
		return msgs[i].Content + "\n\n" + latest
	}
	return latest
}

var speakerPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[([^\]\n]{1,40})\]:`) })

// question is the host's latest words in a user message, without prefixes.
func question(last string) string {
	q := last
	if locs := speakerPrefix().FindAllStringIndex(last, -1); len(locs) > 0 {
		for i := len(locs) - 1; i >= 0; i-- {
			if strings.HasPrefix(last[locs[i][0]:], "[Host") {
				q = last[locs[i][1]:]
				if i+1 < len(locs) { // the host's words end where the next speaker starts
					q = last[locs[i][1]:locs[i+1][0]]
				}
				break
			}
		}
	}
	q = strings.TrimSpace(sanitizeQuestion(q))
	var words []string
	for _, w := range strings.Fields(q) {
		if !strings.HasPrefix(w, "@") {
			words = append(words, w)
		}
	}
	q = strings.Join(words, " ")
	if r := []rune(q); len(r) > 120 {
		q = string(r[:119]) + "…"
	}
	if q == "" {
		q = "the question on the table"
	}
	return q
}

// personaName is the addressed agent's name: Meta.Agent, else the name the
// system prompt gives.
func personaName(req providers.Request) string {
	if req.Meta.Agent != "" {
		return req.Meta.Agent
	}
	system := req.System
	if m := regexp.MustCompile(`You are ([A-Za-z0-9_.\- ]{1,30}?)[,.]`).FindStringSubmatch(system); m != nil {
		return strings.TrimSpace(m[1])
	}
	return "Agent"
}

func seed(parts ...string) uint32 {
	h := fnv.New32a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum32()
}

func pick(options []string, n uint32) string { return options[int(n%uint32(len(options)))] }

func demoReply(req providers.Request, last string) string {
	name := personaName(req)
	q := question(last)
	n := seed(name, q)
	sys := strings.ToLower(req.System)
	var b strings.Builder
	openers := []string{"Here is how I see it.", "Short answer first, then the detail.", "Let me take this step by step.", "Good question — a few angles."}
	fmt.Fprintf(&b, "**%s** on *%s*: %s\n\n", name, q, pick(openers, n))
	// The question's own words go into the points: the first names the
	// topic, the others dwell on one word each, from a persona's own start.
	words := salientWords(q)
	angle := map[string][]string{
		"scientist": {"Look at the evidence on %s and what it actually measures", "Find the cheapest experiment that would settle the %s question"},
		"guardian":  {"Ask whom a choice on %s affects and how they could be hurt", "Plan what we can undo if %s goes wrong"},
		"maverick":  {"Take the upside of %s everyone else is discounting", "Place a small bet on a bolder use of %s"},
		"coding":    {"Make the smallest change to %s that compiles and passes tests", "List the edge cases of %s a reviewer would catch"},
	}
	// Each point has a few phrasings; the seed picks one, so two plain
	// agents asked the same question still word it differently.
	points := []string{
		pick([]string{"Pin down what matters most about %s", "Start with what you need from %s", "Say plainly what you expect of %s"}, seed(name, q, "1")),
		pick([]string{"Try %s on one concrete example", "Picture %s in a real week of work", "Look for where %s surprises people"}, seed(name, q, "2")),
		pick([]string{"Weigh the main trade-off around %s", "Count what %s costs over a year", "Ask what you give up with %s"}, seed(name, q, "3")),
	}
	for k, v := range angle {
		if strings.Contains(sys, k) {
			points = append(v, points[2])
		}
	}
	endings := []string{"it changes the answer more than it seems", "it is where most mistakes hide", "it is what I would check first", "it keeps the discussion honest"}
	for i, p := range points {
		subject := topic(words)
		if i > 0 {
			subject = focus(words, seed(name, q, "focus"), i)
		}
		fmt.Fprintf(&b, "%d. %s: %s.\n", i+1, fmt.Sprintf(p, subject), pick(endings, n+uint32(i)))
	}
	if other := otherSpeaker(last); other != "" {
		fmt.Fprintf(&b, "\nI %s %s's point, %s.\n", pick([]string{"agree with", "partly disagree with", "would build on"}, n>>3), other, pick([]string{"and add a caveat about scope", "though the evidence is thinner than it sounds", "especially the part about trade-offs"}, n>>5))
	}
	fmt.Fprintf(&b, "\n_(offline demo answer from %s — set an API key for real models)_", name)
	return b.String()
}

func otherSpeaker(last string) string {
	for _, m := range speakerPrefix().FindAllStringSubmatch(last, -1) {
		if !strings.HasPrefix(m[1], "Host") && !strings.HasPrefix(m[1], "tool") && !strings.HasPrefix(m[1], "Summary") && !strings.HasPrefix(m[1], "MAGI") {
			return m[1]
		}
	}
	return ""
}

func demoModerator(req providers.Request, last string) string {
	name := personaName(req)
	q := question(last)
	switch req.Meta.Purpose {
	case providers.PurposeClose:
		return fmt.Sprintf("Thank you both. To close: we heard two careful positions on *%s*. They agree on the basics and differ on risk and pace. I leave the audience with one question: what evidence would change your mind?\n\n_(%s, offline demo)_", q, name)
	case providers.PurposeSummary:
		round := ""
		if req.Meta.Round > 0 {
			round = fmt.Sprintf(" %d", req.Meta.Round)
			if req.Meta.Rounds > 0 {
				round += fmt.Sprintf(" of %d", req.Meta.Rounds)
			}
		}
		next := "Next round, please answer each other directly."
		if req.Meta.Rounds > 0 && req.Meta.Round >= req.Meta.Rounds {
			next = "That was the last round; my closing words follow." // no round comes after it
		}
		return fmt.Sprintf("Round%s summary: both guests made their case on *%s*. Common ground: the goal. Open question: the cost of getting there. %s\n\n_(%s, offline demo)_", round, q, next, name)
	default:
		return fmt.Sprintf("Welcome to the table. Today's topic: *%s*. Our two guests will take turns; I will sum up after each round. First guest, the floor is yours.\n\n_(%s, offline demo)_", q, name)
	}
}

var voteWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)"vote"\s*:\s*"(approve|reject|abstain)"`) })

func demoVote(req providers.Request, last string) string {
	name := personaName(req)
	q := question(last)
	sys := strings.ToLower(req.System)
	n := seed(name, q)
	vote := pick([]string{"approve", "approve", "reject", "abstain"}, n)
	switch {
	case strings.Contains(sys, "guardian"):
		vote = pick([]string{"reject", "approve", "abstain"}, n)
	case strings.Contains(sys, "maverick"):
		vote = pick([]string{"approve", "approve", "reject"}, n)
	}
	// Deliberate like a council: in later rounds a member usually joins a
	// clear majority of the opinions it was shown, and an abstainer picks a
	// side in the final round, so demo councils show vote changes (and the
	// console's conformity audit has something to audit).
	round := max(req.Meta.Round, 1)
	final := req.Meta.Rounds > 0 && round >= req.Meta.Rounds
	changed := ""
	if round > 1 {
		counts := map[string]int{}
		for _, m := range voteWord().FindAllStringSubmatch(last, -1) {
			counts[strings.ToLower(m[1])]++
		}
		for v, c := range counts {
			if c >= 2 && v != vote && v != "abstain" && n%5 != 0 {
				vote, changed = v, "the majority's case"
			}
		}
		if changed == "" && vote == "abstain" && final {
			vote, changed = "approve", "the conditions raised in deliberation"
			if strings.Contains(sys, "guardian") {
				vote = "reject"
			}
		}
	}
	reason := map[string]string{
		"approve": "The benefits are concrete and the risks can be contained with a staged rollout. The evidence available points the same way.",
		"reject":  "The downside is hard to reverse and the people affected were not asked. The case for it rests on assumptions nobody has tested.",
		"abstain": "The question is framed too broadly to judge responsibly. With a narrower proposal and real numbers I would vote.",
	}[vote]
	if changed != "" {
		reason = fmt.Sprintf("Round %d: I now side with %s. %s", round, changed, reason)
	}
	return fmt.Sprintf(`{"vote": %q, "reasoning": %q, "summary": %q}`, vote,
		fmt.Sprintf("As %s, on %q: %s", name, q, reason),
		fmt.Sprintf("%s %ss: %s", name, vote, strings.SplitN(reason, ".", 2)[0]))
}

var (
	listedPath = lazyregexp.New(`(?m)^\s*(?:[-*]\s*)?([\w./-]+\.(?:go|md|py|rs|js|ts|txt|yaml|toml|json))\s*(?:\(|$)`)
	xmlPath    = lazyregexp.New(`<path>([^<]*)</path>`)
)

// demoToolStep follows the seed's loop: list, read the most telling file,
// complete. Only the calls since the host's latest question count (earlier
// turns of the session, in this mode or another, do not), so every
// question starts a fresh loop: list_file, then read_file, then complete.
func demoToolStep(req providers.Request, last string) string {
	msgs := req.Messages
	start, hostQuestion := 0, "the question"
	for i, m := range msgs {
		if m.Role == providers.RoleUser && !strings.HasPrefix(m.Content, toolResultPrefix) && strings.Contains(m.Content, "[Host") {
			start, hostQuestion = i+1, question(m.Content)
		}
	}
	listed, listing, read, readResult := false, last, "", ""
	for i := start; i < len(msgs); i++ {
		if msgs[i].Role != providers.RoleAssistant {
			continue
		}
		result := ""
		if i+1 < len(msgs) && msgs[i+1].Role == providers.RoleUser {
			result = msgs[i+1].Content
		}
		switch {
		case strings.Contains(msgs[i].Content, "<list_file>"):
			listed, listing = true, result
		case strings.Contains(msgs[i].Content, "<read_file>"):
			if m := xmlPath.FindStringSubmatch(msgs[i].Content); m != nil {
				read, readResult = m[1], result
			}
		}
	}
	switch {
	case !listed:
		return "I will start by looking at the layout of the workspace.\n<list_file><path>.</path><recursive>true</recursive></list_file>"
	case read == "":
		if target := readTarget(listing); target != "" {
			return fmt.Sprintf("Let me read %s.\n<read_file><path>%s</path></read_file>", target, target)
		}
		return fmt.Sprintf("<complete><summary>On *%s*: I listed the workspace and found no text file to read. (offline demo)</summary></complete>", hostQuestion)
	}
	return readSummary(hostQuestion, read, readResult)
}

// toolResultPrefix opens the message that carries a tool's result.
const toolResultPrefix = "[tool result]"

// readTarget picks the file to read from a listing: the README, else a Go
// file (main.go first), else the first file listed.
func readTarget(listing string) string {
	files := listedPath.FindAllStringSubmatch(listing, -1)
	best, rank := "", 4
	for _, f := range files {
		r := 3
		switch base := strings.ToLower(f[1][strings.LastIndex(f[1], "/")+1:]); {
		case base == "readme.md":
			r = 0
		case base == "main.go":
			r = 1
		case strings.HasSuffix(base, ".go"):
			r = 2
		}
		if r < rank {
			best, rank = f[1], r
		}
	}
	return best
}

// readSummary completes with what was read: the file, its size and its
// opening line. The result is "[tool result]: read_file PATH: N bytes, L
// lines" then the text.
func readSummary(hostQuestion, read, result string) string {
	head, body, _ := strings.Cut(result, "\n")
	size := strings.TrimSpace(head[strings.LastIndex(head, ":")+1:])
	opening := ""
	for _, line := range strings.Split(body, "\n") {
		if line = strings.TrimSpace(strings.TrimLeft(line, "#*-> ")); line != "" {
			opening = line
			break
		}
	}
	if r := []rune(opening); len(r) > 100 {
		opening = string(r[:99]) + "…"
	}
	return fmt.Sprintf("<complete><summary>On *%s*: I listed the workspace and read `%s` (%s). It opens with: %q. That file is the place to start; ask me about any part for more detail. (offline demo: a real model reads further and explains the code)</summary></complete>", hostQuestion, read, size, opening)
}

// isVoteSchema reports a MAGI-style vote: an object with a vote property.
func isVoteSchema(s *providers.Schema) bool {
	props, _ := s.JSON["properties"].(map[string]any)
	_, vote := props["vote"]
	return vote || (props == nil && strings.Contains(strings.ToLower(s.Name), "vote"))
}

// demoStructured fills any other schema plausibly: enums get a choice,
// arrays of enums (a ranking) get every value in a deterministic order,
// strings get a short sentence naming the agent and the question.
func demoStructured(req providers.Request, last string) string {
	name := personaName(req)
	q := question(last)
	n := seed(name, q, req.Schema.Name)
	out, _ := json.Marshal(fillSchema(req.Schema.JSON, name, q, n, 0))
	return string(out)
}

func fillSchema(schema map[string]any, name, q string, n uint32, depth int) any {
	if depth > 8 {
		return nil
	}
	if enum := stringsOf(schema["enum"]); len(enum) > 0 {
		return pick(enum, n)
	}
	typ, _ := schema["type"].(string)
	switch typ {
	case "object", "":
		props, _ := schema["properties"].(map[string]any)
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := map[string]any{}
		for i, k := range keys {
			sub, _ := props[k].(map[string]any)
			out[k] = fillSchema(sub, name, q, n+uint32(i)*7, depth+1)
		}
		return out
	case "array":
		items, _ := schema["items"].(map[string]any)
		if enum := stringsOf(items["enum"]); len(enum) > 0 {
			ranked := append([]string(nil), enum...)
			rot := int(n % uint32(len(ranked)))
			return append(ranked[rot:], ranked[:rot]...) // a ranking of every option
		}
		return []any{fillSchema(items, name, q, n, depth+1)}
	case "integer", "number":
		return 1 + int(n%3)
	case "boolean":
		return n%2 == 0
	}
	// The question is not quoted back: a ranking request's last message is
	// the whole judging prompt, not the host's words.
	return fmt.Sprintf("%s: the strongest answer is the one with the clearest evidence and the fewest untested assumptions. (offline demo)", name)
}

func stringsOf(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
