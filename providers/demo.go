package providers

import (
	"context"
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"
	"time"
)

// Demo is an offline, deterministic agent. It reads the request the way a
// model would — persona, mode instructions, schema, tool protocol, the latest
// messages — and streams a plausible answer at a visible pace, so `--demo`
// exercises every mode of the product with no key and no network.
type Demo struct {
	name string
	pace time.Duration // between streamed words
}

// NewDemo returns a demo provider streaming at a visible pace.
func NewDemo(name string) Provider { return &Demo{name: name, pace: 18 * time.Millisecond} }

// NewDemoWithPace returns a demo provider with a chosen pace (0: instant), for tests.
func NewDemoWithPace(name string, pace time.Duration) Provider { return &Demo{name: name, pace: pace} }

// Name implements Provider.
func (d *Demo) Name() string { return d.name }

// Stream implements Provider.
func (d *Demo) Stream(ctx context.Context, req Request) (Stream, error) {
	answer := DemoAnswer(req)
	in := EstimateRequestTokens(req)
	return &demoStream{ctx: ctx, words: splitKeepSpace(answer), pace: d.pace,
		usage: Usage{InputTokens: in, OutputTokens: (len(answer) + 3) / 4}}, nil
}

// EstimateRequestTokens estimates a request's prompt size (4 bytes a token).
func EstimateRequestTokens(req Request) int {
	n := len(req.System)
	for _, m := range req.Messages {
		n += len(m.Content) + 4
	}
	return (n + 3) / 4
}

type demoStream struct {
	ctx   context.Context
	words []string
	i     int
	cur   string
	pace  time.Duration
	usage Usage
	err   error
	done  bool
}

func (s *demoStream) Next() bool {
	if s.done {
		return false
	}
	if s.i >= len(s.words) {
		s.done = true
		return false
	}
	if s.pace > 0 {
		t := time.NewTimer(s.pace)
		select {
		case <-s.ctx.Done():
			t.Stop()
			s.err, s.done = &Error{Provider: "demo", Kind: KindCanceled, Err: s.ctx.Err()}, true
			return false
		case <-t.C:
		}
	} else if s.ctx.Err() != nil {
		s.err, s.done = &Error{Provider: "demo", Kind: KindCanceled, Err: s.ctx.Err()}, true
		return false
	}
	s.cur = s.words[s.i]
	s.i++
	return true
}

func (s *demoStream) Delta() string { return s.cur }
func (s *demoStream) Err() error    { return s.err }
func (s *demoStream) Close() error  { return nil }
func (s *demoStream) Result() Result {
	u := s.usage
	if s.i < len(s.words) { // cut short: count what was sent
		sent := 0
		for _, w := range s.words[:s.i] {
			sent += len(w)
		}
		u.OutputTokens = (sent + 3) / 4
	}
	return Result{Usage: u, FinishReason: "stop"}
}

// splitKeepSpace splits text into words that keep their trailing spaces and
// newlines, so joining the pieces gives the text back exactly.
func splitKeepSpace(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' || s[i] == '\n' {
			j := i
			for j < len(s) && (s[j] == ' ' || s[j] == '\n') {
				j++
			}
			out = append(out, s[start:j])
			start, i = j, j-1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// DemoAnswer is the whole answer a demo agent gives to req.
func DemoAnswer(req Request) string {
	last := lastUser(req.Messages)
	switch {
	case req.Schema != nil:
		return demoVote(req, last)
	case strings.Contains(req.System, "<list_file>") && wantsTools(req, last):
		return demoToolStep(req, latestUser(req.Messages)) // the tool result just sent
	case isModerator(req.System):
		return demoModerator(req, last)
	default:
		return demoReply(req, last)
	}
}

// fileWords mark a question about files, for which a demo agent that may
// use tools reaches for them; other questions get a plain answer, as a
// real model would give.
var fileWords = regexp.MustCompile(`(?i)\b(read|file|files|code|repo|repository|folder|directory|source|package|workspace)\b|\w\.(go|py|rs|js|ts|md|yaml)\b`)

func wantsTools(req Request, last string) bool {
	if strings.Contains(req.System, "asks about the code in the workspace") {
		return true // agent mode: always the tool protocol
	}
	for _, m := range req.Messages {
		if m.Role == RoleUser && strings.Contains(m.Content, "[Host") {
			last = m.Content // the host's latest question decides
		}
	}
	return fileWords.MatchString(question(last))
}

// latestUser is the newest user message.
func latestUser(msgs []Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == RoleUser {
			return msgs[i].Content
		}
	}
	return ""
}

