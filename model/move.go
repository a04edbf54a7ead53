package model

// Move is one message copy to move to another mailbox of the same
// account (or, with Expunge, to delete for good): a change made in
// mailsift, queued in the store until the source applies it.
type Move struct {
	// ID is the queue entry; the source reports results by it.
	ID int64
	// From is where the copy is on the source now.
	From Location
	// To is the destination mailbox ("" with Expunge).
	To string
	// ToRole is the destination's special use, for a source that must
	// create the mailbox first.
	ToRole Role
	// Expunge deletes the copy for good instead of moving it.
	Expunge bool
}

// MoveResult is what a source reports for one applied Move.
type MoveResult struct {
	ID int64
	// Key and UID locate the copy in the destination when the source
	// knows them (IMAP UIDPLUS COPYUID, a Maildir file's unique name);
	// both empty when it does not, and the next sync finds the copy.
	Key string
	UID uint32
	// Gone is true when the copy was no longer at From: nothing moved.
	Gone bool
}
