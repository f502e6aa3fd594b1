package bench

import (
	"sort"
)

// MemberFlips are one member's answer changes into one round.
type MemberFlips struct {
	Agent        string `json:"agent"`
	Round        int    `json:"round"` // the round the new answer came in
	RightToWrong int    `json:"right_to_wrong"`
	WrongToRight int    `json:"wrong_to_right"`
	WrongToWrong int    `json:"wrong_to_wrong"`
	Conformity   int    `json:"conformity"` // flips flagged as having no new argument
}

// Flips sums the answer changes of every member and round.
type Flips struct {
	RightToWrong int           `json:"right_to_wrong"`
	WrongToRight int           `json:"wrong_to_right"`
	WrongToWrong int           `json:"wrong_to_wrong"`
	Conformity   int           `json:"conformity"`
	ByMember     []MemberFlips `json:"by_member_round"`
	// ByRound sums ByMember per round.
	ByRound []MemberFlips `json:"by_round"`
}

// flipCounts counts vote changes per member and round.
type flipCounts struct {
	byKey       map[[2]int]*MemberFlips // by member index and round
	memberIndex map[string]int
}

// add counts a question's vote changes against its gold answer.
func (fc flipCounts) add(r Result) {
	for k := 1; k < len(r.Rounds); k++ {
		for i, now := range r.Rounds[k] {
			if i >= len(r.Rounds[k-1]) {
				continue
			}
			before := r.Rounds[k-1][i]
			if !before.Valid || !now.Valid || before.Answer == now.Answer {
				continue
			}
			key := [2]int{fc.memberIndex[now.Agent], k + 1}
			f := fc.byKey[key]
			if f == nil {
				f = &MemberFlips{Agent: now.Agent, Round: k + 1}
				fc.byKey[key] = f
			}
			switch {
			case before.Answer == r.Gold:
				f.RightToWrong++
			case now.Answer == r.Gold:
				f.WrongToRight++
			default:
				f.WrongToWrong++
			}
			for _, fl := range r.Flips {
				if fl.Agent == now.Agent && fl.ToRound == k+1 && fl.Conformity {
					f.Conformity++
				}
			}
		}
	}
}

// summary lists the counts by member (round, then council order) and sums
// them by round and in all.
func (fc flipCounts) summary() Flips {
	keys := make([][2]int, 0, len(fc.byKey))
	for k := range fc.byKey {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][1] != keys[j][1] {
			return keys[i][1] < keys[j][1]
		}
		return keys[i][0] < keys[j][0]
	})
	out := Flips{ByMember: []MemberFlips{}, ByRound: []MemberFlips{}}
	for _, k := range keys {
		f := fc.byKey[k]
		out.ByMember = append(out.ByMember, *f)
		out.RightToWrong += f.RightToWrong
		out.WrongToRight += f.WrongToRight
		out.WrongToWrong += f.WrongToWrong
		out.Conformity += f.Conformity
		if n := len(out.ByRound); n == 0 || out.ByRound[n-1].Round != f.Round {
			out.ByRound = append(out.ByRound, MemberFlips{Round: f.Round})
		}
		r := &out.ByRound[len(out.ByRound)-1]
		r.RightToWrong, r.WrongToRight, r.WrongToWrong, r.Conformity = r.RightToWrong+f.RightToWrong, r.WrongToRight+f.WrongToRight, r.WrongToWrong+f.WrongToWrong, r.Conformity+f.Conformity
	}
	return out
}
