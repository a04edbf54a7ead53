package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"mailsift/model"
)

// outboxFixedSchema is migration 5: the exact bytes, Message-ID and
// idempotency key of a queued message, and an approval's approved text,
// cannot be changed once stored.
const outboxFixedSchema = `
CREATE TRIGGER outbox_fixed BEFORE UPDATE OF raw, message_id, idempotency_key, envelope_from, rcpts_json, approval_id ON outbox
	WHEN OLD.raw IS NOT NEW.raw OR OLD.message_id IS NOT NEW.message_id OR OLD.idempotency_key IS NOT NEW.idempotency_key
		OR OLD.envelope_from IS NOT NEW.envelope_from OR OLD.rcpts_json IS NOT NEW.rcpts_json OR OLD.approval_id IS NOT NEW.approval_id
BEGIN SELECT RAISE(ABORT, 'outbox: a queued message is fixed'); END;
CREATE TRIGGER approvals_what_fixed BEFORE UPDATE OF what_json, what_hash ON approvals
	WHEN OLD.what_json IS NOT NEW.what_json OR OLD.what_hash IS NOT NEW.what_hash
BEGIN SELECT RAISE(ABORT, 'approvals: the approved message is fixed'); END;
`

// OutboxState is the state of a queued send.
type OutboxState string

// Outbox states: queued → sending → sent | failed | unknown; cancelled by
// the user before it left.
const (
	OutboxQueued    OutboxState = "queued"
	OutboxSending   OutboxState = "sending"
	OutboxSent      OutboxState = "sent"
	OutboxFailed    OutboxState = "failed"
	OutboxUnknown   OutboxState = "unknown"
	OutboxCancelled OutboxState = "cancelled"
)

// Send phases recorded while an item is sending, for crash recovery.
const (
	// PhaseConnecting: the message has not been handed over yet; a crash
	// here is safe to retry.
	PhaseConnecting = "connecting"
	// PhaseCommitted: the end of the message is being (or was) handed over;
	// a crash here leaves the outcome unknown.
	PhaseCommitted = "committed"
)

// Append states of a sent item's copy in the Sent folder.
const (
	AppendNone    = ""        // not sent yet
	AppendPending = "pending" // to append (or to check, after a crash)
	AppendDone    = "done"
	AppendSkipped = "skipped" // the server keeps its own copy, or no mailbox
)

// OutboxItem is one approved message waiting to leave or gone. Its
// Message-ID, idempotency key and raw bytes never change.
type OutboxItem struct {
	ID             int64
	DraftID        string
	ApprovalID     string
	ToolCallID     string
	TraceID        string
	Account        string
	ThreadID       int64
	InReplyTo      string
	MessageID      string
	IdempotencyKey string
	EnvelopeFrom   string
	Recipients     []string
	Raw            []byte
	State          OutboxState
	Phase          string
	Attempts       int
	// NextAttemptAt is when the item is next due; zero means it waits for
	// the user (outbox retry).
	NextAttemptAt time.Time
	LastError     string
	CreatedAt     time.Time
	UpdatedAt     time.Time
	SentAt        time.Time
	AppendState   string
	// ResendOK is set by an explicit retry of an unknown item: if the Sent
	// folder has no copy, send again.
	ResendOK bool
}

const outboxCols = `id, draft_id, approval_id, tool_call_id, trace_id, account, thread_id, in_reply_to, message_id,
	idempotency_key, envelope_from, rcpts_json, raw, state, phase, attempts, next_attempt_at, last_error, created_at,
	updated_at, sent_at, append_state, resend_ok`

func scanOutbox(r rowScanner) (*OutboxItem, error) {
	var o OutboxItem
	var rcpts, state string
	var next, created, updated, sent int64
	if err := r.Scan(&o.ID, &o.DraftID, &o.ApprovalID, &o.ToolCallID, &o.TraceID, &o.Account, &o.ThreadID, &o.InReplyTo,
		&o.MessageID, &o.IdempotencyKey, &o.EnvelopeFrom, &rcpts, &o.Raw, &state, &o.Phase, &o.Attempts, &next,
		&o.LastError, &created, &updated, &sent, &o.AppendState, &o.ResendOK); err != nil {
		return nil, err
	}
	decodeInto(rcpts, &o.Recipients)
	o.State = OutboxState(state)
	o.NextAttemptAt, o.CreatedAt, o.UpdatedAt, o.SentAt = fromMS(next), fromMS(created), fromMS(updated), fromMS(sent)
	return &o, nil
}

