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
	// LatencyMS is the duration of the step recorded (nil when none).
	LatencyMS *int64
	// ToolName, ConnectorID and RiskLevel are the contract's fields of the
	// tool call or approval the event is about ("" when none); reading
	// fills them from the tool call or approval when the event has none.
	ToolName, ConnectorID, RiskLevel string
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
		approval_id, tool_call_id, outbox_id, details_json, latency_ms, tool_name, connector_id, risk_level)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		NewID(), s.now().UTC().UnixMilli(), e.TraceID, e.Stage, e.Type, e.Summary, e.Outcome, e.DraftID,
		e.ApprovalID, e.ToolCallID, e.OutboxID, det, e.LatencyMS, e.ToolName, e.ConnectorID, e.RiskLevel)
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
	// Events written before these columns existed (and events about an
	// approval or a send) take them from their tool call or approval.
	q := `SELECT e.seq, e.id, e.ts, e.trace_id, e.stage, e.type, e.summary, e.outcome, e.draft_id, e.approval_id,
		e.tool_call_id, e.outbox_id, e.details_json, COALESCE(e.latency_ms, CASE WHEN e.type = 'outbox.sent' THEN t.latency_ms END),
		COALESCE(NULLIF(e.tool_name, ''), t.tool_name, ''), COALESCE(NULLIF(e.connector_id, ''), t.connector_id, ''),
		COALESCE(NULLIF(e.risk_level, ''), t.risk_level, a.risk_level, '')
		FROM (SELECT * FROM audit_events`
	var args []any
	if traceID != "" {
		q += ` WHERE trace_id = ?`
		args = append(args, traceID)
	}
	q += ` ORDER BY seq DESC LIMIT ?) e
		LEFT JOIN tool_calls t ON t.id = e.tool_call_id AND e.tool_call_id <> ''
		LEFT JOIN approvals a ON a.id = e.approval_id AND e.approval_id <> ''
		ORDER BY e.seq`
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
		var lat sql.NullInt64
		if err := rows.Scan(&e.Seq, &e.ID, &ts, &e.TraceID, &e.Stage, &e.Type, &e.Summary, &e.Outcome, &e.DraftID,
			&e.ApprovalID, &e.ToolCallID, &e.OutboxID, &det, &lat, &e.ToolName, &e.ConnectorID, &e.RiskLevel); err != nil {
			return nil, fmt.Errorf("store: read audit log: %w", err)
		}
		e.Timestamp = fromMS(ts)
		if lat.Valid {
			v := lat.Int64
			e.LatencyMS = &v
		}
		e.Details = json.RawMessage(det)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: read audit log: %w", err)
	}
	return out, nil
}
