package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ApprovalStatus is the state of an approval.
type ApprovalStatus string

// Approval states (audit-approval contract).
const (
	ApprovalPending  ApprovalStatus = "pending"
	ApprovalApproved ApprovalStatus = "approved"
	ApprovalDenied   ApprovalStatus = "denied"
	ApprovalExpired  ApprovalStatus = "expired"
)

// ApprovalWhat is the exact action an approval covers: the serialised
// message and its SMTP envelope.
type ApprovalWhat struct {
	Action       string   `json:"action"` // "send_mail"
	Account      string   `json:"account"`
	EnvelopeFrom string   `json:"envelope_from"`
	Recipients   []string `json:"rcpt_to"` // To + Cc + Bcc
	MessageID    string   `json:"message_id"`
	// Message is the exact RFC 5322 message (no Bcc header).
	Message string `json:"message"`
}

// Approval is one gate decision for one exact message.
type Approval struct {
	ID        string
	DraftID   string
	TraceID   string
	CreatedAt time.Time
	ExpiresAt time.Time
	Status    ApprovalStatus
	// RiskLevel is "low", "medium", "high" or "critical".
	RiskLevel     string
	AutonomyLevel string
	What          ApprovalWhat
	// WhatHash is the hex SHA-256 of What.Message.
	WhatHash       string
	Why            string
	HowToApprove   string
	DecisionBy     string
	DecisionAt     time.Time
	DecisionReason string
}

// CreateApproval stores a pending approval for an open draft (ID, TraceID,
// CreatedAt, Status and WhatHash are set here) and expires older pending
// approvals of the same draft.
func (s *Store) CreateApproval(ctx context.Context, a *Approval) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		d, err := getDraft(ctx, tx, a.DraftID)
		if err != nil {
			return err
		}
		if d.State != DraftOpen {
			return fmt.Errorf("draft is %s: %w", d.State, ErrNotEditable)
		}
		now := s.now().UTC()
		a.ID, a.TraceID, a.CreatedAt, a.Status = NewID(), d.TraceID, now, ApprovalPending
		a.WhatHash = sha256Hex([]byte(a.What.Message))
		if a.RiskLevel == "" {
			a.RiskLevel = "medium"
		}
		if a.AutonomyLevel == "" {
			a.AutonomyLevel = "gated"
		}
		if a.ExpiresAt.IsZero() || !a.ExpiresAt.After(now) {
			return fmt.Errorf("approval expiry %s is not in the future", a.ExpiresAt.Format(time.RFC3339))
		}
		if _, err := tx.ExecContext(ctx, `UPDATE approvals SET status = 'expired', decision_reason = 'superseded'
			WHERE draft_id = ? AND status = 'pending'`, a.DraftID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO approvals(id, draft_id, trace_id, created_at, expires_at, status, risk_level,
			autonomy_level, what_json, what_hash, why, how_to_approve) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			a.ID, a.DraftID, a.TraceID, ms(a.CreatedAt), ms(a.ExpiresAt), string(a.Status), a.RiskLevel, a.AutonomyLevel,
			mustJSON(a.What), a.WhatHash, a.Why, a.HowToApprove); err != nil {
			return err
		}
		return s.appendAudit(ctx, tx, AuditEvent{TraceID: a.TraceID, Stage: "gate", Type: "approval.requested",
			Summary: fmt.Sprintf("approval requested to send %s to %d recipient(s)", a.What.MessageID, len(a.What.Recipients)),
			Outcome: "info", DraftID: a.DraftID, ApprovalID: a.ID,
			Details: detailsJSON(map[string]any{"message_id": a.What.MessageID, "what_hash": a.WhatHash, "expires_at": a.ExpiresAt, "risk_level": a.RiskLevel, "why": a.Why})})
	})
	if err != nil {
		return fmt.Errorf("store: create approval for draft %s: %w", a.DraftID, err)
	}
	return nil
}

const approvalCols = `id, draft_id, trace_id, created_at, expires_at, status, risk_level, autonomy_level, what_json, what_hash,
	why, how_to_approve, decision_by, decision_at, decision_reason`

