package mailsrc

import (
	"context"
	"fmt"

	"mailsift/model"
)

// Mover is implemented by sources that can move message copies between
// their mailboxes and delete them for good (IMAP, Maildir): the inbox
// actions made in mailsift, queued in the store until applied.
type Mover interface {
	// MoveMessages applies moves and reports one result per move it
	// applied, by Move.ID. On error the moves not reported stay queued
	// and are tried again; applying a reported one again must not happen
	// (the caller acknowledges results even when err is not nil).
	MoveMessages(ctx context.Context, moves []model.Move) ([]model.MoveResult, error)
}

// RefusedError is returned by MoveMessages when the server refused some
// moves for good (a tagged NO: a destination it will not create, a
// mailbox it will not write): retrying them would fail the same way, so
// the caller gives them up and puts the copies back where the server
// still has them.
type RefusedError struct {
	// IDs are the refused moves.
	IDs []int64
	Err error
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("the server refused %d moves: %v", len(e.IDs), e.Err)
}

func (e *RefusedError) Unwrap() error { return e.Err }
