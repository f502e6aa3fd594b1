// Package checkpoint is the vocabulary of the host in the loop: where a
// run may pause for the person who asked (a Point), which pauses a run
// takes (a Policy), what the host may answer (an Answer) and the one
// reader of a typed answer line (ParseLine). It knows no terminal, page or
// protocol: the engine (debate) asks a Host at each Point it takes and
// every door answers through one.
package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Policy decides which of a mode's points pause the run.
type Policy string

const (
	// Never pauses nowhere (the default: scripts see no change).
	Never Policy = "never"
	// EachRound pauses at every point the mode declares.
	EachRound Policy = "each_round"
	// OnSplit pauses only where the members disagree.
	OnSplit Policy = "on_split"
)

// Policies lists the policies, for help and errors.
var Policies = []Policy{Never, EachRound, OnSplit}

// ParsePolicy reads a policy ("" is Never).
func ParsePolicy(s string) (Policy, error) {
	p := Policy(strings.TrimSpace(s))
	if p == "" {
		return Never, nil
	}
	if slices.Contains(Policies, p) {
		return p, nil
	}
	return "", fmt.Errorf("unknown checkpoint policy %q (one of never, each_round, on_split)", s)
}

// Pauses reports whether the policy stops the run at p. A pending tool
// call is asked whatever the policy: its rule (ask) says so.
func (pol Policy) Pauses(p Point) bool {
	switch {
	case p.Kind == KindTool:
		return true
	case pol == EachRound:
		return true
	case pol == OnSplit:
		return p.Split
	}
	return false
}

// Kind is where in a run a point sits.
type Kind string

const (
	KindRound    Kind = "round"    // after a MAGI round
	KindAnswers  Kind = "answers"  // after a council's answers
	KindRankings Kind = "rankings" // after a council's rankings
	KindSummary  Kind = "summary"  // after a talk's MC summary
	KindStep     Kind = "step"     // between alternate's steps
	KindTool     Kind = "tool"     // before a tool call whose rule is ask
)

// Action is what the host does at a point.
type Action string

const (
	Continue Action = "continue"
	Note     Action = "note"    // words every member reads in the next round
	Drop     Action = "drop"    // a member sits out the rest of the run
	Swap     Action = "swap"    // another agent takes a member's seat
	Approve  Action = "approve" // the pending tool call runs
	Deny     Action = "deny"    // it does not; the reason is its result
	Stop     Action = "stop"    // the run ends here, and its outcome says so
)

// ToolCall is the call a KindTool point waits on.
type ToolCall struct {
	Agent     string `json:"agent"`
	Tool      string `json:"tool"`
	Arguments string `json:"arguments"`
}

// Point is one place a run waits for the host: what happened (Summary,
// worded by the mode), where (Kind, Round of Of), who sits (Members) and
// what the host may do (Choices).
type Point struct {
	Kind    Kind   `json:"kind"`
	Round   int    `json:"round,omitempty"`
	Of      int    `json:"of,omitempty"`
	Summary string `json:"summary"`
	// Split: the members disagree (OnSplit pauses only then).
	Split   bool     `json:"split"`
	Members []string `json:"members,omitempty"`
	// Kept are the seats the host may not drop or swap here, each with the
	// sentence that says why (a council's chairman, its last two members).
	Kept []Kept `json:"kept,omitempty"`
	// Agents are the agents that may take a member's seat (swap).
	Agents  []string  `json:"agents,omitempty"`
	Choices []Action  `json:"choices"`
	Tool    *ToolCall `json:"tool,omitempty"`
	// Resume is the mode's own state to go on from the point after the
	// process ended (saved with it, never in an event).
	Resume string `json:"-"`
}

// Kept is a seat a point keeps, and why.
type Kept struct {
	Name string `json:"name"`
	Why  string `json:"why"`
	// Swappable: only a drop is refused; another agent may take the seat
	// (talk's MC, its last guest).
	Swappable bool `json:"swappable,omitempty"`
}

// Actions are every action a host may take, for the doors that describe
// the answer (an API schema): each door takes the list from here.
var Actions = []Action{Continue, Note, Drop, Swap, Approve, Deny, Stop}

// RoundChoices are the choices between rounds; ToolChoices before a call.
var (
	RoundChoices = []Action{Continue, Note, Drop, Swap, Stop}
	ToolChoices  = []Action{Approve, Deny}
)

// Answer is the host's answer at a point.
type Answer struct {
	Action Action `json:"action"`
	// Text is the note, or a denial's reason.
	Text string `json:"text,omitempty"`
	// Member is whom drop and swap act on; With who takes the seat (swap).
	Member string `json:"member,omitempty"`
	With   string `json:"with,omitempty"`
	// TimedOut: nobody answered within checkpoint_timeout; the action is
	// checkpoint_on_timeout's.
	TimedOut bool `json:"timed_out,omitempty"`
}

// MaxText bounds a note or a reason (runes): it goes into every member's
// next request.
const MaxText = 4000