func scanApproval(r rowScanner) (*Approval, error) {
	var a Approval
	var created, expires, decided int64
	var status, what string
	if err := r.Scan(&a.ID, &a.DraftID, &a.TraceID, &created, &expires, &status, &a.RiskLevel, &a.AutonomyLevel, &what,
		&a.WhatHash, &a.Why, &a.HowToApprove, &a.DecisionBy, &decided, &a.DecisionReason); err != nil {
		return nil, err
	}
	a.CreatedAt, a.ExpiresAt, a.DecisionAt = fromMS(created), fromMS(expires), fromMS(decided)
	a.Status = ApprovalStatus(status)
	if err := json.Unmarshal([]byte(what), &a.What); err != nil {
		return nil, fmt.Errorf("approval %s: corrupt what: %w", a.ID, err)
	}
	return &a, nil
}

func getApproval(ctx context.Context, q querier, id string) (*Approval, error) {
	a, err := scanApproval(q.QueryRowContext(ctx, `SELECT `+approvalCols+` FROM approvals WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("approval %s: %w", id, ErrNotFound)
	}
	return a, err
}

// Approval returns one approval (ErrNotFound). A pending approval past its
// expiry is reported as expired.
func (s *Store) Approval(ctx context.Context, id string) (*Approval, error) {
	a, err := getApproval(ctx, s.r, id)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if a.Status == ApprovalPending && !s.now().Before(a.ExpiresAt) {
		a.Status = ApprovalExpired
	}
	return a, nil
}

// DenyApproval records the operator's refusal of a pending approval; the
// draft stays open.
func (s *Store) DenyApproval(ctx context.Context, id, by, reason string) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		a, err := getApproval(ctx, tx, id)
		if err != nil {
			return err
		}
		if a.Status != ApprovalPending {
			return fmt.Errorf("approval is %s: %w", a.Status, ErrApprovalNotApproved)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE approvals SET status = 'denied', decision_by = ?, decision_at = ?, decision_reason = ?
			WHERE id = ?`, by, ms(s.now()), reason, id); err != nil {
			return err
		}
		return s.appendAudit(ctx, tx, AuditEvent{TraceID: a.TraceID, Stage: "gate", Type: "approval.denied",
			Summary: "send not confirmed: " + reason, Outcome: "suppressed", DraftID: a.DraftID, ApprovalID: id})
	})
	if err != nil {
		return fmt.Errorf("store: deny approval %s: %w", id, err)
	}
	return nil
}

// ConfirmRequest is the operator's approval of a pending approval, turned
// into an outbox item in the same transaction.
type ConfirmRequest struct {
	ApprovalID string
	// By is who decided ("operator").
	By string
	// NotBefore is the end of the undo window: the outbox hands the message
	// to the transport no earlier.
	NotBefore time.Time
	// ThreadID and InReplyTo locate the original (for \Answered).
	ThreadID  int64
	InReplyTo string
	// ConnectorID names the transport (redacted URL), ToolName e.g. "smtp".
	ConnectorID, ToolName string
}

// ConfirmAndEnqueue approves a pending, unexpired approval and queues its
// exact message in one transaction: a tool call with the idempotency key
// "send_mail:<Message-ID>" and the SHA-256 of the message, the outbox row
// (Message-ID and raw bytes fixed from here on), the draft marked queued,
// and audit events. An expired approval is marked expired and refused
// (ErrApprovalExpired). Confirming an already approved and queued approval
// again, or reusing its idempotency key, returns the existing item and
// queues nothing new.
func (s *Store) ConfirmAndEnqueue(ctx context.Context, req ConfirmRequest) (*OutboxItem, error) {
	var item *OutboxItem
	expired := false
	err := s.durableTx(ctx, func(tx *sql.Tx) error { // a confirmed send must not vanish on power loss
		expired = false
		a, err := getApproval(ctx, tx, req.ApprovalID)
		if err != nil {
			return err
		}
		now := s.now().UTC()
		switch a.Status {
		case ApprovalPending:
			if !now.Before(a.ExpiresAt) {
				if _, err := tx.ExecContext(ctx, `UPDATE approvals SET status = 'expired' WHERE id = ?`, a.ID); err != nil {
					return err
				}
				if err := s.appendAudit(ctx, tx, AuditEvent{TraceID: a.TraceID, Stage: "gate", Type: "approval.expired",
					Summary: "confirmation came after the approval expired", Outcome: "suppressed", DraftID: a.DraftID, ApprovalID: a.ID}); err != nil {
					return err
				}
				expired = true // commit the expiry record, then report it
				return nil
			}
			if _, err := tx.ExecContext(ctx, `UPDATE approvals SET status = 'approved', decision_by = ?, decision_at = ?
				WHERE id = ?`, req.By, ms(now), a.ID); err != nil {
				return err
			}
			if err := s.appendAudit(ctx, tx, AuditEvent{TraceID: a.TraceID, Stage: "gate", Type: "approval.approved",
				Summary: "send confirmed by " + req.By, Outcome: "success", DraftID: a.DraftID, ApprovalID: a.ID,
				Details: detailsJSON(map[string]any{"message_id": a.What.MessageID, "what_hash": a.WhatHash})}); err != nil {
				return err
			}
		case ApprovalApproved:
			// idempotent re-confirmation: fall through to the key check
		case ApprovalExpired:
			return fmt.Errorf("approval %s: %w", a.ID, ErrApprovalExpired)
		default:
			return fmt.Errorf("approval %s is %s: %w", a.ID, a.Status, ErrApprovalNotApproved)
		}
		item, err = s.enqueue(ctx, tx, a, req, now)
		return err
	})
	if err == nil && expired {
		return nil, fmt.Errorf("store: confirm approval %s: %w", req.ApprovalID, ErrApprovalExpired)
	}
	if err != nil {
		return nil, fmt.Errorf("store: confirm approval %s: %w", req.ApprovalID, err)
	}
	return item, nil
}

