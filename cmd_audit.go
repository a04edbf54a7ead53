package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"mailsift/internal/termsafe"
	"mailsift/store"
)

// auditEventJSON is one line of `mailsift audit --json`: the contract's
// AuditEvent. Fields mailsift has no value for are null; --details adds
// mailsift's own references and details under "mailsift".
type auditEventJSON struct {
	AuditID   string `json:"audit_id"`
	Timestamp string `json:"timestamp"`
	TraceID   string `json:"trace_id"`
	Stage     string `json:"stage"`
	Refs      struct {
		EventID    *string `json:"event_id"`
		TaskID     *string `json:"task_id"`
		StepID     *string `json:"step_id"`
		ToolCallID *string `json:"tool_call_id"`
		ApprovalID *string `json:"approval_id"`
	} `json:"refs"`
	Type          string       `json:"type"`
	Summary       string       `json:"summary"`
	Outcome       string       `json:"outcome"`
	LatencyMS     *int64       `json:"latency_ms"`
	ToolName      *string      `json:"tool_name"`
	ConnectorID   *string      `json:"connector_id"`
	RiskLevel     *string      `json:"risk_level"`
	AutonomyLevel *string      `json:"autonomy_level"`
	PayloadRef    *string      `json:"payload_ref"`
	Mailsift      *auditExtras `json:"mailsift,omitempty"`
}

// auditExtras are mailsift's references beyond the contract.
type auditExtras struct {
	DraftID  string          `json:"draft_id,omitempty"`
	OutboxID int64           `json:"outbox_id,omitempty"`
	Details  json.RawMessage `json:"details"`
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// auditToJSON maps a stored event to the contract's AuditEvent.
func auditToJSON(e store.AuditEvent, details bool) auditEventJSON {
	j := auditEventJSON{AuditID: e.ID, Timestamp: e.Timestamp.UTC().Format(time.RFC3339Nano), TraceID: e.TraceID, Stage: e.Stage,
		Type: e.Type, Summary: termsafe.SanitizeLine(e.Summary), Outcome: e.Outcome, LatencyMS: e.LatencyMS,
		ToolName: optional(e.ToolName), ConnectorID: optional(e.ConnectorID), RiskLevel: optional(e.RiskLevel)}
	j.Refs.ToolCallID, j.Refs.ApprovalID = optional(e.ToolCallID), optional(e.ApprovalID)
	if details {
		j.Mailsift = &auditExtras{DraftID: e.DraftID, OutboxID: e.OutboxID, Details: e.Details}
	}
	return j
}

// cmdAudit is `mailsift audit [--json] [--trace ID] [--limit N]`: the
// append-only log of drafts, approvals and sends, oldest first.
func cmdAudit(ctx context.Context, g *globals, args []string) error {
	fset := g.flagSet("audit", "[--json [--details]] [--trace ID] [--limit N]")
	asJSON := fset.Bool("json", false, "print one JSON object per event")
	trace := fset.String("trace", "", "show only the events of this trace `ID` (one reply)")
	limit := fset.Int("limit", 200, "show the latest `N` events")
	details := fset.Bool("details", false, "with --json: add mailsift's draft, outbox and details under \"mailsift\"")
	pos, err := g.parse(fset, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("unexpected argument %q; use --trace ID to filter", pos[0])
	}
	if *limit <= 0 {
		return usageErrorf("--limit must be positive, got %d", *limit)
	}
	_, st, err := g.openExistingStore(ctx)
	if err != nil {
		return err
	}
	var evs []store.AuditEvent
	if st != nil { // no store yet: nothing was ever drafted
		defer st.Close()
		if evs, err = st.AuditEvents(ctx, *trace, *limit); err != nil {
			return err
		}
	}
	if len(evs) == 0 && !*asJSON {
		fmt.Fprintln(g.Stdout, "the audit log is empty")
		return nil
	}
	tw := tabwriter.NewWriter(g.Stdout, 0, 0, 2, ' ', 0)
	enc := newJSONLines(g.Stdout)
	if !*asJSON {
		fmt.Fprintln(tw, "TIME\tTRACE\tEVENT\tOUTCOME\tSUMMARY")
	}
	for _, e := range evs {
		if *asJSON {
			err := enc.Encode(auditToJSON(e, *details))
			if err != nil {
				return err
			}
			continue
		}
		tr := e.TraceID
		if len(tr) > 8 {
			tr = tr[:8]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Timestamp.Local().Format("2006-01-02 15:04:05"), tr, e.Type, e.Outcome, cell(e.Summary, 100))
	}
	if !*asJSON {
		return tw.Flush()
	}
	return nil
}
