package talk

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/figures"
)

func goodSaved() savedTalk {
	return savedTalk{Topic: "Is remote work here to stay?", Rounds: 3, Start: 1, Turns: 4, Cost: 0.01, Seats: []string{"chatgpt", "gemini", "mc"}}
}

// A saved talk read back from the database is refused, saying why, when
// it does not fit its point or the session.
func TestSavedTalkRefusesWhatDoesNotFit(t *testing.T) {
	t.Parallel()
	at := checkpoint.Point{Kind: checkpoint.KindSummary, Round: 1, Of: 3}
	if err := goodSaved().check(at, 4); err != nil {
		t.Fatalf("a good saved talk refused: %v", err)
	}
	for _, c := range []struct {
		change func(*savedTalk, *checkpoint.Point)
		want   string
	}{
		{func(s *savedTalk, _ *checkpoint.Point) { s.Topic = "" }, "no topic"},
		{func(s *savedTalk, _ *checkpoint.Point) { s.Rounds = config.MaxRounds + 1 }, "rounds"},
		{func(_ *savedTalk, p *checkpoint.Point) { p.Round = 3 }, "does not match its point"},
		{func(_ *savedTalk, p *checkpoint.Point) { p.Kind = checkpoint.KindRound }, "does not match its point"},
		{func(s *savedTalk, _ *checkpoint.Point) { s.Start = 5 }, "starts at turn 5 of a session of 4"},
		{func(s *savedTalk, _ *checkpoint.Point) { s.Turns = 9 }, "counts 9 turns"},
		{func(s *savedTalk, _ *checkpoint.Point) { s.Cost = math.Inf(1) }, "not an amount"},
		{func(s *savedTalk, _ *checkpoint.Point) { s.Cost = -1 }, "not an amount"},
		{func(s *savedTalk, _ *checkpoint.Point) { s.Cost = 1e308 }, "not an amount"},
		{func(s *savedTalk, _ *checkpoint.Point) { s.Cost = math.NaN() }, "not an amount"},
		{func(s *savedTalk, _ *checkpoint.Point) { s.Usage.OutputTokens = -1 }, "counts tokens"},
		{func(s *savedTalk, _ *checkpoint.Point) { s.Usage.InputTokens = 1 << 40 }, "counts tokens"},
		{func(s *savedTalk, _ *checkpoint.Point) { s.Seats = []string{"chatgpt", "chatgpt", "mc"} }, "three different agents"},
		{func(s *savedTalk, _ *checkpoint.Point) { s.Seats = s.Seats[:2] }, "three different agents"},
		{func(s *savedTalk, _ *checkpoint.Point) { s.Dropped = []string{"mc"} }, "not a guest"},
		{func(s *savedTalk, _ *checkpoint.Point) { s.Dropped = []string{"chatgpt", "gemini"} }, "both guests"},
	} {
		s, p := goodSaved(), at
		c.change(&s, &p)
		if err := s.check(p, 4); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v at %+v: %v, want %q", s, p, err, c.want)
		}
	}
}

// FuzzSavedTalk: whatever a database holds as a talk's resume state, it is
// refused or it fits: rounds in range, the point inside them, the counts
// within the session, three different seats, no MC dropped.
func FuzzSavedTalk(f *testing.F) {
	good, _ := json.Marshal(goodSaved())
	f.Add(string(good), 1, 4)
	f.Add(`{"topic":"x","rounds":2,"start":1,"turns":1,"cost_usd":1e308,"seats":["a","b","c"],"dropped":["c"]}`, 1, 1)
	f.Add(`{"rounds":-1}`, 0, 0)
	f.Fuzz(func(t *testing.T, raw string, round, turns int) {
		var s savedTalk
		if json.Unmarshal([]byte(raw), &s) != nil {
			return
		}
		p := checkpoint.Point{Kind: checkpoint.KindSummary, Round: round}
		if s.check(p, turns) != nil {
			return
		}
		if s.Rounds < 2 || s.Rounds > config.MaxRounds || round < 1 || round >= s.Rounds || s.Start < 1 || s.Start > turns ||
			s.Turns < 0 || s.Turns > turns || math.IsNaN(s.Cost) || math.IsInf(s.Cost, 0) || s.Cost < 0 || s.Cost > figures.MaxMoneyUSD || !usageInBounds(s.Usage) || len(s.Seats) != 3 || len(s.Dropped) > 1 {
			t.Fatalf("accepted %+v at round %d of a session of %d", s, round, turns)
		}
		for _, d := range s.Dropped {
			if d == s.Seats[2] {
				t.Fatalf("accepted the MC dropped: %+v", s)
			}
		}
	})
}
