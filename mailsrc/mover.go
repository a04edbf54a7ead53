package mailsrc

import (
	"context"

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