// lastUser is the latest user message that holds the host's words, else
// the latest user message: what a demo agent answers to.
func lastUser(msgs []Message) string {
	latest := latestUser(msgs)
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != RoleUser || !strings.Contains(msgs[i].Content, "[Host") {
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

var speakerPrefix = regexp.MustCompile(`\[([^\]\n]{1,40})\]:`)

// question is the host's latest words in a user message, without prefixes.
func question(last string) string {
	q := last
	if locs := speakerPrefix.FindAllStringIndex(last, -1); len(locs) > 0 {
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
	q = strings.TrimSpace(q)
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

func personaName(system string) string {
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

func isModerator(system string) bool {
	s := strings.ToLower(system)
	return strings.Contains(s, "you are the mc") || strings.Contains(s, "moderator")
}

func demoReply(req Request, last string) string {
	name := personaName(req.System)
	q := question(last)
	n := seed(name, q)
	sys := strings.ToLower(req.System)
	var b strings.Builder
	openers := []string{"Here is how I see it.", "Short answer first, then the detail.", "Let me take this step by step.", "Good question — a few angles."}
	fmt.Fprintf(&b, "**%s** on *%s*: %s\n\n", name, q, pick(openers, n))
	angle := map[string][]string{
		"scientist": {"the evidence and what it actually measures", "the cheapest experiment that would settle it"},
		"guardian":  {"who is affected and how they could be hurt", "what we can undo if it goes wrong"},
		"maverick":  {"the upside everyone else is discounting", "a bolder variant worth a small bet"},
		"coding":    {"the smallest change that compiles and passes tests", "the edge cases a reviewer would catch"},
	}
	points := []string{"the core idea, stated plainly", "a concrete example", "the main trade-off"}
	for k, v := range angle {
		if strings.Contains(sys, k) {
			points = append(v, points[2])
		}
	}
	for i, p := range points {
		fmt.Fprintf(&b, "%d. Consider %s: %s.\n", i+1, p, pick([]string{"it changes the answer more than it seems", "it is where most mistakes hide", "it is what I would check first", "it keeps the discussion honest"}, n+uint32(i)))
	}
	if other := otherSpeaker(last); other != "" {
		fmt.Fprintf(&b, "\nI %s %s's point, %s.\n", pick([]string{"agree with", "partly disagree with", "would build on"}, n>>3), other, pick([]string{"and add a caveat about scope", "though the evidence is thinner than it sounds", "especially the part about trade-offs"}, n>>5))
	}
	fmt.Fprintf(&b, "\n_(offline demo answer from %s — set an API key for real models)_", name)
	return b.String()
}

func otherSpeaker(last string) string {
	for _, m := range speakerPrefix.FindAllStringSubmatch(last, -1) {
		if !strings.HasPrefix(m[1], "Host") && !strings.HasPrefix(m[1], "tool") && !strings.HasPrefix(m[1], "Summary") && !strings.HasPrefix(m[1], "MAGI") {
			return m[1]
		}
	}
	return ""
}

func demoModerator(req Request, last string) string {
	name := personaName(req.System)
	q := question(last)
	low := strings.ToLower(last + "\n" + req.System[max(0, len(req.System)-400):])
	switch {
	case strings.Contains(low, "close") || strings.Contains(low, "closing") || strings.Contains(low, "wrap"):
		return fmt.Sprintf("Thank you both. To close: we heard two careful positions on *%s*. They agree on the basics and differ on risk and pace. I leave the audience with one question: what evidence would change your mind?\n\n_(%s, offline demo)_", q, name)
	case strings.Contains(low, "summar"):
		return fmt.Sprintf("Round summary: both guests made their case on *%s*. Common ground: the goal. Open question: the cost of getting there. Next round, please answer each other directly.\n\n_(%s, offline demo)_", q, name)
	default:
		return fmt.Sprintf("Welcome to the table. Today's topic: *%s*. Our two guests will take turns; I will sum up after each round. First guest, the floor is yours.\n\n_(%s, offline demo)_", q, name)
	}
}

var voteWord = regexp.MustCompile(`(?i)"vote"\s*:\s*"(approve|reject|abstain)"`)

func demoVote(req Request, last string) string {
	name := personaName(req.System)
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
	round := 1
	switch {
	case strings.Contains(last, "Round 3 of 3"):
		round = 3
	case strings.Contains(last, "Round 2 of 3"):
		round = 2
	}
	changed := ""
	if round > 1 {
		counts := map[string]int{}
		for _, m := range voteWord.FindAllStringSubmatch(last, -1) {
			counts[strings.ToLower(m[1])]++
		}
		for v, c := range counts {
			if c >= 2 && v != vote && v != "abstain" && n%5 != 0 {
				vote, changed = v, "the majority's case"
			}
		}
		if changed == "" && vote == "abstain" && round == 3 {
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
	listedPath = regexp.MustCompile(`(?m)^\s*(?:[-*]\s*)?([\w./-]+\.(?:go|md|py|rs|js|ts|txt|yaml|toml|json))\s*(?:\(|$)`)
	xmlPath    = regexp.MustCompile(`<path>([^<]*)</path>`)
)

// demoToolStep follows the seed's loop: list, read the most telling file,
// complete. Only the replies since the host's latest question count, so a
// second question in the same session starts a fresh loop.
func demoToolStep(req Request, last string) string {
	var calls []string
	hostQuestion := "the question"
	for _, m := range req.Messages {
		switch {
		case m.Role == RoleUser && strings.HasPrefix(m.Content, "[Host"):
			calls, hostQuestion = nil, question(m.Content)
		case m.Role == RoleAssistant:
			calls = append(calls, m.Content)
		}
	}
	switch {
	case len(calls) == 0:
		return "I will start by looking at the layout of the workspace.\n<list_file><path>.</path><recursive>true</recursive></list_file>"
	case len(calls) == 1:
		files := listedPath.FindAllStringSubmatch(last, -1)
		target := ""
		for _, f := range files {
			if strings.EqualFold(f[1], "README.md") {
				target = f[1]
				break
			}
		}
		if target == "" && len(files) > 0 {
			target = files[0][1]
		}
		if target == "" {
			return "<complete><summary>The folder has no readable source files I could find. (offline demo)</summary></complete>"
		}
		return fmt.Sprintf("Let me read %s.\n<read_file><path>%s</path></read_file>", target, target)
	default:
		read := ""
		if m := xmlPath.FindStringSubmatch(calls[len(calls)-1]); m != nil {
			read = m[1]
		}
		// The result is "[tool result]: read_file PATH: N bytes, L lines" then the text.
		head, body, _ := strings.Cut(last, "\n")
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
}
