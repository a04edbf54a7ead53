package imap

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/emersion/go-imap/v2"

	"mailsift/mailsrc"
	"mailsift/model"
)

// Sync mirrors the account into sink: for every mailbox flag changes,
// expunges and new messages first (newest first: whole while they arrive
// fast enough, see Config.WholeBudget, the rest as envelopes), then the
// missing bodies, newest first. A sync interrupted at any point can
// simply be run again.
func (s *Source) Sync(ctx context.Context, sink mailsrc.Sink, progress func(mailsrc.Progress)) error {
	progress = mailsrc.SerialProgress(progress)
	if err := s.withConn(ctx, func(c *conn) error { return s.sync(ctx, c, sink, progress) }); err != nil {
		return err
	}
	// Watch compares INBOX on the server with this state when it starts,
	// so mail that arrives between the end of this sync and the start of
	// IDLE (which reports only what happens after it) is not missed.
	if st, err := sink.MailboxState(ctx, s.account, "INBOX"); err == nil {
		s.setSyncedInbox(st)
	}
	return nil
}

// sync runs the phases of a sync on connection c: list, new mail for
// every mailbox, then the missing bodies, then what is gone. A mailbox
// the server refuses is skipped and its error returned at the end.
func (s *Source) sync(ctx context.Context, c *conn, sink mailsrc.Sink, progress func(mailsrc.Progress)) error {
	progress(mailsrc.Progress{Account: s.account, Phase: "list"})
	boxes, listed, err := s.listMailboxes(c)
	if err != nil {
		return err
	}
	if err := s.unselect(c); err != nil {
		return err
	}
	statuses := s.statuses(c, boxes)
	synced, errs, err := s.syncNewMail(ctx, c, sink, boxes, statuses, progress)
	if err != nil {
		return err
	}
	bodyErrs, err := s.syncBodies(ctx, c, sink, synced, progress)
	if err != nil {
		return err
	}
	errs = append(errs, bodyErrs...)
	// Mailboxes gone from the server are forgotten last: a mailbox
	// renamed on the server has then been synced under its new name, so
	// its messages (deduplicated by Message-ID and content) keep their
	// threads and triage results.
	if err := s.forgetGone(ctx, sink, listed); err != nil {
		return err
	}
	// Messages that lost their last location in this sync and were not
	// found in another folder (a move) go now; also when a folder failed
	// (a message moved into it is then fetched again as new next time),
	// or a folder that always fails would keep expunged mail forever.
	if err := mailsrc.CollectOrphans(ctx, sink); err != nil {
		return fmt.Errorf("imap: %w", err)
	}
	progress(mailsrc.Progress{Account: s.account, Phase: "done"})
	return errors.Join(errs...)
}

// syncNewMail brings flags, expunges and new messages of every mailbox
// up to date and returns the mailboxes it synced and the server's errors
// for those it skipped. One writer stores for the whole account while
// the connection fetches, across mailboxes, so the pipeline does not
// drain at every folder; a mailbox's state is saved through the writer,
// after its new messages.
func (s *Source) syncNewMail(ctx context.Context, c *conn, sink mailsrc.Sink, boxes []mailboxInfo, statuses map[string]*imap.StatusData, progress func(mailsrc.Progress)) (synced []mailboxInfo, errs []error, err error) {
	w := s.startWriter(ctx, sink, "new mail", progress)
	defer w.Stop()
	for _, mb := range boxes {
		stored, err := sink.MailboxState(ctx, s.account, mb.name)
		if err != nil {
			return nil, nil, fmt.Errorf("imap: state of %q: %w", mb.name, err)
		}
		if err := sink.SetMailbox(ctx, model.Mailbox{Account: s.account, Name: mb.name, Role: mb.role, State: stored}); err != nil {
			return nil, nil, fmt.Errorf("imap: record mailbox %q: %w", mb.name, err)
		}
		job := &mailboxSync{s: s, c: c, sink: sink, w: w, progress: progress, mb: mb, stored: stored, status: statuses[mb.name]}
		if err := job.run(ctx); err != nil {
			if isServerError(err) && ctx.Err() == nil {
				s.log.Warn("mailbox sync failed", "mailbox", mb.name, "err", err)
				errs = append(errs, err)
				continue
			}
			return nil, nil, err
		}
		synced = append(synced, mb)
	}
	if err := w.Sync(); err != nil {
		return nil, nil, err
	}
	return synced, errs, nil
}

// syncBodies fetches the missing bodies of boxes and returns the
// server's errors for the mailboxes it skipped. One writer stores for
// the whole account.
func (s *Source) syncBodies(ctx context.Context, c *conn, sink mailsrc.Sink, boxes []mailboxInfo, progress func(mailsrc.Progress)) (errs []error, err error) {
	w := s.startWriter(ctx, sink, "bodies", progress)
	defer w.Stop()
	for _, mb := range boxes {
		if err := s.fetchBodies(ctx, c, sink, w, mb, progress); err != nil {
			if isServerError(err) && ctx.Err() == nil {
				s.log.Warn("body fetch failed", "mailbox", mb.name, "err", err)
				errs = append(errs, err)
				continue
			}
			return nil, err
		}
	}
	if err := w.Sync(); err != nil {
		return nil, err
	}
	return errs, nil
}

// forgetGone forgets the stored mailboxes of the account that the
// successful LIST did not return at all (deleted or renamed on the
// server). A name LIST returned in any form, \Noselect or \NonExistent
// included, is kept.
func (s *Source) forgetGone(ctx context.Context, sink mailsrc.Sink, listed map[string]bool) error {
	gone, err := mailsrc.ForgetGone(ctx, sink, s.account, len(listed), func(name string) bool {
		if strings.EqualFold(name, "INBOX") {
			name = "INBOX" // INBOX is case-insensitive (RFC 3501 5.1)
		}
		return listed[name]
	})
	for _, name := range gone {
		s.log.Info("mailbox no longer on server, forgotten", "mailbox", name)
	}
	if err != nil {
		return fmt.Errorf("imap: %w", err)
	}
	return nil
}
