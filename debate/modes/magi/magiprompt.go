package magi

import (
	"context"
	"fmt"
	"strings"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"

	"github.com/parleyhq/parley/providers"
)

// The MAGI members' prompts: what each round shows a member, the vote
// schema, the council's rules and the research and debate it reads.

// roundMessages builds member i's request for a round. The first message
// (the round-1 task and the question) and the member's own round-1 answer
// never change, so rounds 2 and 3 extend the same prefix and provider
// prompt caches apply; what a round adds comes after it.
func (m *Magi) roundMessages(i, round int, q string, prev [][]verdict.MagiVote) []providers.Message {
	first := fmt.Sprintf(round1Text, m.roundCount(), questionLine(q))
	if m.context != "" {
		first = "The debate so far in this session, for context:\n\n" + m.context + "\n\n" + first
	}
	own := m.agents[i].Name
	if i < len(m.notes) && m.notes[i] != "" && (len(prev) == 0 || prev[0][i].Agent == own) {
		first += "\n\nWhat you found in the workspace before the council (your own notes):\n\n" + m.notes[i]
	}
	msgs := []providers.Message{{Role: providers.RoleUser, Content: first}}
	if round == 1 || len(prev) == 0 {
		return msgs
	}
	seat := prev[0][i]
	var b strings.Builder
	switch {
	case seat.Agent != own: // the host swapped this seat: its earlier words are the predecessor's, not the newcomer's
		fmt.Fprintf(&b, "(The host gave you %s's seat in this council after round %d. %s\n\n", seat.Display, m.host.swapped[i], predecessorLine(seat))
	case seat.Valid:
		msgs = append(msgs, providers.Message{Role: providers.RoleAssistant, Content: seat.JSON()})
	default:
		b.WriteString("(Your round-1 opinion did not arrive: " + sanitize.Clip(seat.Error, 200) + ")\n\n")
	}
	of := m.roundCount()
	if round == 2 {
		fmt.Fprintf(&b, "Round 2 of %d: deliberation. These are the round-1 opinions of the other two members:\n\n", of)
	} else {
		fmt.Fprintf(&b, "Round 3 of %d: final vote. Your round-1 opinion is your earlier answer above. These are the round-2 opinions of all three members, yours included:\n\n", of)
	}
	for k, v := range m.arrange(i, verdict.ShownOpinions(i, round, prev)) {
		if m.anonymous {
			v.Display = "Member " + string(rune('A'+k%26))
		}
		b.WriteString(opinionLine(v))
		b.WriteString("\n")
	}
	if round == 2 {
		b.WriteString("\nWeigh them against your own round-1 opinion: which points did you miss, where is the common ground, under which conditions could you agree? Then give your opinion again (changed or not) as the JSON object.")
	} else {
		b.WriteString("\nCast your final vote as the JSON object.")
	}
	b.WriteString(changeRule)
	b.WriteString(hostWords(m.host, round))
	b.WriteString("\n\nThe question:\n\n")
	b.WriteString(questionLine(q))
	return append(msgs, providers.Message{Role: providers.RoleUser, Content: b.String()})
}

// predecessorLine is a swapped seat's round-1 opinion, told its newcomer.
func predecessorLine(v verdict.MagiVote) string {
	return "Its round-1 opinion, which is not yours: " + opinionLine(v) + ")"
}

// opinionLine shows one member's opinion to another: its canonical JSON, or
// why there is none.
func opinionLine(v verdict.MagiVote) string {
	if !v.Valid {
		return fmt.Sprintf("[%s]: (no valid opinion this round: %s)", v.Display, sanitize.Clip(v.Error, 200))
	}
	b := v.Ballot
	b.Reasoning = sanitize.Clip(b.Reasoning, 2000) // a runaway answer must not flood the others
	b.Summary = sanitize.Clip(b.Summary, 300)
	return fmt.Sprintf("[%s]: %s", v.Display, b.JSON())
}

func questionLine(q string) string { return "[" + debate.HostName + "]: " + q }

func voteSchema() *providers.Schema {
	return &providers.Schema{Name: "magi_vote", Description: "A MAGI council member's vote with its reasoning", JSON: verdict.VoteSchema()}
}

// schema is what this council's members are asked to answer in.
func (m *Magi) schema() *providers.Schema {
	if m.answer == verdict.AnswerApprove {
		return voteSchema()
	}
	return &providers.Schema{Name: verdict.AnswerSchemaName, Description: "A MAGI council member's answer with its confidence and reasoning", JSON: verdict.AnswerSchema(m.answer)}
}

func (m *Magi) retryPrompt(err error) string {
	if m.answer == verdict.AnswerApprove {
		return fmt.Sprintf(retryText, err)
	}
	return fmt.Sprintf("Your answer could not be read as the required JSON object: %v\nAnswer again with only the JSON object: {\"answer\": %s, \"confidence\": 0.0-1.0, \"reasoning\": \"2-4 sentences\", \"summary\": \"one line\"}.", err, verdict.AnswerHint(m.answer))
}