// IdempotencyKey returns the idempotency key of sending the message with
// the given Message-ID.
func IdempotencyKey(messageID string) string { return "send_mail:" + messageID }

func (s *Store) enqueue(ctx context.Context, tx *sql.Tx, a *Approval, req ConfirmRequest, now time.Time) (*OutboxItem, error) {
	key := IdempotencyKey(a.What.MessageID)
	var existing int64
	err := tx.QueryRowContext(ctx, `SELECT o.id FROM outbox o JOIN tool_calls t ON t.id = o.tool_call_id
		WHERE t.idempotency_key = ?`, key).Scan(&existing)
	if err == nil {
		if err := s.appendAudit(ctx, tx, AuditEvent{TraceID: a.TraceID, Stage: "tool_call", Type: "tool_call.duplicate",
			Summary: "already queued under idempotency key " + key + "; not queued again", Outcome: "suppressed",
			DraftID: a.DraftID, ApprovalID: a.ID, OutboxID: existing}); err != nil {
			return nil, err
		}
		return getOutbox(ctx, tx, existing)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	if sha256Hex([]byte(a.What.Message)) != a.WhatHash {
		return nil, ErrIntegrity
	}
	tc := NewID()
	if _, err := tx.ExecContext(ctx, `INSERT INTO tool_calls(id, created_at, trace_id, connector_id, tool_name, action,
		request_hash, idempotency_key, status, risk_level, autonomy_level) VALUES(?, ?, ?, ?, ?, 'send_mail', ?, ?, 'attempted', ?, ?)`,
		tc, ms(now), a.TraceID, req.ConnectorID, req.ToolName, a.WhatHash, key, a.RiskLevel, a.AutonomyLevel); err != nil {
		return nil, fmt.Errorf("record tool call: %w", err)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO outbox(draft_id, approval_id, tool_call_id, trace_id, account, thread_id,
		in_reply_to, message_id, idempotency_key, envelope_from, rcpts_json, raw, state, next_attempt_at, created_at, updated_at)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?)`,
		a.DraftID, a.ID, tc, a.TraceID, a.What.Account, req.ThreadID, req.InReplyTo, a.What.MessageID, key,
		a.What.EnvelopeFrom, jsonList(a.What.Recipients), []byte(a.What.Message), ms(req.NotBefore), ms(now), ms(now))
	if err != nil {
		return nil, fmt.Errorf("queue message: %w", err)
	}
	id, _ := res.LastInsertId()
	if _, err := tx.ExecContext(ctx, `UPDATE drafts SET state = 'queued', updated_at = ? WHERE id = ?`, ms(now), a.DraftID); err != nil {
		return nil, err
	}
	if err := s.appendAudit(ctx, tx, AuditEvent{TraceID: a.TraceID, Stage: "execute", Type: "outbox.queued",
		Summary: fmt.Sprintf("queued %s for %d recipient(s), not before %s", a.What.MessageID, len(a.What.Recipients), req.NotBefore.UTC().Format(time.RFC3339)),
		Outcome: "info", DraftID: a.DraftID, ApprovalID: a.ID, ToolCallID: tc, OutboxID: id,
		Details: detailsJSON(map[string]any{"message_id": a.What.MessageID, "idempotency_key": key, "request_hash": a.WhatHash})}); err != nil {
		return nil, err
	}
	return getOutbox(ctx, tx, id)
}