// Check refuses an answer the point does not take, with the reason.
func (a Answer) Check(p Point) error {
	if a.Action == Drop || a.Action == Swap {
		for _, k := range p.Kept {
			if k.Name == a.Member && (a.Action == Drop || !k.Swappable) {
				return errors.New(k.Why)
			}
		}
	}
	if !slices.Contains(p.Choices, a.Action) {
		return fmt.Errorf("%q is not a choice here (the choices: %s)", a.Action, joinActions(p.Choices))
	}
	if utf8.RuneCountInString(a.Text) > MaxText {
		return fmt.Errorf("the text is longer than %d characters", MaxText)
	}
	switch a.Action {
	case Note:
		if strings.TrimSpace(a.Text) == "" {
			return errors.New("a note needs its text")
		}
	case Drop, Swap:
		if !slices.Contains(p.Members, a.Member) {
			return fmt.Errorf("%s: no member %q (the members: %s)", a.Action, a.Member, strings.Join(p.Members, ", "))
		}
		if a.Action == Swap && strings.TrimSpace(a.With) == "" {
			return errors.New("swap names the member and the agent taking its seat: swap NAME AGENT")
		}
		if a.Action == Swap && slices.Contains(p.Members, a.With) {
			return fmt.Errorf("swap: %q already sits in this run", a.With)
		}
		if a.Action == Swap && !slices.Contains(p.Agents, a.With) {
			return fmt.Errorf("swap: %q cannot take a seat: no configured agent with a key and no seat has that name (the agents free: %s)", a.With, strings.Join(p.Agents, ", "))
		}
	}
	return nil
}

// ParseLine reads one line the host typed at p: empty continues (approves
// at a tool call); "stop", "drop NAME", "swap NAME AGENT", "approve",
// "deny REASON" and "note TEXT" are the actions; anything else is a note
// (at a tool call, a denial with the line as its reason). The answer is
// checked against p.
func ParseLine(line string, p Point) (Answer, error) {
	line = strings.TrimSpace(strings.TrimSuffix(line, "\n"))
	tool := p.Kind == KindTool
	word, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	var a Answer
	switch strings.ToLower(word) {
	case "":
		a.Action = Continue
		if tool {
			a.Action = Approve
		}
	case "continue":
		a.Action = Continue
		if tool {
			a.Action = Approve
		}
	case "stop":
		a.Action = Stop
	case "approve":
		a.Action = Approve
	case "deny":
		a = Answer{Action: Deny, Text: rest}
		if rest == "" {
			a.Text = "denied by the host"
		}
	case "drop":
		a = Answer{Action: Drop, Member: rest}
	case "swap":
		member, with, _ := strings.Cut(rest, " ")
		a = Answer{Action: Swap, Member: member, With: strings.TrimSpace(with)}
	case "note":
		a = Answer{Action: Note, Text: rest}
	default:
		a = Answer{Action: Note, Text: line}
		if tool {
			a = Answer{Action: Deny, Text: line}
		}
	}
	if err := a.Check(p); err != nil {
		return Answer{}, err
	}
	return a, nil
}

// Prompt is the line a door shows at p: the choices and how to type them.
func (p Point) Prompt() string {
	var parts []string
	for _, c := range p.Choices {
		switch c {
		case Continue:
			parts = append(parts, "Enter: continue")
		case Approve:
			parts = append(parts, "Enter or approve: run it")
		case Note:
			parts = append(parts, "a line: a note")
		case Drop:
			parts = append(parts, "drop NAME ("+strings.Join(p.Droppable(), ", ")+")")
		case Swap:
			parts = append(parts, "swap NAME AGENT ("+strings.Join(p.Agents, ", ")+")")
		case Deny:
			parts = append(parts, "deny REASON")
		case Stop:
			parts = append(parts, "stop")
		}
	}
	return strings.Join(parts, " · ")
}

// Droppable are the members the host may drop at p: those it keeps are
// not offered (a door's list of names to choose from).
func (p Point) Droppable() []string {
	return slices.DeleteFunc(slices.Clone(p.Members), func(m string) bool {
		return slices.ContainsFunc(p.Kept, func(k Kept) bool { return k.Name == m })
	})
}

// Swappable are the members whose seat another agent may take at p.
func (p Point) Swappable() []string {
	return slices.DeleteFunc(slices.Clone(p.Members), func(m string) bool {
		return slices.ContainsFunc(p.Kept, func(k Kept) bool { return k.Name == m && !k.Swappable })
	})
}

// Host answers a run's points. Answer blocks until the host answers or ctx
// ends; an error ends the run (a door that cannot ask says why).
type Host interface {
	Answer(ctx context.Context, p Point) (Answer, error)
}

// HostFunc makes a function a Host.
type HostFunc func(ctx context.Context, p Point) (Answer, error)

// Answer implements Host.
func (f HostFunc) Answer(ctx context.Context, p Point) (Answer, error) { return f(ctx, p) }

func joinActions(as []Action) string {
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = string(a)
	}
	return strings.Join(s, ", ")
}
