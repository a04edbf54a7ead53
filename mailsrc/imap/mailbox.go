package imap

import (
	"context"
	"fmt"

	"github.com/emersion/go-imap/v2"

	"mailsift/mailsrc"
	"mailsift/mailsrc/internal/pipeline"
	"mailsift/model"
)

// mailboxSync is the sync of one mailbox in the new-mail phase: it
// brings flags, expunges and new messages up to date and stores the
// mailbox's new state last, so an interrupted run is redone. run calls
// its steps in order; each step leaves what the next needs in the
// struct.
type mailboxSync struct {
	s        *Source
	c        *conn
	sink     mailsrc.Sink
	w        *pipeline.Writer // the phase's writer, shared by all mailboxes
	progress func(mailsrc.Progress)
	mb       mailboxInfo
	stored   model.MailboxState // as the sink has it (zero after a reset)
	status   *imap.StatusData   // STATUS before the sync; nil if not asked

	sel     *imap.SelectData               // the answer to SELECT
	known   map[imap.UID]model.Flags       // stored locations and their flags
	server  []imap.UID                     // UIDs on the server, ascending
	changes map[model.Location]model.Flags // flags changed on the server
}

// run syncs the mailbox.
func (j *mailboxSync) run(ctx context.Context) error {
	if j.unchanged() {
		j.s.log.Debug("mailbox unchanged", "mailbox", j.mb.name)
		return nil
	}
	if err := j.selectMailbox(); err != nil {
		return err
	}
	if err := j.checkUIDValidity(ctx); err != nil {
		return err
	}
	if err := j.loadKnown(ctx); err != nil {
		return err
	}
	j.progress(mailsrc.Progress{Account: j.s.account, Mailbox: j.mb.name, Phase: "flags"})
	if err := j.scanServer(); err != nil {
		return err
	}
	fresh, gone := j.compare()
	if err := j.storeChanges(ctx, gone); err != nil {
		return err
	}
	if err := j.s.fetchNew(j.c, j.w, j.mb, fresh); err != nil {
		return err
	}
	if err := j.saveState(ctx); err != nil {
		return err
	}
	j.s.log.Debug("mailbox synced", "mailbox", j.mb.name, "new", len(fresh), "expunged", len(gone), "flags", len(j.changes))
	return nil
}

// unchanged reports whether STATUS shows that nothing changed since the
// stored state (same UIDVALIDITY, UIDNEXT and HIGHESTMODSEQ).
func (j *mailboxSync) unchanged() bool {
	st, stored := j.status, j.stored
	return st != nil && stored.UIDValidity != 0 && st.UIDValidity == stored.UIDValidity &&
		uint32(st.UIDNext) == stored.UIDNext && st.HighestModSeq != 0 && st.HighestModSeq == stored.HighestModSeq
}

// selectMailbox selects the mailbox (read-write).
func (j *mailboxSync) selectMailbox() error {
	sel, err := j.s.selectMailbox(j.c, j.mb.name, false)
	if err != nil {
		return err
	}
	j.sel = sel
	return nil
}

// loadKnown reads the stored locations of the mailbox and their flags.
func (j *mailboxSync) loadKnown(ctx context.Context) error {
	stored, err := j.sink.Locations(ctx, j.s.account, j.mb.name)
	if err != nil {
		return fmt.Errorf("imap: stored locations of %q: %w", j.mb.name, err)
	}
	j.known = make(map[imap.UID]model.Flags, len(stored))
	for l, f := range stored {
		j.known[imap.UID(l.UID)] = f
	}
	return nil
}

// saveState stores the mailbox's new state through the writer, once the
// new messages are stored (never if storing them failed).
func (j *mailboxSync) saveState(ctx context.Context) error {
	name, role := j.mb.name, j.mb.role
	state := model.MailboxState{UIDValidity: j.sel.UIDValidity, UIDNext: uint32(j.sel.UIDNext), HighestModSeq: j.sel.HighestModSeq}
	return j.w.Do(func() error {
		if err := j.sink.SetMailbox(ctx, model.Mailbox{Account: j.s.account, Name: name, Role: role, State: state}); err != nil {
			return fmt.Errorf("imap: record state of %q: %w", name, err)
		}
		return nil
	})
}
