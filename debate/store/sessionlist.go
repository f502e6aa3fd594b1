package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/parleyhq/parley/debate"
)

// ListSQL is List's query on SQLite: every session with its sums, the
// most recently active first (BenchmarkSessionsList runs it in sqlite3 as
// the floor).
var ListSQL = listSQL("GROUP_CONCAT(DISTINCT %s)")

// listSQLPostgres is the same on Postgres, which joins with STRING_AGG.
var listSQLPostgres = listSQL("STRING_AGG(DISTINCT %s, ',')")

// listSQL is List's query with join, the aggregate joining distinct
// values by commas. Its eight columns are, in order: the ID, the mode,
// the parent, the title (or the topic, or the first line typed), the
// topic, the agents, the cost and the figures (packFigures). Why so few:
// modernc's driver takes the connection's mutex two or three times for
// every column of every row, a sixth of the command's CPU at sixteen
// columns; the integers and the times, packed in one text column, are
// read at once and parsed without a boxed value each. The cost stays a
// REAL column (text would round it to 15 digits).
//
// The first line typed is read only for a session with neither title
// nor topic (saved before titles), the one List names by it: a query per
// session otherwise. Sums use only what both databases have (no
// two-argument MAX, no MAX of a boolean).
func listSQL(join string) string {
	return `SELECT m.conversation_id, m.mode, m.parent_id,
			CASE WHEN COALESCE(m.title, '') <> '' THEN m.title WHEN COALESCE(m.topic, '') <> '' THEN m.topic ELSE
				COALESCE((SELECT u.response FROM conversation_log u WHERE u.conversation_id = m.conversation_id
					AND u.kind IN ('user', 'note') ORDER BY u.turn_number LIMIT 1), '') END,
			m.topic,
			COALESCE(` + fmt.Sprintf(join, `CASE WHEN l.kind IN ('reply', 'moderator', 'vote') THEN l.speaker_name END`) + `, ''),
			COALESCE(SUM(` + saneLogCost + `), 0),
			` + packFigures(
		`CASE WHEN COALESCE(m.title, '') = '' AND COALESCE(m.topic, '') = '' THEN 1 ELSE 0 END`,
		"m.fork_turn", "COUNT(l.id)",
		"COALESCE(SUM("+nonNegative("l.tokens_in")+"), 0)", "COALESCE(SUM("+nonNegative("l.tokens_out")+"), 0)",
		"COALESCE(MAX(CASE WHEN l.price_unknown <> 0 OR "+insaneLogCost+" = 1 THEN 1 ELSE 0 END), 0)",
		"COALESCE(MAX(l.usage_estimated), 0)",
		// the times last: the updated time is what is left, whatever it holds
		`REPLACE(COALESCE(CAST(m.start_time AS TEXT), ''), '|', '')`, `COALESCE(CAST(m.updated_time AS TEXT), '')`) + `
		FROM conversation_meta m LEFT JOIN conversation_log l ON l.conversation_id = m.conversation_id
		GROUP BY m.conversation_id
		ORDER BY m.updated_time DESC, m.conversation_id`
}

// listFigures is how many fields packFigures joins in List's query.
const listFigures = 9

// packFigures joins SQL expressions as text with '|' between them.
func packFigures(exprs ...string) string {
	for i, e := range exprs {
		exprs[i] = "CAST(" + e + " AS TEXT)"
	}
	return strings.Join(exprs, ` || '|' || `)
}

// errListFigures is a session list row whose figures are not List's.
var errListFigures = errors.New("a session's figures are not numbers")

// List returns every session, the most recently active first.
func (s *Store) List(ctx context.Context) ([]Summary, error) {
	q := ListSQL
	if s.pg != nil {
		q = listSQLPostgres
	}
	rows, err := s.r.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Summary
	for rows.Next() {
		var sum Summary
		var title, agents, packed string
		if err := rows.Scan(&sum.ID, &sum.Mode, &sum.Parent, &title, &sum.Topic, &agents, &sum.Cost, &packed); err != nil {
			return nil, err
		}
		untitled, err := sum.unpack(packed)
		if err != nil {
			return nil, fmt.Errorf("session %s: %w", sum.ID, err)
		}
		sum.setCost()
		if sum.LastActivity.IsZero() {
			sum.LastActivity = sum.Created
		}
		sum.Agents = []string{}
		if agents != "" {
			sum.Agents = strings.Split(agents, ",")
			slices.Sort(sum.Agents)
		}
		switch {
		case !untitled:
			sum.Title = title // the title, or the topic
		case strings.TrimSpace(title) != "":
			sum.Title = debate.TitleFor(sum.Mode, title) // saved before titles named the mode
		}
		out = append(out, sum)
	}
	return out, rows.Err()
}

// unpack reads listSQL's packed figures into s; untitled says the title
// column holds the first line typed.
func (s *Summary) unpack(packed string) (untitled bool, err error) {
	var f [listFigures]string
	for i := range len(f) - 1 {
		var ok bool
		if f[i], packed, ok = strings.Cut(packed, "|"); !ok {
			return false, errListFigures
		}
	}
	f[len(f)-1] = packed
	var n [7]int
	for i := range n {
		if n[i], err = strconv.Atoi(f[i]); err != nil {
			return false, errListFigures
		}
	}
	untitled, s.ForkAt, s.Turns, s.TokensIn, s.TokensOut = n[0] != 0, n[1], n[2], n[3], n[4]
	s.PriceUnknown, s.Estimated = n[5] != 0, n[6] != 0
	s.Created, s.LastActivity = parseTime(f[7]), parseTime(f[8])
	return untitled, nil
}
