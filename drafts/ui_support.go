package drafts

import (
	"context"
	"errors"
	"fmt"
	"time"

	"mailsift/store"
)

// This file holds the small additions the TUI's draft review and confirm
// screens need on top of the engine.

// ResumeOrNewDraft returns the most recently updated open draft of the
// thread (resumed = true), so pressing r again continues an unsent reply,
// or drafts a new one. accountName "" picks the account the thread's
// latest message arrived in when it is a configured sending account, else
// the default account.
func (e *Engine) ResumeOrNewDraft(ctx context.Context, threadID int64, replyAll bool, accountName string) (d *Draft, resumed bool, err error) {
	open, err := e.st.Drafts(ctx, threadID, store.DraftOpen)
	if err != nil {
		return nil, false, fmt.Errorf("drafts: %w", err)
	}
	if len(open) > 0 {
		d := open[0]
		return &d, true, nil
	}
	if accountName == "" {
		accountName = e.threadAccount(ctx, threadID)
	}
	d, err = e.NewDraft(ctx, threadID, replyAll, accountName)
	return d, false, err
}

// threadAccount names the configured account the thread's latest message
// is in ("" when none matches).
func (e *Engine) threadAccount(ctx context.Context, threadID int64) string {
	t, err := e.st.Thread(ctx, threadID)
	if err != nil || len(t.Messages) == 0 {
		return ""
	}
	name := t.Messages[len(t.Messages)-1].Loc.Account
	for _, a := range e.opt.Accounts {
		if a.Name == name {
			return name
		}
	}
	return ""
}

// SetReplyAll recomputes the draft's To and Cc for a reply (all false) or
// a reply to all, keeping Bcc, and saves it (risk flags recomputed).
func (e *Engine) SetReplyAll(ctx context.Context, d *Draft, all bool) error {
	t, err := e.st.Thread(ctx, d.ThreadID)
	if err != nil {
		return fmt.Errorf("drafts: recipients of thread %d: %w", d.ThreadID, err)
	}
	r := ComputeRecipients(t, e.opt.Principal, all)
	d.To, d.Cc, d.ReplyAll = r.To, r.Cc, all
	return e.SaveDraft(ctx, d)
}

// UndoWindow is the delay between a confirmation and the send.
func (e *Engine) UndoWindow() time.Duration { return e.opt.UndoWindow }

// Delivery describes how the account sends: the transport's name, and
// whether it delivers at all; when it does not (no transport, or a NoSend
// transport such as the demo mailbox's), reason says why.
func (e *Engine) Delivery(accountName string) (name string, delivers bool, reason string) {
	a, err := e.account(accountName)
	if err != nil {
		return "", false, err.Error()
	}
	if a.Transport == nil {
		return "", false, fmt.Sprintf("account %q cannot send: add smtp or sendmail to it in the config", a.Name)
	}
	if ns, ok := a.Transport.(*NoSend); ok {
		return ns.Name(), false, ns.Reason
	}
	return a.Transport.Name(), true, ""
}

// NoSend is a transport that delivers nothing: every send fails
// permanently with Reason, so a confirmed message stays in the outbox as
// failed and its draft reopens. The demo mailbox uses it, so the whole
// confirm path can be tried without anything leaving the machine.
type NoSend struct {
	// Reason is the error every send reports.
	Reason string
}

// Send refuses.
func (n *NoSend) Send(ctx context.Context, t *store.SendTicket, commit func() error) error {
	return &PermanentError{Err: errors.New(n.Reason)}
}

// Name names the transport.
func (n *NoSend) Name() string { return "none (nothing is sent)" }
