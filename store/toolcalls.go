package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// agentSchema is the migration of the agent surfaces (MCP, REST): tool
// calls remember the approval and answer they produced (so a repeated
// idempotency key returns the same answer), audit events carry the
// contract's latency, tool, connector and risk level, pending approvals
// are listed by status, and open threads are paged newest first on an
// index of their own.
const agentSchema = `
ALTER TABLE tool_calls ADD COLUMN approval_id TEXT NOT NULL DEFAULT '';
ALTER TABLE tool_calls ADD COLUMN result_json TEXT NOT NULL DEFAULT '';
ALTER TABLE audit_events ADD COLUMN latency_ms INTEGER;
ALTER TABLE audit_events ADD COLUMN tool_name TEXT NOT NULL DEFAULT '';
ALTER TABLE audit_events ADD COLUMN connector_id TEXT NOT NULL DEFAULT '';
ALTER TABLE audit_events ADD COLUMN risk_level TEXT NOT NULL DEFAULT '';
CREATE INDEX approvals_status ON approvals(status, created_at);
CREATE INDEX threads_inbox_latest ON threads(latest DESC, id DESC) WHERE in_inbox = 1;
`

// ToolCallStatus is the contract's ToolCallStatus.
type ToolCallStatus string

// Tool call states.
const (
	ToolCallAttempted ToolCallStatus = "attempted"
	ToolCallSucceeded ToolCallStatus = "succeeded"
	ToolCallFailed    ToolCallStatus = "failed"
	ToolCallUnknown   ToolCallStatus = "unknown"
)

// ToolCall is the contract's ToolCall record of one call an agent surface
// (MCP, REST) or the outbox made.
type ToolCall struct {
	ID        string
	CreatedAt time.Time
	TraceID   string
	// ConnectorID names the surface or transport ("mcp", "rest", "smtp …").
	ConnectorID string
	ToolName    string
	Action      string
	// RequestHash is the hex SHA-256 of the canonical request.
	RequestHash string
	// IdempotencyKey is unique over all tool calls; never empty.
	IdempotencyKey string
	Status         ToolCallStatus
	// LatencyMS is the call's duration (nil while attempted).
	LatencyMS     *int64
	RiskLevel     string
	AutonomyLevel string
	// ApprovalID is the approval the call created ("" when none).
	ApprovalID string
	// Result is the answer given (JSON), returned again for a repeated key.
	Result json.RawMessage
}

// ErrDuplicateKey: a tool call with this idempotency key exists.
var ErrDuplicateKey = errors.New("store: idempotency key already used")

// RequestHash returns the hex SHA-256 of b (a canonical request).
func RequestHash(b []byte) string { return sha256Hex(b) }

func (s *Store) auditForCall(ctx context.Context, tx execer, tc *ToolCall, summary string) error {
	outcome := "info"
	switch tc.Status {
	case ToolCallSucceeded:
		outcome = "success"
	case ToolCallFailed:
		outcome = "failure"
	}
	return s.appendAudit(ctx, tx, AuditEvent{TraceID: tc.TraceID, Stage: "tool_call", Type: "tool_call." + string(tc.Status),
		Summary: summary, Outcome: outcome, ToolCallID: tc.ID, ApprovalID: tc.ApprovalID, LatencyMS: tc.LatencyMS,
		ToolName: tc.ToolName, ConnectorID: tc.ConnectorID, RiskLevel: tc.RiskLevel,
		Details: detailsJSON(map[string]any{"idempotency_key": tc.IdempotencyKey, "request_hash": tc.RequestHash, "action": tc.Action})})
}

// RecordToolCall stores a tool call and its audit event ("tool_call.<status>")
// in one transaction; ID, CreatedAt and (if empty) TraceID are set here.
// A key already used fails with ErrDuplicateKey and records nothing.
func (s *Store) RecordToolCall(ctx context.Context, tc *ToolCall, summary string) error {
	if tc.IdempotencyKey == "" {
		return fmt.Errorf("store: record tool call %s: idempotency key is required", tc.ToolName)
	}
	tc.ID, tc.CreatedAt = NewID(), s.now().UTC()
	if tc.TraceID == "" {
		tc.TraceID = NewID()
	}
	if tc.RiskLevel == "" {
		tc.RiskLevel = "low"
	}
	if tc.AutonomyLevel == "" {
		tc.AutonomyLevel = "gated"
	}
	if tc.Status == "" {
		tc.Status = ToolCallAttempted
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM tool_calls WHERE idempotency_key = ?`, tc.IdempotencyKey).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return ErrDuplicateKey
		}
		res := string(tc.Result)
		if _, err := tx.ExecContext(ctx, `INSERT INTO tool_calls(id, created_at, trace_id, connector_id, tool_name, action,
			request_hash, idempotency_key, status, latency_ms, risk_level, autonomy_level, approval_id, result_json)
			VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			tc.ID, ms(tc.CreatedAt), tc.TraceID, tc.ConnectorID, tc.ToolName, tc.Action, tc.RequestHash, tc.IdempotencyKey,
			string(tc.Status), tc.LatencyMS, tc.RiskLevel, tc.AutonomyLevel, tc.ApprovalID, res); err != nil {
			return err
		}
		return s.auditForCall(ctx, tx, tc, summary)
	})
	if err != nil {
		return fmt.Errorf("store: record tool call %s: %w", tc.ToolName, err)
	}
	return nil
}

