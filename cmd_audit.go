package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"mailsift/store"
)

// auditEventJSON is one line of `mailsift audit --json`.
type auditEventJSON struct {
	AuditID    string          `json:"audit_id"`
	Timestamp  string          `json:"timestamp"`
	TraceID    string          `json:"trace_id"`
	Stage      string          `json:"stage"`
	Type       string          `json:"type"`
	Summary    string          `json:"summary"`
	Outcome    string          `json:"outcome"`
	DraftID    string          `json:"draft_id,omitempty"`
	ApprovalID string          `json:"approval_id,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	OutboxID   int64           `json:"outbox_id,omitempty"`
	Details    json.RawMessage `json:"details"`
}

// cmdAudit is `mailsift audit [--json] [--trace ID] [--limit N]`: the
// append-only log of drafts, approvals and sends, oldest first.
func cmdAudit(ctx context.Context, g *globals, args []string) error {
	fset := g.flagSet("audit", "[--json] [--trace ID] [--limit N]")
	asJSON := fset.Bool("json", false, "print one JSON object per event")
	trace := fset.String("trace", "", "show only the events of this trace `ID` (one reply)")
	limit := fset.Int("limit", 200, "show the latest `N` events")
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
			err := enc.Encode(auditEventJSON{AuditID: e.ID, Timestamp: e.Timestamp.Format(time.RFC3339Nano), TraceID: e.TraceID,
				Stage: e.Stage, Type: e.Type, Summary: e.Summary, Outcome: e.Outcome, DraftID: e.DraftID, ApprovalID: e.ApprovalID,
				ToolCallID: e.ToolCallID, OutboxID: e.OutboxID, Details: e.Details})
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
