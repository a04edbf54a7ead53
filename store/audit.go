package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// AuditEvent is one append-only audit record (audit-approval contract):
// every step of a reply (draft created, edited, approval requested,
// approved, denied, queued, send attempted, sent, failed, unknown,
// appended to Sent, cancelled, discarded) with one trace id per reply.
// Details never hold credentials or message bodies.
type AuditEvent struct {
	ID string
	// Seq orders events (monotonic).
	Seq int64
	// Timestamp is set by the store, never by the caller.
	Timestamp time.Time
	TraceID   string
	// Stage is the contract's pipeline stage: "operator", "gate", "tool_call", "execute".
	Stage string
	// Type is e.g. "draft.created", "tool_call.succeeded".
	Type    string
	Summary string
	// Outcome is "success", "failure", "suppressed" or "info".
	Outcome    string
	DraftID    string
	ApprovalID string
	ToolCallID string
	OutboxID   int64
	// Details is a JSON object.
	Details json.RawMessage
}

func detailsJSON(m map[string]any) json.RawMessage {
	b, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage("{}")
	}
	return b
}

type execer interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
}

// appendAudit appends one event inside the caller's transaction tx; the
// store sets its ID and timestamp and defaults its outcome ("info") and
// stage ("execute"). An event without a trace id is refused.
func (s *Store) appendAudit(ctx context.Context, tx execer, e AuditEvent) error {
	if e.TraceID == "" {
		return fmt.Errorf("audit event %q without trace id", e.Type)
	}
	if e.Outcome == "" {
		e.Outcome = "info"
	}
	if e.Stage == "" {
		e.Stage = "execute"
	}
	det := string(e.Details)
	if det == "" || det == "null" {
		det = "{}"
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO audit_events(id, ts, trace_id, stage, type, summary, outcome, draft_id,
		approval_id, tool_call_id, outbox_id, details_json) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		NewID(), s.now().UTC().UnixMilli(), e.TraceID, e.Stage, e.Type, e.Summary, e.Outcome, e.DraftID,
		e.ApprovalID, e.ToolCallID, e.OutboxID, det)
	if err != nil {
		return fmt.Errorf("append audit event %q: %w", e.Type, err)
	}
	return nil
}

// AuditEvents returns audit events oldest first: of one trace when traceID
// is set, else the latest limit events (limit <= 0 means 500).
func (s *Store) AuditEvents(ctx context.Context, traceID string, limit int) ([]AuditEvent, error) {
	if limit <= 0 {
		limit = 500
	}
	q := `SELECT seq, id, ts, trace_id, stage, type, summary, outcome, draft_id, approval_id, tool_call_id, outbox_id, details_json
		FROM (SELECT * FROM audit_events`
	var args []any
	if traceID != "" {
		q += ` WHERE trace_id = ?`
		args = append(args, traceID)
	}
	q += ` ORDER BY seq DESC LIMIT ?) ORDER BY seq`
	args = append(args, limit)
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: read audit log: %w", err)
	}
	defer rows.Close()
	var out []AuditEvent
	for rows.Next() {
		var e AuditEvent
		var ts int64
		var det string
		if err := rows.Scan(&e.Seq, &e.ID, &ts, &e.TraceID, &e.Stage, &e.Type, &e.Summary, &e.Outcome, &e.DraftID,
			&e.ApprovalID, &e.ToolCallID, &e.OutboxID, &det); err != nil {
			return nil, fmt.Errorf("store: read audit log: %w", err)
		}
		e.Timestamp = fromMS(ts)
		e.Details = json.RawMessage(det)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: read audit log: %w", err)
	}
	return out, nil
}