// FinishToolCall settles an attempted tool call: its status, latency,
// approval and answer, with an audit event.
func (s *Store) FinishToolCall(ctx context.Context, tc *ToolCall, summary string) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE tool_calls SET status = ?, latency_ms = ?, approval_id = ?, result_json = ?
			WHERE id = ? AND status = 'attempted'`, string(tc.Status), tc.LatencyMS, tc.ApprovalID, string(tc.Result), tc.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("tool call %s is not attempted: %w", tc.ID, ErrBadState)
		}
		return s.auditForCall(ctx, tx, tc, summary)
	})
	if err != nil {
		return fmt.Errorf("store: finish tool call %s: %w", tc.ID, err)
	}
	return nil
}

const toolCallCols = `id, created_at, trace_id, connector_id, tool_name, action, request_hash, idempotency_key, status,
	latency_ms, risk_level, autonomy_level, approval_id, result_json`

func scanToolCall(r rowScanner) (*ToolCall, error) {
	var tc ToolCall
	var created int64
	var status, res string
	var lat sql.NullInt64
	if err := r.Scan(&tc.ID, &created, &tc.TraceID, &tc.ConnectorID, &tc.ToolName, &tc.Action, &tc.RequestHash,
		&tc.IdempotencyKey, &status, &lat, &tc.RiskLevel, &tc.AutonomyLevel, &tc.ApprovalID, &res); err != nil {
		return nil, err
	}
	tc.CreatedAt, tc.Status = fromMS(created), ToolCallStatus(status)
	if lat.Valid {
		v := lat.Int64
		tc.LatencyMS = &v
	}
	if res != "" {
		tc.Result = json.RawMessage(res)
	}
	return &tc, nil
}

// ToolCallByKey returns the tool call with an idempotency key (ErrNotFound).
func (s *Store) ToolCallByKey(ctx context.Context, key string) (*ToolCall, error) {
	tc, err := scanToolCall(s.r.QueryRowContext(ctx, `SELECT `+toolCallCols+` FROM tool_calls WHERE idempotency_key = ?`, key))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: tool call %q: %w", key, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: tool call %q: %w", key, err)
	}
	return tc, nil
}

// ToolCalls returns the latest tool calls, newest first (limit <= 0: 100).
func (s *Store) ToolCalls(ctx context.Context, limit int) ([]ToolCall, error) {
	if limit <= 0 {
		limit = 100
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+toolCallCols+` FROM tool_calls ORDER BY created_at DESC, rowid DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: tool calls: %w", err)
	}
	defer rows.Close()
	var out []ToolCall
	for rows.Next() {
		tc, err := scanToolCall(rows)
		if err != nil {
			return nil, fmt.Errorf("store: tool calls: %w", err)
		}
		out = append(out, *tc)
	}
	return out, rows.Err()
}

// PendingApprovalByTrace returns the pending approval of a trace (the
// approval a crashed tool call created before it was settled), or
// ErrNotFound.
func (s *Store) PendingApprovalByTrace(ctx context.Context, traceID string) (*Approval, error) {
	a, err := scanApproval(s.r.QueryRowContext(ctx, `SELECT `+approvalCols+` FROM approvals
		WHERE trace_id = ? AND status = 'pending' ORDER BY created_at DESC LIMIT 1`, traceID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: approval of trace %s: %w", traceID, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: approval of trace %s: %w", traceID, err)
	}
	return a, nil
}

// Approvals lists approvals newest first, of the given states (all when
// none; a pending approval past its expiry counts as expired), at most
// limit (<= 0: 200).
func (s *Store) Approvals(ctx context.Context, limit int, states ...ApprovalStatus) ([]Approval, error) {
	if limit <= 0 {
		limit = 200
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+approvalCols+` FROM approvals ORDER BY created_at DESC, rowid DESC`)
	if err != nil {
		return nil, fmt.Errorf("store: list approvals: %w", err)
	}
	defer rows.Close()
	now := s.now()
	var out []Approval
	for rows.Next() && len(out) < limit {
		a, err := scanApproval(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list approvals: %w", err)
		}
		if a.Status == ApprovalPending && !now.Before(a.ExpiresAt) {
			a.Status = ApprovalExpired
		}
		if len(states) > 0 && !hasStatus(states, a.Status) {
			continue
		}
		out = append(out, *a)
	}
	return out, rows.Err()
}

func hasStatus(states []ApprovalStatus, st ApprovalStatus) bool {
	for _, s := range states {
		if s == st {
			return true
		}
	}
	return false
}

// PendingApprovals counts the pending, unexpired approvals (the TUI badge).
func (s *Store) PendingApprovals(ctx context.Context) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM approvals WHERE status = 'pending' AND expires_at > ?`, ms(s.now())).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: count pending approvals: %w", err)
	}
	return n, nil
}

// SetApprovalRequest records, on a pending approval an agent asked for,
// why it is gated and how the person approves it (the message bytes and
// their hash do not change).
func (s *Store) SetApprovalRequest(ctx context.Context, id, why, howToApprove string) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE approvals SET why = ?, how_to_approve = ? WHERE id = ? AND status = 'pending'`,
			why, howToApprove, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("approval %s is not pending: %w", id, ErrApprovalNotApproved)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: approval %s: %w", id, err)
	}
	return nil
}

// OutboxByApproval returns the outbox item of an approval (ErrNotFound
// while it is not approved).
func (s *Store) OutboxByApproval(ctx context.Context, approvalID string) (*OutboxItem, error) {
	var id int64
	err := s.r.QueryRowContext(ctx, `SELECT id FROM outbox WHERE approval_id = ?`, approvalID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: outbox item of approval %s: %w", approvalID, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: outbox item of approval %s: %w", approvalID, err)
	}
	return s.OutboxItem(ctx, id)
}
