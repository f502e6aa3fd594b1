package store

import (
	"context"
	"errors"
	"fmt"
)

// CopyReport is what Copy did.
type CopyReport struct {
	Copied  int `json:"copied"`  // sessions written to the destination
	Skipped int `json:"skipped"` // sessions it already had (a copy run before)
	Turns   int `json:"turns"`   // turns written
}

// Copy writes every session of src that dst does not have into dst (parley
// sessions copy: a user's SQLite history onto a team's Postgres): each
// session whole in one transaction, with its ID, turns, times and owner,
// as a resume loads it (a turn left streaming arrives settled). A session
// dst already has is left as it is, so a copy run again, or after an
// interruption, writes only what is missing.
func Copy(ctx context.Context, src, dst *Store) (CopyReport, error) {
	var rep CopyReport
	list, err := src.List(ctx)
	if err != nil {
		return rep, err
	}
	owners, err := src.Owners(ctx)
	if err != nil {
		return rep, err
	}
	for _, sum := range list {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		info, entries, err := src.Load(ctx, sum.ID)
		if err != nil {
			return rep, fmt.Errorf("session %s: %w", sum.ID, err)
		}
		if _, err := dst.Import(ctx, info, entries, false); errors.Is(err, ErrExists) {
			rep.Skipped++
			continue
		} else if err != nil {
			return rep, fmt.Errorf("session %s: %w", sum.ID, err)
		}
		if user, ok := owners[sum.ID]; ok {
			if err := dst.SetOwner(ctx, sum.ID, user, false); err != nil {
				return rep, fmt.Errorf("session %s: %w", sum.ID, err)
			}
		}
		rep.Copied++
		rep.Turns += len(entries)
	}
	return rep, nil
}
