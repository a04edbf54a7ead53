package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"mailsift/mailsrc"
	"mailsift/mailsrc/rfc822"
	"mailsift/model"
	"mailsift/store"
)

// Mail is the store as surfaces read and change it, with two additions:
// raw bytes of messages whose source keeps them (a Maildir) come from the
// source, and marking a thread read or unread pokes the sync loops so the
// change reaches the server at once instead of at the next sync pass.
type Mail struct {
	*store.Store
	push func()
	// raw holds the accounts whose source keeps the raw messages itself:
	// the store has no copy of them.
	raw map[string]mailsrc.RawReader
	// app records bucket overrides as corrections (nil: not recorded).
	app *App
}

// Mail returns the store as a surface without a session (no sync loops,
// no source) reads and changes it: bucket moves are learned from and
// undoable as a Session's Mail makes them.
func (a *App) Mail() *Mail { return &Mail{Store: a.st, app: a} }

// RawMessage returns a message's raw bytes from the store or, for a
// source that keeps them (a Maildir), from the source.
func (m *Mail) RawMessage(ctx context.Context, messageID string) ([]byte, error) {
	raw, err := m.Store.RawMessage(ctx, messageID)
	if err == nil || !errors.Is(err, store.ErrNotFound) || len(m.raw) == 0 {
		return raw, err
	}
	locs, lerr := m.Store.MessageLocations(ctx, messageID)
	if lerr != nil {
		return nil, lerr
	}
	for _, l := range locs {
		if r := m.raw[l.Account]; r != nil {
			b, rerr := r.ReadRaw(ctx, l)
			if rerr == nil {
				rerr = sameMessage(b, messageID, l)
			}
			if rerr == nil {
				return b, nil
			}
			err = rerr
		}
	}
	return nil, err
}

// MarkThreadSeen sets the flag locally (queued for the server) and pokes
// the sync loops.
func (m *Mail) MarkThreadSeen(ctx context.Context, threadID int64, seen bool) error {
	if err := m.Store.MarkThreadSeen(ctx, threadID, seen); err != nil {
		return err
	}
	if m.push != nil {
		m.push()
	}
	return nil
}

// sameMessage checks that bytes read from a source are the message asked
// for: a server that reset its UIDs (UIDVALIDITY) since the last sync may
// hold another message under the stored UID. A message without a
// Message-ID of its own (the store synthesised one) cannot be checked.
func sameMessage(raw []byte, messageID string, l model.Location) error {
	m, err := rfc822.ParseHeader(raw)
	if err != nil || m.MessageID == messageID || strings.HasSuffix(m.MessageID, rfc822.SynthesisedIDSuffix) {
		return nil
	}
	return fmt.Errorf("%s/%s: the message there is now <%s>, not <%s> (the folder changed since the last sync; sync and try again)",
		l.Account, l.Mailbox, m.MessageID, messageID)
}