func getOutbox(ctx context.Context, q querier, id int64) (*OutboxItem, error) {
	o, err := scanOutbox(q.QueryRowContext(ctx, `SELECT `+outboxCols+` FROM outbox WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("outbox item %d: %w", id, ErrNotFound)
	}
	return o, err
}

// OutboxItem returns one outbox item (ErrNotFound).
func (s *Store) OutboxItem(ctx context.Context, id int64) (*OutboxItem, error) {
	o, err := getOutbox(ctx, s.r, id)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return o, nil
}

func (s *Store) listOutbox(ctx context.Context, where string, args ...any) ([]OutboxItem, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+outboxCols+` FROM outbox WHERE `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list outbox: %w", err)
	}
	defer rows.Close()
	var out []OutboxItem
	for rows.Next() {
		o, err := scanOutbox(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list outbox: %w", err)
		}
		out = append(out, *o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list outbox: %w", err)
	}
	return out, nil
}

// OutboxItems lists outbox items in the given states (all when none),
// oldest first.
func (s *Store) OutboxItems(ctx context.Context, states ...OutboxState) ([]OutboxItem, error) {
	where := `1 = 1`
	var args []any
	if len(states) > 0 {
		where = `state IN (` + strings.TrimSuffix(strings.Repeat("?, ", len(states)), ", ") + `)`
		for _, st := range states {
			args = append(args, string(st))
		}
	}
	return s.listOutbox(ctx, where+` ORDER BY id`, args...)
}

// DueOutbox returns the items with work due at now: queued, failed or
// unknown items whose next attempt has come, and sent items whose Sent
// copy is pending. Oldest due first.
func (s *Store) DueOutbox(ctx context.Context, now time.Time) ([]OutboxItem, error) {
	return s.listOutbox(ctx, `(state IN ('queued', 'failed', 'unknown') AND next_attempt_at > 0 AND next_attempt_at <= ?)
		OR (state = 'sent' AND append_state = 'pending' AND next_attempt_at <= ?) ORDER BY next_attempt_at, id`, ms(now), ms(now))
}

// NextOutboxDue returns the earliest future attempt time (zero if none).
func (s *Store) NextOutboxDue(ctx context.Context) (time.Time, error) {
	var v sql.NullInt64
	err := s.r.QueryRowContext(ctx, `SELECT MIN(next_attempt_at) FROM outbox
		WHERE state IN ('queued', 'failed', 'unknown') AND next_attempt_at > 0`).Scan(&v)
	if err != nil {
		return time.Time{}, fmt.Errorf("store: next outbox due: %w", err)
	}
	return fromMS(v.Int64), nil
}

// durableTx runs fn in one write transaction that is on disk when
// durableTx returns: the writer connection runs it with
// synchronous=FULL, which syncs the WAL at commit, and goes back to
// NORMAL afterwards. Every outbox state change goes through it: under
// NORMAL a power loss may undo the last commits, and an undone "sent" or
// "committed" would send the message again. The mirror's writes stay
// NORMAL (what they lose is fetched again). The writer is one connection,
// held from the first PRAGMA to the last, so no other write runs in
// between with the wrong setting.
func (s *Store) durableTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA synchronous = FULL`); err != nil {
		return fmt.Errorf("set synchronous=FULL: %w", err)
	}
	defer func() {
		// Even when ctx ended: left FULL, the writer would only be slower.
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA synchronous = NORMAL`); err != nil {
			s.log.Warn("store: set synchronous back to NORMAL after an outbox write", "err", err)
		}
	}()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return s.diskFull(err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return s.diskFull(err)
	}
	return s.diskFull(tx.Commit())
}

// outboxTx runs fn on the item in one durable write transaction.
func (s *Store) outboxTx(ctx context.Context, id int64, op string, fn func(tx *sql.Tx, o *OutboxItem) error) error {
	err := s.durableTx(ctx, func(tx *sql.Tx) error {
		o, err := getOutbox(ctx, tx, id)
		if err != nil {
			return err
		}
		return fn(tx, o)
	})
	if err != nil {
		return fmt.Errorf("store: %s outbox item %d: %w", op, id, err)
	}
	return nil
}

// SendTicket is the permission to hand one approved message to a
// transport. Only BeginSend creates one (its fields are unexported), and
// drafts transports take a ticket, so no code path reaches a transport
// without passing the approval check.
type SendTicket struct{ item OutboxItem }

// Item returns the outbox item the ticket is for (Raw is a copy).
func (t *SendTicket) Item() OutboxItem {
	it := t.item
	it.Raw = append([]byte(nil), t.item.Raw...)
	it.Recipients = append([]string(nil), t.item.Recipients...)
	return it
}

// BeginSend is the gate in front of every transport: it checks, in one
// transaction, that the item is due, that its approval is approved, and
// that the SHA-256 of the queued bytes equals the approved message's hash
// and the tool call's request hash; then it marks the item sending
// (phase connecting, attempts+1) and returns the ticket a transport needs.
// Only the process holding the outbox lock may send (see HoldOutbox; taken
// here until Close when not held): otherwise it fails with ErrOutboxBusy.
func (s *Store) BeginSend(ctx context.Context, id int64, now time.Time) (*SendTicket, error) {
	if err := s.claimOutbox(); err != nil {
		return nil, fmt.Errorf("store: begin send of outbox item %d: %w", id, err)
	}
	var out *SendTicket
	err := s.outboxTx(ctx, id, "begin send of", func(tx *sql.Tx, o *OutboxItem) error {
		if o.State != OutboxQueued && o.State != OutboxFailed {
			return fmt.Errorf("state %s: %w", o.State, ErrBadState)
		}
		if o.NextAttemptAt.IsZero() || o.NextAttemptAt.After(now) {
			return fmt.Errorf("not due (next attempt %s): %w", o.NextAttemptAt.Format(time.RFC3339), ErrBadState)
		}
		a, err := getApproval(ctx, tx, o.ApprovalID)
		if err != nil {
			return err
		}
		if a.Status != ApprovalApproved {
			return fmt.Errorf("approval %s is %s: %w", a.ID, a.Status, ErrApprovalNotApproved)
		}
		var reqHash, key string
		if err := tx.QueryRowContext(ctx, `SELECT request_hash, idempotency_key FROM tool_calls WHERE id = ?`, o.ToolCallID).
			Scan(&reqHash, &key); err != nil {
			return fmt.Errorf("tool call %s: %w", o.ToolCallID, err)
		}
		h := sha256Hex(o.Raw)
		if h != a.WhatHash || h != reqHash || a.What.MessageID != o.MessageID || key != o.IdempotencyKey {
			return ErrIntegrity
		}
		o.State, o.Phase, o.Attempts = OutboxSending, PhaseConnecting, o.Attempts+1
		if _, err := tx.ExecContext(ctx, `UPDATE outbox SET state = 'sending', phase = ?, attempts = ?, updated_at = ? WHERE id = ?`,
			o.Phase, o.Attempts, ms(now), id); err != nil {
			return err
		}
		out = &SendTicket{item: *o}
		return s.appendAudit(ctx, tx, AuditEvent{TraceID: o.TraceID, Stage: "tool_call", Type: "tool_call.attempted",
			Summary: fmt.Sprintf("send attempt %d of %s", o.Attempts, o.MessageID), Outcome: "info",
			DraftID: o.DraftID, ApprovalID: o.ApprovalID, ToolCallID: o.ToolCallID, OutboxID: id})
	})
	return out, err
}

// MarkCommitted records that the end of the message is about to be handed
// to the transport: from here on a crash leaves the outcome unknown.
// It is durable before it returns (a mark lost to power loss would let
// recovery send the message again).
func (s *Store) MarkCommitted(ctx context.Context, id int64) error {
	err := s.durableTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE outbox SET phase = ? WHERE id = ? AND state = 'sending'`, PhaseCommitted, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return ErrBadState
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: mark outbox item %d committed: %w", id, err)
	}
	return nil
}

// SentOptions describe what follows a successful send.
type SentOptions struct {
	// Latency of the successful attempt.
	Latency time.Duration
	// AppendToSent: a copy must be appended to the Sent folder.
	AppendToSent bool
	// How says how the outcome was learnt ("smtp 250", "found in Sent").
	How string
}

// MarkSent records a successful send: the tool call succeeded, the draft
// is sent, \Answered is queued on every stored copy of the original
// (In-Reply-To), and the Sent-folder copy is pending or skipped.
func (s *Store) MarkSent(ctx context.Context, id int64, opt SentOptions) error {
	return s.outboxTx(ctx, id, "mark sent", func(tx *sql.Tx, o *OutboxItem) error {
		if o.State == OutboxSent {
			return nil
		}
		if o.State != OutboxSending && o.State != OutboxUnknown {
			return fmt.Errorf("state %s: %w", o.State, ErrBadState)
		}
		now := s.now().UTC()
		app, next := AppendSkipped, int64(0)
		if opt.AppendToSent {
			app, next = AppendPending, ms(now)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE outbox SET state = 'sent', phase = '', next_attempt_at = ?, last_error = '',
			sent_at = ?, updated_at = ?, append_state = ? WHERE id = ?`, next, ms(now), ms(now), app, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tool_calls SET status = 'succeeded', latency_ms = ? WHERE id = ?`,
			opt.Latency.Milliseconds(), o.ToolCallID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE drafts SET state = 'sent', updated_at = ? WHERE id = ?`, ms(now), o.DraftID); err != nil {
			return err
		}
		if err := s.queueAnswered(ctx, tx, o.InReplyTo); err != nil {
			return fmt.Errorf("queue \\Answered: %w", err)
		}
		return s.appendAudit(ctx, tx, AuditEvent{TraceID: o.TraceID, Stage: "tool_call", Type: "tool_call.succeeded",
			Summary: fmt.Sprintf("sent %s to %d recipient(s) (%s)", o.MessageID, len(o.Recipients), opt.How), Outcome: "success",
			DraftID: o.DraftID, ApprovalID: o.ApprovalID, ToolCallID: o.ToolCallID, OutboxID: id,
			Details: detailsJSON(map[string]any{"message_id": o.MessageID, "attempts": o.Attempts, "latency_ms": opt.Latency.Milliseconds(), "how": opt.How})})
	})
}

// queueAnswered sets \Answered on every location of the message with the
// given Message-ID (none is fine: the original may not be mirrored).
func (s *Store) queueAnswered(ctx context.Context, tx *sql.Tx, messageID string) error {
	if messageID == "" {
		return nil
	}
	locs, err := queryLocations(ctx, tx, `SELECT l.account, l.mailbox, l.key, l.uid FROM locations l
		JOIN messages m ON m.id = l.message WHERE m.message_id = ? AND l.answered = 0`, messageID)
	if err != nil {
		return err
	}
	w := s.newWriter(ctx, tx)
	for _, l := range locs {
		if err := w.queueFlag(l, model.FlagAnswered, true); err != nil {
			return err
		}
	}
	return w.finish()
}

// MarkFailed records a failed attempt that certainly did not deliver the
// message. next is the retry time; zero means permanent (the draft is
// reopened so nothing the user wrote is lost; outbox retry re-queues).
func (s *Store) MarkFailed(ctx context.Context, id int64, errText string, next time.Time) error {
	return s.outboxTx(ctx, id, "mark failed", func(tx *sql.Tx, o *OutboxItem) error {
		if o.State != OutboxSending && o.State != OutboxUnknown {
			return fmt.Errorf("state %s: %w", o.State, ErrBadState)
		}
		now := s.now().UTC()
		if _, err := tx.ExecContext(ctx, `UPDATE outbox SET state = 'failed', phase = '', next_attempt_at = ?, last_error = ?,
			updated_at = ?, resend_ok = 0 WHERE id = ?`, ms(next), errText, ms(now), id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tool_calls SET status = 'failed' WHERE id = ?`, o.ToolCallID); err != nil {
			return err
		}
		summary := "send failed, retry at " + next.UTC().Format(time.RFC3339) + ": " + errText
		if next.IsZero() {
			summary = "send failed permanently: " + errText
		}
		return s.appendAudit(ctx, tx, AuditEvent{TraceID: o.TraceID, Stage: "tool_call", Type: "tool_call.failed",
			Summary: summary, Outcome: "failure", DraftID: o.DraftID, ApprovalID: o.ApprovalID, ToolCallID: o.ToolCallID, OutboxID: id,
			Details: detailsJSON(map[string]any{"attempts": o.Attempts, "permanent": next.IsZero()})})
	})
}

// MarkUnknown records an attempt whose outcome is unknown (the connection
// dropped after the message was handed over). next is when to look for the
// message in the Sent folder (zero: wait for the user).
func (s *Store) MarkUnknown(ctx context.Context, id int64, errText string, next time.Time) error {
	return s.outboxTx(ctx, id, "mark unknown", func(tx *sql.Tx, o *OutboxItem) error {
		if o.State != OutboxSending && o.State != OutboxUnknown {
			return fmt.Errorf("state %s: %w", o.State, ErrBadState)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE outbox SET state = 'unknown', next_attempt_at = ?, last_error = ?, updated_at = ?,
			resend_ok = 0 WHERE id = ?`, ms(next), errText, ms(s.now()), id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tool_calls SET status = 'unknown' WHERE id = ?`, o.ToolCallID); err != nil {
			return err
		}
		return s.appendAudit(ctx, tx, AuditEvent{TraceID: o.TraceID, Stage: "tool_call", Type: "tool_call.unknown",
			Summary: "send outcome unknown: " + errText, Outcome: "failure", DraftID: o.DraftID, ApprovalID: o.ApprovalID,
			ToolCallID: o.ToolCallID, OutboxID: id})
	})
}

// MarkAppended records the Sent-folder copy: appended (uid, or 0 when it
// was found already there) or given up (errText set).
func (s *Store) MarkAppended(ctx context.Context, id int64, mailbox string, uid uint32, found bool, errText string) error {
	return s.outboxTx(ctx, id, "mark appended", func(tx *sql.Tx, o *OutboxItem) error {
		state, outcome, typ := AppendDone, "success", "sent.appended"
		summary := fmt.Sprintf("appended to %s (uid %d)", mailbox, uid)
		if found {
			summary = "already in " + mailbox + "; not appended again"
		}
		if errText != "" {
			state, outcome, typ, summary = AppendSkipped, "failure", "sent.append_failed", "append to "+mailbox+" failed: "+errText
		}
		if _, err := tx.ExecContext(ctx, `UPDATE outbox SET append_state = ?, next_attempt_at = 0, updated_at = ? WHERE id = ?`, state, ms(s.now()), id); err != nil {
			return err
		}
		return s.appendAudit(ctx, tx, AuditEvent{TraceID: o.TraceID, Stage: "tool_call", Type: typ, Summary: summary,
			Outcome: outcome, DraftID: o.DraftID, ApprovalID: o.ApprovalID, OutboxID: id})
	})
}

// CancelOutbox cancels an item that has not left (queued or failed) or
// whose outcome is unknown; its draft reopens. A sending or sent item
// cannot be cancelled (ErrBadState).
func (s *Store) CancelOutbox(ctx context.Context, id int64, reason string) error {
	return s.outboxTx(ctx, id, "cancel", func(tx *sql.Tx, o *OutboxItem) error {
		if o.State != OutboxQueued && o.State != OutboxFailed && o.State != OutboxUnknown {
			return fmt.Errorf("it is %s: %w", o.State, ErrBadState)
		}
		now := s.now().UTC()
		if _, err := tx.ExecContext(ctx, `UPDATE outbox SET state = 'cancelled', next_attempt_at = 0, updated_at = ? WHERE id = ?`, ms(now), id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE drafts SET state = 'draft', updated_at = ? WHERE id = ? AND state = 'queued'`, ms(now), o.DraftID); err != nil {
			return err
		}
		return s.appendAudit(ctx, tx, AuditEvent{TraceID: o.TraceID, Stage: "operator", Type: "outbox.cancelled",
			Summary: "send cancelled: " + reason, Outcome: "suppressed", DraftID: o.DraftID, ApprovalID: o.ApprovalID, OutboxID: id})
	})
}

// RetryOutbox makes a failed or unknown item due now. For an unknown item
// the Sent folder is checked first and the message is sent again only if
// no copy is found.
func (s *Store) RetryOutbox(ctx context.Context, id int64) error {
	return s.outboxTx(ctx, id, "retry", func(tx *sql.Tx, o *OutboxItem) error {
		if o.State != OutboxFailed && o.State != OutboxUnknown {
			return fmt.Errorf("it is %s: %w", o.State, ErrBadState)
		}
		now := s.now().UTC()
		if _, err := tx.ExecContext(ctx, `UPDATE outbox SET next_attempt_at = ?, resend_ok = ?, updated_at = ? WHERE id = ?`,
			ms(now), boolInt(o.State == OutboxUnknown), ms(now), id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE drafts SET state = 'queued' WHERE id = ? AND state = 'draft'`, o.DraftID); err != nil {
			return err
		}
		return s.appendAudit(ctx, tx, AuditEvent{TraceID: o.TraceID, Stage: "operator", Type: "outbox.retry",
			Summary: "retry requested by the user", Outcome: "info", DraftID: o.DraftID, OutboxID: id})
	})
}

// ReopenDraftOf reopens the draft of a permanently failed item so the user
// can edit it.
func (s *Store) ReopenDraftOf(ctx context.Context, id int64) error {
	return s.outboxTx(ctx, id, "reopen draft of", func(tx *sql.Tx, o *OutboxItem) error {
		_, err := tx.ExecContext(ctx, `UPDATE drafts SET state = 'draft', updated_at = ? WHERE id = ? AND state = 'queued'`,
			ms(s.now()), o.DraftID)
		return err
	})
}

// RecoverInterrupted settles items left in sending by a crash: before the
// commit phase nothing was handed over, so they become failed and due now;
// at or after it the outcome is unknown and they become unknown, due now
// for a Sent-folder check. It returns the number of items recovered.
//
// An item is sending only while the process that began it holds the
// outbox lock, so RecoverInterrupted takes the lock first (until Close,
// when not held through HoldOutbox): with it, every sending item was left
// by a process that ended or gave up on it; without it (ErrOutboxBusy)
// nothing is touched.
func (s *Store) RecoverInterrupted(ctx context.Context) (int, error) {
	if err := s.claimOutbox(); err != nil {
		return 0, fmt.Errorf("store: recover interrupted sends: %w", err)
	}
	stuck, err := s.OutboxItems(ctx, OutboxSending)
	if err != nil {
		return 0, err
	}
	now := s.now()
	for _, o := range stuck {
		if o.Phase == PhaseCommitted {
			err = s.MarkUnknown(ctx, o.ID, "interrupted after the message was handed over (process ended before the server's reply was recorded)", now)
		} else {
			err = s.MarkFailed(ctx, o.ID, "interrupted before the message was handed over", now)
		}
		if err != nil {
			return 0, err
		}
	}
	return len(stuck), nil
}

// DeferAppend postpones the Sent-folder copy of a sent item (server
// unreachable) to next.
func (s *Store) DeferAppend(ctx context.Context, id int64, next time.Time, errText string) error {
	err := s.durableTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE outbox SET next_attempt_at = ?, last_error = ?, updated_at = ?
			WHERE id = ? AND state = 'sent' AND append_state = 'pending'`, ms(next), "append to Sent: "+errText, ms(s.now()), id)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: defer append of outbox item %d: %w", id, err)
	}
	return nil
}

// RefuseOutbox fails a queued or failed item that may not be sent (no
// valid approval, no transport) without it ever reaching a transport; the
// refusal is audited.
func (s *Store) RefuseOutbox(ctx context.Context, id int64, reason string) error {
	return s.outboxTx(ctx, id, "refuse", func(tx *sql.Tx, o *OutboxItem) error {
		if o.State != OutboxQueued && o.State != OutboxFailed {
			return fmt.Errorf("state %s: %w", o.State, ErrBadState)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE outbox SET state = 'failed', next_attempt_at = 0, last_error = ?, updated_at = ?
			WHERE id = ?`, "refused: "+reason, ms(s.now()), id); err != nil {
			return err
		}
		return s.appendAudit(ctx, tx, AuditEvent{TraceID: o.TraceID, Stage: "gate", Type: "gate.refused",
			Summary: "not sent: " + reason, Outcome: "suppressed", DraftID: o.DraftID, ApprovalID: o.ApprovalID, OutboxID: id})
	})
}
