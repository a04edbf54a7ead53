package imap

import (
	"context"
	"fmt"

	"mailsift/model"
)

// checkUIDValidity forgets every stored location of the mailbox when
// its UIDVALIDITY changed (the stored UIDs name other messages now), and
// on a first sync records UIDVALIDITY before the first location, so
// that an interrupted first sync resumes only against the same UIDs.
func (j *mailboxSync) checkUIDValidity(ctx context.Context) error {
	name := j.mb.name
	if j.stored.UIDValidity != 0 && j.stored.UIDValidity != j.sel.UIDValidity {
		j.s.log.Info("UIDVALIDITY changed, resyncing mailbox", "mailbox", name, "old", j.stored.UIDValidity, "new", j.sel.UIDValidity)
		if err := j.sink.ResetMailbox(ctx, j.s.account, name); err != nil {
			return fmt.Errorf("imap: reset %q: %w", name, err)
		}
		j.stored = model.MailboxState{}
	}
	if j.stored.UIDValidity == 0 {
		first := model.MailboxState{UIDValidity: j.sel.UIDValidity}
		if err := j.sink.SetMailbox(ctx, model.Mailbox{Account: j.s.account, Name: name, Role: j.mb.role, State: first}); err != nil {
			return fmt.Errorf("imap: record mailbox %q: %w", name, err)
		}
	}
	return nil
}
