package mirror

import (
	"context"
	"errors"
	"fmt"

	"mailsift/mailsrc"
	"mailsift/model"
	"mailsift/store"
)

// Replay hands everything the store queued for account to src, in the
// order that keeps each change right: flag changes first (they name the
// copies where the source has them now), then moves and permanent
// deletes, then the flag changes that waited for those moves (made on a
// moved copy before the source had placed it). Each applied change is
// acknowledged at once, so a change is applied once even when a later
// one fails; what failed stays queued for the next attempt.
func Replay(ctx context.Context, st *store.Store, account string, src mailsrc.Source) error {
	if err := PushFlags(ctx, st, account, src); err != nil {
		return err
	}
	moved, err := PushMoves(ctx, st, account, src)
	if err != nil {
		return err
	}
	if moved == 0 {
		return nil
	}
	return PushFlags(ctx, st, account, src)
}

// movesPerPass bounds the moves handed to a source at once.
const movesPerPass = 2000

// PushMoves hands the store's queued moves for account to src and
// acknowledges what it applied, returning how many. A source that cannot
// move (mbox, demo) keeps the moves in the store only: each copy keeps
// its key in its new mailbox.
func PushMoves(ctx context.Context, st *store.Store, account string, src mailsrc.Source) (int, error) {
	mover, canMove := src.(mailsrc.Mover)
	total := 0
	for {
		pending, err := st.TakeMoves(ctx, account, movesPerPass)
		if err != nil {
			return total, fmt.Errorf("mirror: read queued moves: %w", err)
		}
		if len(pending) == 0 {
			return total, nil
		}
		var results []model.MoveResult
		var merr error
		if canMove {
			results, merr = mover.MoveMessages(ctx, pending)
		} else {
			for _, m := range pending {
				results = append(results, model.MoveResult{ID: m.ID, Key: m.From.Key, UID: m.From.UID})
			}
		}
		if err := st.AckMoves(ctx, results); err != nil {
			return total, fmt.Errorf("mirror: acknowledge moves: %w", err)
		}
		total += len(results)
		var refused *mailsrc.RefusedError
		if errors.As(merr, &refused) {
			// Retrying cannot help: the copies go back where the server
			// still has them, and the sync is not held up.
			if err := st.RevertMoves(ctx, refused.IDs); err != nil {
				return total, fmt.Errorf("mirror: give up refused moves: %w", err)
			}
			return total, fmt.Errorf("mirror: %w; those messages are back where they were", refused)
		}
		if merr != nil {
			return total, fmt.Errorf("mirror: apply %d queued moves: %w", len(pending), merr)
		}
		if len(results) == 0 {
			return total, fmt.Errorf("mirror: the source applied none of %d queued moves", len(pending))
		}
		// Again: the acknowledgements may have freed moves chained after
		// these (an undo made while they were on their way).
	}
}