// arrange orders the opinions member i is shown: as they come, or with
// shuffle rotated by the member's place, so each member reads its peers in
// a different order and no opinion is always read first.
func (m *Magi) arrange(i int, shown []verdict.MagiVote) []verdict.MagiVote {
	if !m.shuffle || len(shown) < 2 {
		return shown
	}
	k := i % len(shown)
	return append(append([]verdict.MagiVote(nil), shown[k:]...), shown[:k]...)
}

// roundCount is how many rounds this council holds.
func (m *Magi) roundCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rounds
}

// rules are the council's rules for this council's length: a single-round
// council is not told of deliberation rounds that will never come.
func (m *Magi) rules() string {
	format := magiAnswerRules
	if m.answer != verdict.AnswerApprove {
		format = verdict.AnswerRules(m.answer)
	}
	if m.roundCount() == 1 {
		return magiRulesSingle + format
	}
	return magiRules + format
}

// magiRules go after each member's persona in its system prompt; they are
// the same in every round so the prompt prefix stays cacheable.
const magiRules = `You sit on the MAGI council with two other members. The host puts a question or proposal to the council, which deliberates in three rounds and decides by majority.
Round 1: you judge it alone. Round 2: you read the other two members' round-1 opinions and may revise yours: look for points you missed, common ground, and conditions under which you would agree. Round 3: you read all round-2 opinions and cast your final vote.
Judge from your own perspective and criteria. Change your vote only for an argument, never merely to join the majority.
`

const magiRulesSingle = `You sit on the MAGI council with two other members. The host puts a question or proposal to the council, which decides in a single round by majority: each member judges it alone, without seeing the others' opinions.
Judge from your own perspective and criteria.
`

const magiAnswerRules = `Every answer is one JSON object and nothing else: {"vote": "approve" | "reject" | "abstain", "reasoning": "2-4 sentences", "summary": "one line", "changed_by": "" or the argument that changed your vote}.
approve: accept the proposal, or answer yes. reject: refuse it, or answer no. abstain: only when you cannot judge it.`

// changeRule asks a member that changes its vote to name why: a change with
// no new argument counts as conformity (AuditFlips), and the guard leaves it
// out of the verdict.
const changeRule = ` If you change your vote, name in "changed_by" the argument that changed your mind (whose, and what it shows); a change with no new argument counts as conformity. Keep "changed_by" empty if you keep your vote.`

const round1Text = "Round 1 of %d: independent analysis. You have not seen the other members' opinions. Give your opinion as the JSON object.\n\nThe question:\n\n%s"

const retryText = `Your answer could not be read as the required JSON object: %v
Answer again with only the JSON object: {"vote": "approve" | "reject" | "abstain", "reasoning": "2-4 sentences", "summary": "one line"}.`

// research lets members with tools: true read the workspace before round 1,
// all at once; each gets only its own findings, in the stable first message
// of its rounds. A failed or cut-short look leaves a note saying so, and the
// member votes on the question alone.
func (m *Magi) research(ctx context.Context, q string) []string {
	notes := make([]string, len(m.agents))
	loops := make([]*debate.ToolLoop, len(m.agents))
	for i, a := range m.agents { // first turns in member order, as in a round
		if !a.Tools.Files() || m.engine.NativeTools(a) != nil { // native tools are called in the votes
			continue
		}
		spec := debate.TurnSpec{Agent: a, Kind: transcript.KindReply, Prompt: q, Instruction: magiResearchText,
			Messages: []providers.Message{{Role: providers.RoleUser, Content: questionLine(q)}}}
		loops[i] = m.engine.NewToolLoop(spec, 0, false)
		loops[i].Reserve()
	}
	debate.InParallel(len(loops), func(i int) {
		if loops[i] == nil {
			return
		}
		en, err := loops[i].Run(ctx)
		switch {
		case err != nil:
			notes[i] = "(the look at the workspace failed: " + sanitize.Clip(err.Error(), 200) + ")"
		default:
			notes[i] = strings.TrimSpace(en.Text)
		}
	})
	return notes
}

const magiResearchText = "The MAGI council will vote on the host's question. Before it does, gather the facts from the workspace that bear on it: read what matters, then call complete with your findings as short notes (facts and file names, no vote yet). If the workspace has nothing relevant, complete at once saying so."

// debateSoFar renders the history before the question as one block that
// every member reads first, bounded by MAGI's context budget. Earlier
// councils' votes and verdicts are part of it, so a council run on a fork
// knows what the original decided.
func (m *Magi) debateSoFar(ctx context.Context) string {
	if m.engine.History().Len() == 0 {
		return ""
	}
	var parts []string
	for _, msg := range m.engine.PromptFor(ctx, debate.Prompt{Mode: "magi"}) {
		parts = append(parts, msg.Content)
	}
	return strings.Join(parts, "\n\n")
}
