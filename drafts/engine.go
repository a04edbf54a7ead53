package drafts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"mailsift/model"
	"mailsift/model/contract"
	"mailsift/store"
)

// Mailbox is the part of an IMAP account the outbox needs (mailsrc/imap
// Source satisfies it): append a message to a folder, and look a message
// up by Message-ID.
type Mailbox interface {
	Append(ctx context.Context, mailbox string, flags []model.Flag, date time.Time, raw []byte) (uint32, error)
	FindByMessageID(ctx context.Context, mailbox, messageID string) (bool, error)
}

// Step names a point of the send path (for hooks and crash tests).
type Step string

// Steps of the send path, in order.
const (
	StepBeforeConnect Step = "before-connect"
	StepAfterMailFrom Step = "after-mail-from"
	StepBeforeCommit  Step = "before-commit"
	StepAfterReply    Step = "after-reply-before-record"
	StepDuringAppend  Step = "during-append"
)

// Account is one sending identity.
type Account struct {
	// Name matches Draft.Account ("" is the default account).
	Name string
	// From is the sender identity (default: the principal).
	From model.Address
	// Transport sends; nil means the account cannot send.
	Transport Transport
	// Mailbox is the IMAP account for Sent/Drafts copies; nil for none.
	Mailbox Mailbox
	// SentMailbox and DraftsMailbox default to "Sent" and "Drafts".
	SentMailbox, DraftsMailbox string
	// ServerSavesSent: the server files sent mail itself (Gmail); no APPEND.
	ServerSavesSent bool
}

// Backoff is the retry schedule: Base·Factor^(n-1) capped at Max, with
// equal jitter (a random delay in [d/2, d]); after MaxAttempts failed
// attempts the item fails permanently.
type Backoff struct {
	Base, Max   time.Duration
	Factor      float64
	MaxAttempts int
}

// DefaultBackoff retries after ~30 s, 1 min, 2 min, ... up to 30 min, 12 times.
var DefaultBackoff = Backoff{Base: 30 * time.Second, Max: 30 * time.Minute, Factor: 2, MaxAttempts: 12}

// Delay returns the wait before attempt n+1 after n failed attempts (n ≥ 1);
// r is a random number in [0, 1).
func (b Backoff) Delay(n int, r float64) time.Duration {
	if n < 1 {
		n = 1
	}
	f := b.Factor
	if f < 1 {
		f = 2
	}
	d := float64(b.Base) * math.Pow(f, float64(n-1))
	if b.Max > 0 && d > float64(b.Max) {
		d = float64(b.Max)
	}
	return time.Duration(d/2 + r*d/2)
}

// DefaultUndoWindow is the default delay before a confirmed send leaves.
const DefaultUndoWindow = 10 * time.Second

// DefaultApprovalTTL is how long a pending approval stays valid.
const DefaultApprovalTTL = 15 * time.Minute

// Options configure an Engine.
type Options struct {
	// Principal is the mailbox owner.
	Principal model.Address
	// Policy is the drafting policy.
	Policy Policy
	// Generator writes draft bodies; nil means the offline template.
	Generator Generator
	// Accounts are the sending identities.
	Accounts []Account
	// UndoWindow is the delay between confirmation and sending (0 = send
	// at once); callers pass the configured value (default 10 s).
	UndoWindow time.Duration
	// ApprovalTTL is the default expiry of approvals (0 = 15 min).
	ApprovalTTL time.Duration
	// Backoff is the retry schedule (zero = DefaultBackoff).
	Backoff Backoff
	// Retriage is called with the thread id after a reply was sent.
	Retriage func(ctx context.Context, threadID int64)
	// Hook is called at each step of the send path (tests simulate
	// crashes with it); an error stops processing at that point and Run
	// returns it, recording nothing further.
	Hook func(ctx context.Context, step Step) error
	// PollInterval bounds how long Run waits when nothing is due and
	// nothing woke it (0 = one minute). Run wakes at once for work this
	// engine queued and at the due time of a waiting item; the poll only
	// notices items another process queued.
	PollInterval time.Duration
	// Events, when set, receives every outbox state change this engine
	// makes (queued, sending, sent, failed, unknown, cancelled). Sends
	// block until received or the call's context ends: the receiver must
	// keep reading.
	Events chan<- Event
	// Now is the clock (nil = time.Now): approval expiry, the undo window,
	// due times and retry backoff are computed from it.
	Now func() time.Time
	// Rand returns numbers in [0, 1) for jitter (nil = math/rand/v2).
	Rand func() float64
	// Logger receives logs; nil discards.
	Logger *slog.Logger
}

