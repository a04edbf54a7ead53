package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"mailsift/model/contract"
)

// KindBucket is the undo stack's kind for a bucket move (the 1–4 keys).
const KindBucket = "bucket"

// BucketRequest moves threads to a bucket, as the 1–4 keys do, as one
// action on the undo stack.
type BucketRequest struct {
	// Label is what undo says it reverts ("move 1 thread to low
	// priority").
	Label   string
	Threads []int64
	// Category is the threads' new override: one of the four triage
	// categories or "quarantine"; "" clears it.
	Category string
	// Learned names, per thread, what the caller's learning recorded of
	// the move (opaque to the store). Undo hands it back in
	// UndoResult.Overrides so the caller can take the record back too,
	// also after a restart.
	Learned map[int64]string
}

// UndoneOverride is a bucket override an undo put back.
type UndoneOverride struct {
	Thread int64
	// Category is the override the thread has again ("" for none).
	Category string
	// Learned is BucketRequest.Learned of the undone move ("" when the
	// undone action was not a bucket move, or nothing was learned).
	Learned string
}

// SetBucket sets the threads' bucket override (see SetOverride) and
// records the action on the undo stack with each thread's previous
// override, so Undo puts that back (or none). An unknown thread is
// ErrNotFound and changes nothing.
func (s *Store) SetBucket(ctx context.Context, req BucketRequest) (ActionResult, error) {
	var res ActionResult
	if req.Category != "" && !validOverride(req.Category) {
		return res, fmt.Errorf("store: bucket of %d threads: unknown category %q (want one of %s, or quarantine)",
			len(req.Threads), req.Category, strings.Join(contract.Categories, ", "))
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		w := s.newWriter(ctx, tx)
		var undo undoRecord
		for _, id := range req.Threads {
			var n int
			var prev string
			if err := w.queryRow(`SELECT count(*), COALESCE((SELECT category FROM overrides WHERE thread_id = ?), '')
				FROM threads WHERE id = ?`, id, id).Scan(&n, &prev); err != nil {
				return err
			}
			if n == 0 {
				return fmt.Errorf("thread %d: %w", id, ErrNotFound)
			}
			if err := w.setOverride(id, req.Category); err != nil {
				return err
			}
			undo.Overrides = append(undo.Overrides, undoOverride{Thread: id, Prev: prev, Learned: req.Learned[id]})
			res.Threads++
		}
		if res.Threads == 0 {
			return nil
		}
		if err := w.finish(); err != nil {
			return err
		}
		id, err := w.logAction(KindBucket, req.Label, res.Threads, undo)
		res.ActionID = id
		return err
	})
	if err != nil {
		return res, fmt.Errorf("store: bucket of %d threads: %w", len(req.Threads), err)
	}
	return res, nil
}
