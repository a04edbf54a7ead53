// Package mailsrc holds the interface every mail source implements (Source)
// and the sink it writes to (Sink, implemented by the store). The sources
// themselves live in its subpackages (imap, maildir, mbox, demo), chosen by
// the account URL's scheme in package mirror; the MIME parser they share is
// mailsrc/rfc822.
package mailsrc

import (
	"context"
	"errors"
	"fmt"

	"mailsift/model"
)

// ErrReadOnly is returned by sources that cannot write flags back (mbox, demo).
var ErrReadOnly = errors.New("source is read-only")

// Progress reports how far a sync has got.
type Progress struct {
	Account string
	Mailbox string
	// Phase is one of "list", "flags", "expunge", "messages" (whole
	// messages), "envelopes", "bodies", "done".
	Phase string
	Done  int
	Total int
}

// Source is one account's mail, chosen by the account URL's scheme.
type Source interface {
	// Sync mirrors the source into sink: new mail, flag changes and
	// expunges since the last sync (or everything, the first time).
	Sync(ctx context.Context, sink Sink, progress func(Progress)) error
	// PushFlags writes flag changes made in mailsift back to the source.
	PushFlags(ctx context.Context, changes []model.FlagChange) error
	// Watch blocks until ctx ends, calling changed whenever the source
	// reports new mail or flag changes (IMAP IDLE, directory polling).
	Watch(ctx context.Context, changed func()) error
	// Close releases connections.
	Close() error
}

// Sink is where a Source writes what it finds: the local store.
type Sink interface {
	// MailboxState returns the stored state of a mailbox (zero if unknown).
	MailboxState(ctx context.Context, account, mailbox string) (model.MailboxState, error)
	// SetMailbox records a mailbox, its role and its state.
	SetMailbox(ctx context.Context, mb model.Mailbox) error
	// ResetMailbox forgets every location in a mailbox (UIDVALIDITY changed).
	ResetMailbox(ctx context.Context, account, mailbox string) error
	// PutMessages inserts or updates messages at their locations. A
	// message with HasBody false stores the envelope; a later put with
	// HasBody true fills the body in.
	PutMessages(ctx context.Context, msgs []*model.Message) error
	// SetFlags records flags reported by the source for existing locations.
	SetFlags(ctx context.Context, flags map[model.Location]model.Flags) error
	// RemoveLocations deletes locations that left the source (expunge).
	// A sink that is also an OrphanCollector keeps a message left without
	// a location until CollectOrphans, which sources call at the end of a
	// successful sync (a moved message is found again meanwhile).
	RemoveLocations(ctx context.Context, locs []model.Location) error
	// Locations lists the stored locations of a mailbox with their flags.
	Locations(ctx context.Context, account, mailbox string) (map[model.Location]model.Flags, error)
	// MissingBodies lists up to limit locations of a mailbox whose body
	// has not been fetched yet, newest first.
	MissingBodies(ctx context.Context, account, mailbox string, limit int) ([]model.Location, error)
}

// MailboxForgetter is implemented by sinks that can forget a whole
// mailbox (the store does). A source that enumerates its mailboxes
// (IMAP LIST, Maildir folders, mbox files) checks for it with a type
// assertion and, after a complete enumeration, forgets every stored
// mailbox of its account that no longer exists; other sinks keep them.
type MailboxForgetter interface {
	// Mailboxes lists the stored mailboxes of an account.
	Mailboxes(ctx context.Context, account string) ([]model.Mailbox, error)
	// ForgetMailbox forgets a mailbox gone from the source: its
	// locations, queued flag changes and the mailbox itself. Messages
	// still stored at another location stay.
	ForgetMailbox(ctx context.Context, account, mailbox string) error
}

// RawReader is implemented by sources that keep every message's raw
// bytes themselves (a Maildir's files), so the store need not copy them:
// ReadRaw reads the message at loc.
type RawReader interface {
	ReadRaw(ctx context.Context, loc model.Location) ([]byte, error)
}

// BodyLinker is implemented by sinks that can point envelopes at copies
// of the same message already stored with their body (same Message-ID and
// size), so that a source need not fetch those bodies again.
type BodyLinker interface {
	// LinkStoredBodies links the mailbox's envelopes to stored copies and
	// reports how many it linked and how many have a copy that is an
	// envelope too (whose body may be on its way into the sink).
	LinkStoredBodies(ctx context.Context, account, mailbox string) (linked, waiting int, err error)
}

// OrphanCollector is implemented by sinks that keep a message whose last
// location went (expunged, its mailbox reset or forgotten) until the end
// of the sync, so that a message moved between folders stays the same
// message. Sources call CollectOrphans after a successful sync.
type OrphanCollector interface {
	CollectOrphans(ctx context.Context) error
}

// CollectOrphans asks sink to delete the messages left without a location
// by the sync that just ended, if the sink keeps them (OrphanCollector).
func CollectOrphans(ctx context.Context, sink Sink) error {
	if c, ok := sink.(OrphanCollector); ok {
		return c.CollectOrphans(ctx)
	}
	return nil
}

// ForgetGone forgets, in sink, every stored mailbox of account for which
// exists returns false, when sink is a MailboxForgetter (else it does
// nothing). Callers pass exists built from a complete, successful
// enumeration only (n is the number of mailboxes it found): a failed or
// partial listing must not make mailboxes disappear, and an enumeration
// that found nothing at all (an unmounted directory, a server answering
// LIST with nothing) forgets nothing. It returns the names forgotten.
func ForgetGone(ctx context.Context, sink Sink, account string, n int, exists func(name string) bool) ([]string, error) {
	f, ok := sink.(MailboxForgetter)
	if !ok || n == 0 {
		return nil, nil
	}
	stored, err := f.Mailboxes(ctx, account)
	if err != nil {
		return nil, fmt.Errorf("mailsrc: stored mailboxes of %q: %w", account, err)
	}
	var gone []string
	for _, mb := range stored {
		if exists(mb.Name) {
			continue
		}
		if err := f.ForgetMailbox(ctx, account, mb.Name); err != nil {
			return gone, fmt.Errorf("mailsrc: forget mailbox %q of %q: %w", mb.Name, account, err)
		}
		gone = append(gone, mb.Name)
	}
	return gone, nil
}