// Engine drafts replies, turns confirmed drafts into approved outbox items
// and runs the outbox. It is safe for concurrent use.
type Engine struct {
	st   *store.Store
	opt  Options
	log  *slog.Logger
	wake chan struct{}
}

// New returns an engine over the store. It does no IO.
func New(st *store.Store, opt Options) *Engine {
	if opt.ApprovalTTL <= 0 {
		opt.ApprovalTTL = DefaultApprovalTTL
	}
	if opt.Backoff.Base <= 0 {
		opt.Backoff = DefaultBackoff
	}
	if opt.PollInterval <= 0 {
		opt.PollInterval = time.Minute
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Rand == nil {
		opt.Rand = rand.Float64
	}
	if opt.UndoWindow < 0 {
		opt.UndoWindow = 0
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Engine{st: st, opt: opt, log: log, wake: make(chan struct{}, 1)}
}

func (e *Engine) account(name string) (*Account, error) {
	for i := range e.opt.Accounts {
		if e.opt.Accounts[i].Name == name {
			return &e.opt.Accounts[i], nil
		}
	}
	if name == "" && len(e.opt.Accounts) > 0 {
		return &e.opt.Accounts[0], nil
	}
	return nil, fmt.Errorf("drafts: no sending account %q configured; add smtp or sendmail to the account in the config", name)
}

func (a *Account) sent() string {
	if a.SentMailbox != "" {
		return a.SentMailbox
	}
	return "Sent"
}

func (a *Account) drafts() string {
	if a.DraftsMailbox != "" {
		return a.DraftsMailbox
	}
	return "Drafts"
}

func (e *Engine) hook(ctx context.Context, s Step) error {
	if e.opt.Hook == nil {
		return nil
	}
	if err := e.opt.Hook(ctx, s); err != nil {
		return &abortError{step: s, err: err}
	}
	return nil
}

// abortError is a hook's stop: the process is treated as dead at that step.
type abortError struct {
	step Step
	err  error
}

func (a *abortError) Error() string { return fmt.Sprintf("drafts: stopped at %s: %v", a.step, a.err) }
func (a *abortError) Unwrap() error { return a.err }

// NewDraft drafts a reply to a stored thread (with its stored triage) and
// saves it. accountName chooses the sending identity ("" = default).
func (e *Engine) NewDraft(ctx context.Context, threadID int64, replyAll bool, accountName string) (*Draft, error) {
	return e.NewDraftWithGoal(ctx, threadID, replyAll, accountName, "")
}

// NewDraftWithGoal is NewDraft with a requester's goal for the reply (an
// agent's instruction, see GenerateRequest.Goal): the model is given it,
// outside the mail's fence and labelled as the requester's; recipients,
// subject and threading are computed as always, whatever it says.
func (e *Engine) NewDraftWithGoal(ctx context.Context, threadID int64, replyAll bool, accountName, goal string) (*Draft, error) {
	// Only the bodies the prompt can hold are read (see BuildPrompt);
	// recipients and risk flags need the envelopes alone.
	t, err := e.st.ThreadHeaders(ctx, threadID, MaxPromptMessages)
	if err != nil {
		return nil, fmt.Errorf("drafts: %w", err)
	}
	var tri *contract.Result
	if sum, err := e.st.ThreadSummaryByID(ctx, threadID); err == nil && sum.Triage != nil {
		tri = &sum.Triage.Result
	}
	from := e.opt.Principal
	if a, err := e.account(accountName); err == nil && a.From.Email != "" {
		from = a.From
	}
	d, err := Generate(ctx, t, e.opt.Principal, e.opt.Policy, &GenerateOptions{ReplyAll: replyAll, Generator: e.opt.Generator,
		Triage: tri, From: from, Account: accountName, Logger: e.log, StyleExamples: e.styleExamples(ctx, t), Goal: goal})
	if err != nil {
		return nil, err
	}
	if err := e.st.SaveDraft(ctx, d); err != nil {
		return nil, fmt.Errorf("drafts: %w", err)
	}
	return d, nil
}

// SaveDraft stores an edited draft (autosave: call it on every edit; the
// store commits at once), recomputing its risk flags against the thread.
// The server's Drafts folder is updated separately by PushServerDraft.
//
// The flags need the participants' addresses, the answered message's
// envelope and the latest message's body, so only that body is read:
// autosave on a giant thread stays cheap.
func (e *Engine) SaveDraft(ctx context.Context, d *Draft) error {
	var t *model.Thread
	if d.ThreadID > 0 {
		if th, err := e.st.ThreadHeaders(ctx, d.ThreadID, 1); err == nil {
			t = th
		}
	}
	var tri *contract.Result
	if sum, err := e.st.ThreadSummaryByID(ctx, d.ThreadID); err == nil && sum.Triage != nil {
		tri = &sum.Triage.Result
	}
	var keep []string
	for _, f := range d.RiskFlags {
		if strings.HasPrefix(f, "model: ") || f == RiskModelFallback {
			keep = append(keep, f)
		}
	}
	d.RiskFlags = append(RiskFlags(d, t, tri), keep...)
	if err := e.st.SaveDraft(ctx, d); err != nil {
		return fmt.Errorf("drafts: %w", err)
	}
	return nil
}

// MessageDeleter is optionally implemented by a Mailbox that can remove a
// message by UID (flag \Deleted and expunge it); PushServerDraft then
// replaces the previous server copy instead of adding another.
type MessageDeleter interface {
	DeleteMessage(ctx context.Context, mailbox string, uid uint32) error
}

// PushServerDraft appends the stored draft to the account's Drafts folder
// marked \Draft (IMAP accounts only; a no-op otherwise), replacing the
// previous copy when the mailbox can delete. Call it when the user leaves
// the editor or on a debounce, not on every keystroke. A failure leaves
// the local draft intact.
func (e *Engine) PushServerDraft(ctx context.Context, draftID string) error {
	d, err := e.st.Draft(ctx, draftID)
	if err != nil {
		return fmt.Errorf("drafts: %w", err)
	}
	a, err := e.account(d.Account)
	if err != nil || a.Mailbox == nil || d.State != store.DraftOpen || len(d.To)+len(d.Cc)+len(d.Bcc) == 0 {
		return nil
	}
	from := d.From
	if from.Email == "" {
		from = e.opt.Principal
	}
	out, err := e.buildMessage(ctx, d, d.UpdatedAt, NewMessageID(from.Email))
	if err != nil {
		return fmt.Errorf("drafts: server copy of draft %s: %w", d.ID, err)
	}
	uid, err := a.Mailbox.Append(ctx, a.drafts(), []model.Flag{model.FlagDraft, model.FlagSeen}, e.opt.Now(), out.Raw)
	if err != nil {
		return fmt.Errorf("drafts: append draft to %s (the draft is saved locally): %w", a.drafts(), err)
	}
	if del, ok := a.Mailbox.(MessageDeleter); ok && d.ServerUID != 0 && d.ServerMailbox != "" {
		if err := del.DeleteMessage(ctx, d.ServerMailbox, d.ServerUID); err != nil {
			e.log.Warn("drafts: remove previous server draft", "draft", d.ID, "err", err)
		}
	}
	return e.st.SetDraftServerCopy(ctx, d.ID, a.drafts(), uid)
}

// Discard discards an open draft (and its server copy, where possible).
func (e *Engine) Discard(ctx context.Context, draftID string) error {
	if err := e.st.DiscardDraft(ctx, draftID); err != nil {
		return fmt.Errorf("drafts: %w", err)
	}
	if d, err := e.st.Draft(ctx, draftID); err == nil {
		if a, err := e.account(d.Account); err == nil {
			e.dropServerDraft(ctx, a, draftID)
		}
	}
	return nil
}

// dropServerDraft removes the draft's copy from the server's Drafts folder
// when the mailbox can delete (best effort).
func (e *Engine) dropServerDraft(ctx context.Context, a *Account, draftID string) {
	del, ok := a.Mailbox.(MessageDeleter)
	if !ok {
		return
	}
	d, err := e.st.Draft(ctx, draftID)
	if err != nil || d.ServerUID == 0 || d.ServerMailbox == "" {
		return
	}
	if err := del.DeleteMessage(ctx, d.ServerMailbox, d.ServerUID); err != nil {
		e.log.Warn("drafts: remove server draft", "draft", draftID, "err", err)
		return
	}
	_ = e.st.SetDraftServerCopy(ctx, draftID, "", 0)
}

func riskLevel(flags []string) string {
	level := "low"
	for _, f := range flags {
		switch f {
		case RiskPhishingThread, RiskCredentials:
			return "high"
		case RiskRecipientOutsideThread, RiskReplyToMismatch, RiskMoney, RiskSpamThread:
			level = "medium"
		}
	}
	return level
}

// Approve builds the exact message for an open draft (Message-ID fixed
// now) and creates a pending approval for it that expires after ttl (0 =
// the configured TTL). The confirm screen shows Approval.What.Message; only
// Confirm turns it into a send.
func (e *Engine) Approve(ctx context.Context, draftID string, ttl time.Duration) (*store.Approval, error) {
	d, err := e.st.Draft(ctx, draftID)
	if err != nil {
		return nil, fmt.Errorf("drafts: %w", err)
	}
	if d.State != store.DraftOpen {
		return nil, fmt.Errorf("drafts: draft %s is %s, not open", draftID, d.State)
	}
	acct, err := e.account(d.Account)
	if err != nil {
		return nil, err
	}
	if acct.Transport == nil {
		return nil, fmt.Errorf("drafts: account %q cannot send: add smtp or sendmail to it in the config", acct.Name)
	}
	if d.From.Email == "" {
		d.From = acct.From
		if d.From.Email == "" {
			d.From = e.opt.Principal
		}
	}
	now := e.opt.Now()
	out, err := e.buildOutgoing(ctx, d, now, NewMessageID(d.From.Email))
	if err != nil {
		return nil, err
	}
	if ttl <= 0 {
		ttl = e.opt.ApprovalTTL
	}
	why := "Sending mail leaves this machine and cannot be recalled after the undo window."
	if len(d.RiskFlags) > 0 {
		why += " Risk flags: " + strings.Join(d.RiskFlags, ", ") + "."
	}
	a := &store.Approval{
		DraftID:   d.ID,
		ExpiresAt: now.Add(ttl),
		RiskLevel: riskLevel(d.RiskFlags),
		What: store.ApprovalWhat{Action: "send_mail", Account: d.Account, EnvelopeFrom: out.EnvelopeFrom,
			Recipients: out.Recipients, MessageID: out.MessageID, Message: string(out.Raw)},
		Why:          why,
		HowToApprove: "press y on the confirm screen showing this message (any other key goes back)",
	}
	if err := e.st.CreateApproval(ctx, a); err != nil {
		return nil, fmt.Errorf("drafts: %w", err)
	}
	return a, nil
}

// Confirm records the operator's approval of a pending, unexpired approval
// and queues its exact message; it leaves after the undo window. Expired
// approvals are refused (store.ErrApprovalExpired).
func (e *Engine) Confirm(ctx context.Context, approvalID string) (*store.OutboxItem, error) {
	a, err := e.st.Approval(ctx, approvalID)
	if err != nil {
		return nil, fmt.Errorf("drafts: %w", err)
	}
	d, err := e.st.Draft(ctx, a.DraftID)
	if err != nil {
		return nil, fmt.Errorf("drafts: %w", err)
	}
	acct, err := e.account(a.What.Account)
	if err != nil {
		return nil, err
	}
	if acct.Transport == nil {
		return nil, fmt.Errorf("drafts: account %q cannot send: add smtp or sendmail to it in the config", acct.Name)
	}
	item, err := e.st.ConfirmAndEnqueue(ctx, store.ConfirmRequest{ApprovalID: approvalID, By: "operator",
		NotBefore: e.opt.Now().Add(e.opt.UndoWindow), ThreadID: d.ThreadID, InReplyTo: d.InReplyTo,
		ConnectorID: acct.Transport.Name(), ToolName: "send_mail"})
	if err != nil {
		return nil, fmt.Errorf("drafts: %w", err)
	}
	e.publishItem(ctx, item)
	e.Wake()
	return item, nil
}

// Deny records that the operator did not confirm (any key but y); the
// draft stays open.
func (e *Engine) Deny(ctx context.Context, approvalID, reason string) error {
	if err := e.st.DenyApproval(ctx, approvalID, "operator", reason); err != nil {
		return fmt.Errorf("drafts: %w", err)
	}
	return nil
}

// Cancel cancels a queued send (within the undo window nothing has left),
// a failed one, or gives up on an unknown one; the draft reopens.
func (e *Engine) Cancel(ctx context.Context, outboxID int64) error {
	if err := e.st.CancelOutbox(ctx, outboxID, "cancelled by the user"); err != nil {
		return fmt.Errorf("drafts: %w", err)
	}
	e.publish(ctx, outboxID)
	return nil
}

// Retry makes a failed item due now; an unknown item is first looked up
// in the Sent folder and sent again only when no copy is there.
func (e *Engine) Retry(ctx context.Context, outboxID int64) error {
	if err := e.st.RetryOutbox(ctx, outboxID); err != nil {
		return fmt.Errorf("drafts: %w", err)
	}
	e.publish(ctx, outboxID)
	e.Wake()
	return nil
}

// Outbox lists outbox items (all states when none given).
func (e *Engine) Outbox(ctx context.Context, states ...store.OutboxState) ([]store.OutboxItem, error) {
	return e.st.OutboxItems(ctx, states...)
}

// Wake makes a running Run look for due items now.
func (e *Engine) Wake() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// Run processes the outbox until ctx ends: it first settles items a crash
// left sending, then handles due items (send, check Sent for unknown
// outcomes, append to Sent) and sleeps until the next is due. It returns
// ctx's error, or a hook's stop.
//
// Run holds the store's outbox lock while it runs (store.HoldOutbox):
// when another process runs the outbox of the same store, Run returns at
// once an error wrapping store.ErrOutboxBusy that names that process,
// and sends nothing; that process sends what is confirmed here.
func (e *Engine) Run(ctx context.Context) error {
	release, err := e.st.HoldOutbox()
	if err != nil {
		return fmt.Errorf("drafts: not running the outbox in this process: %w", err)
	}
	defer release()
	if n, err := e.st.RecoverInterrupted(ctx); err != nil {
		return fmt.Errorf("drafts: recover outbox: %w", err)
	} else if n > 0 {
		e.log.Info("drafts: settled interrupted sends", "count", n)
		e.publishSettled(ctx)
	}
	for {
		if _, err := e.ProcessDue(ctx); err != nil {
			var ab *abortError
			if errors.As(err, &ab) || ctx.Err() != nil {
				return err
			}
			e.log.Warn("drafts: outbox pass", "err", err)
		}
		wait := e.opt.PollInterval
		if next, err := e.st.NextOutboxDue(ctx); err == nil && !next.IsZero() {
			if d := next.Sub(e.opt.Now()); d < wait {
				wait = max(d, 10*time.Millisecond)
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-e.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// ProcessDue handles every item due now once and returns how many it
// handled. Items a crash left sending are settled by Run (or
// store.RecoverInterrupted), not here. It holds the store's outbox lock
// while it works and fails with store.ErrOutboxBusy, touching nothing,
// when another process runs the outbox.
func (e *Engine) ProcessDue(ctx context.Context) (int, error) {
	release, err := e.st.HoldOutbox()
	if err != nil {
		return 0, fmt.Errorf("drafts: %w", err)
	}
	defer release()
	items, err := e.st.DueOutbox(ctx, e.opt.Now())
	if err != nil {
		return 0, err
	}
	var errs []error
	for _, it := range items {
		var err error
		switch it.State {
		case store.OutboxSent:
			err = e.appendSent(ctx, &it)
		case store.OutboxUnknown:
			err = e.settleUnknown(ctx, &it)
		default:
			err = e.deliver(ctx, &it)
		}
		var ab *abortError
		if errors.As(err, &ab) || ctx.Err() != nil {
			return 0, err
		}
		if err != nil {
			errs = append(errs, err)
		}
		e.publish(ctx, it.ID)
	}
	return len(items), errors.Join(errs...)
}

// deliver is the only caller of Transport.Send, and it calls it only with
// the item store.BeginSend returned after checking the approval.
func (e *Engine) deliver(ctx context.Context, it *store.OutboxItem) error {
	acct, err := e.account(it.Account)
	if err != nil || acct.Transport == nil {
		if err == nil {
			err = fmt.Errorf("account %q cannot send", it.Account)
		}
		return e.st.RefuseOutbox(ctx, it.ID, err.Error())
	}
	permit, err := e.st.BeginSend(ctx, it.ID, e.opt.Now())
	if err != nil {
		if errors.Is(err, store.ErrApprovalNotApproved) || errors.Is(err, store.ErrIntegrity) {
			e.log.Error("drafts: refusing to send an item without a valid approval", "outbox", it.ID, "err", err)
			return e.st.RefuseOutbox(ctx, it.ID, err.Error())
		}
		if errors.Is(err, store.ErrBadState) {
			return nil // cancelled or taken meanwhile
		}
		return err
	}
	if err := e.hook(ctx, StepBeforeConnect); err != nil {
		return err
	}
	start := e.opt.Now()
	var hookErr error
	ticket := permit.Item()
	sendErr := acct.Transport.Send(ctx, permit, func() error {
		if err := e.hook(ctx, StepBeforeCommit); err != nil {
			hookErr = err
			return err
		}
		return e.st.MarkCommitted(ctx, ticket.ID)
	})
	if hookErr != nil {
		return hookErr
	}
	var ab *abortError
	if errors.As(sendErr, &ab) {
		return sendErr
	}
	var perm *PermanentError
	switch {
	case sendErr == nil:
		if err := e.hook(ctx, StepAfterReply); err != nil {
			return err
		}
		if err := e.st.MarkSent(ctx, ticket.ID, store.SentOptions{Latency: e.opt.Now().Sub(start), How: "accepted by " + acct.Transport.Name(),
			AppendToSent: acct.Mailbox != nil && !acct.ServerSavesSent}); err != nil {
			return err
		}
		e.log.Info("drafts: sent", "message_id", ticket.MessageID, "via", acct.Transport.Name())
		e.dropServerDraft(ctx, acct, ticket.DraftID)
		if e.opt.Retriage != nil && ticket.ThreadID > 0 {
			e.opt.Retriage(ctx, ticket.ThreadID)
		}
		if acct.Mailbox != nil && !acct.ServerSavesSent {
			sent, err := e.st.OutboxItem(ctx, ticket.ID)
			if err != nil {
				return err
			}
			return e.appendSent(ctx, sent)
		}
		return nil
	case errors.Is(sendErr, ErrOutcomeUnknown):
		var next time.Time
		if acct.Mailbox != nil {
			next = e.opt.Now()
		}
		return e.st.MarkUnknown(ctx, ticket.ID, sendErr.Error(), next)
	case errors.As(sendErr, &perm) || ticket.Attempts >= e.opt.Backoff.MaxAttempts:
		if err := e.st.MarkFailed(ctx, ticket.ID, sendErr.Error(), time.Time{}); err != nil {
			return err
		}
		return e.st.ReopenDraftOf(ctx, ticket.ID)
	default:
		next := e.opt.Now().Add(e.opt.Backoff.Delay(ticket.Attempts, e.opt.Rand()))
		return e.st.MarkFailed(ctx, ticket.ID, sendErr.Error(), next)
	}
}

// settleUnknown looks for an unknown send in the Sent folder: found means
// sent; not found waits for the user (or resends after an explicit retry).
func (e *Engine) settleUnknown(ctx context.Context, it *store.OutboxItem) error {
	acct, err := e.account(it.Account)
	if err != nil {
		return err
	}
	if acct.Mailbox == nil {
		if it.ResendOK {
			return e.st.MarkFailed(ctx, it.ID, "outcome unknown; sending again as requested", e.opt.Now())
		}
		return e.st.MarkUnknown(ctx, it.ID, "outcome unknown and no Sent folder to check; run `mailsift outbox retry "+fmt.Sprint(it.ID)+"` to send again (the recipient may get it twice) or `cancel`", time.Time{})
	}
	found, err := acct.Mailbox.FindByMessageID(ctx, acct.sent(), it.MessageID)
	if err != nil {
		return e.st.MarkUnknown(ctx, it.ID, "could not search Sent: "+err.Error(), e.opt.Now().Add(e.opt.Backoff.Delay(1, e.opt.Rand())))
	}
	if found {
		return e.st.MarkSent(ctx, it.ID, store.SentOptions{How: "found in " + acct.sent() + " by Message-ID"})
	}
	if it.ResendOK {
		return e.st.MarkFailed(ctx, it.ID, "not found in "+acct.sent()+"; sending again as requested", e.opt.Now())
	}
	return e.st.MarkUnknown(ctx, it.ID, "outcome unknown and not found in "+acct.sent()+"; run `mailsift outbox retry "+fmt.Sprint(it.ID)+"` to send again (the recipient may get it twice) or `cancel`", time.Time{})
}

// appendSent files the sent message in the Sent folder once: it looks the
// Message-ID up first, so a crash during APPEND never leaves two copies.
func (e *Engine) appendSent(ctx context.Context, it *store.OutboxItem) error {
	acct, err := e.account(it.Account)
	if err != nil || acct.Mailbox == nil {
		return e.st.MarkAppended(ctx, it.ID, "", 0, false, "no mailbox to append to")
	}
	found, err := acct.Mailbox.FindByMessageID(ctx, acct.sent(), it.MessageID)
	if err != nil {
		return e.st.DeferAppend(ctx, it.ID, e.opt.Now().Add(e.opt.Backoff.Delay(1, e.opt.Rand())), err.Error())
	}
	if found {
		return e.st.MarkAppended(ctx, it.ID, acct.sent(), 0, true, "")
	}
	if err := e.hook(ctx, StepDuringAppend); err != nil {
		return err
	}
	uid, err := acct.Mailbox.Append(ctx, acct.sent(), []model.Flag{model.FlagSeen}, it.SentAt, it.Raw)
	if err != nil {
		return e.st.DeferAppend(ctx, it.ID, e.opt.Now().Add(e.opt.Backoff.Delay(1, e.opt.Rand())), err.Error())
	}
	return e.st.MarkAppended(ctx, it.ID, acct.sent(), uid, false, "")
}
