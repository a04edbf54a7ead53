package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"testing"
	"time"
)

// TestAppendAuditDefaults covers appendAudit, the one way events enter
// the audit log: the store sets ID and timestamp (from its clock),
// defaults the outcome, stage and details, and refuses an event without
// a trace id.
func TestAppendAuditDefaults(t *testing.T) {
	ctx := context.Background()
	clock := newTestClock(t0)
	s := openTestAt(t, clock)
	appendOne := func(e AuditEvent) error {
		return s.tx(ctx, func(tx *sql.Tx) error { return s.appendAudit(ctx, tx, e) })
	}
	if err := appendOne(AuditEvent{TraceID: "trace-1", Type: "x.first"}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	if err := appendOne(AuditEvent{TraceID: "trace-1", Type: "x.second", Stage: "gate", Outcome: "success",
		Details: json.RawMessage(`{"k":1}`)}); err != nil {
		t.Fatal(err)
	}
	if err := appendOne(AuditEvent{Type: "x.untraced"}); err == nil {
		t.Error("appendAudit without a trace id succeeded, want an error")
	}
	evs, err := s.AuditEvents(ctx, "trace-1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 {
		t.Fatalf("AuditEvents = %d events, want 2: %+v", len(evs), evs)
	}
	first, second := evs[0], evs[1]
	if first.ID == "" || first.ID == second.ID || first.Seq >= second.Seq {
		t.Errorf("ids %q, %q and seqs %d, %d: want distinct ids, increasing seqs", first.ID, second.ID, first.Seq, second.Seq)
	}
	if first.Type != "x.first" || first.Stage != "execute" || first.Outcome != "info" || string(first.Details) != "{}" {
		t.Errorf("first event = %+v, want stage execute, outcome info, details {}", first)
	}
	if !first.Timestamp.Equal(t0) {
		t.Errorf("first timestamp = %v, want %v (the store's clock)", first.Timestamp, t0)
	}
	if second.Stage != "gate" || second.Outcome != "success" || string(second.Details) != `{"k":1}` {
		t.Errorf("second event = %+v, want its own stage, outcome and details kept", second)
	}
	if want := t0.Add(time.Hour); !second.Timestamp.Equal(want) {
		t.Errorf("second timestamp = %v, want %v", second.Timestamp, want)
	}
}

// TestStoreClockStampsRecords checks that records the store timestamps
// take their time from Options.Now.
func TestStoreClockStampsRecords(t *testing.T) {
	ctx := context.Background()
	clock := newTestClock(t0)
	s := openTestAt(t, clock)
	d := &Draft{Body: "x"}
	if err := s.SaveDraft(ctx, d); err != nil {
		t.Fatal(err)
	}
	if !d.CreatedAt.Equal(t0) || !d.UpdatedAt.Equal(t0) {
		t.Errorf("new draft times = %v, %v, want %v", d.CreatedAt, d.UpdatedAt, t0)
	}
	clock.Advance(time.Minute)
	d.Body = "y"
	if err := s.SaveDraft(ctx, d); err != nil {
		t.Fatal(err)
	}
	got, err := s.Draft(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := t0.Add(time.Minute); !got.CreatedAt.Equal(t0) || !got.UpdatedAt.Equal(want) {
		t.Errorf("edited draft times = %v, %v, want %v, %v", got.CreatedAt, got.UpdatedAt, t0, want)
	}
	evs, err := s.AuditEvents(ctx, d.TraceID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || !evs[0].Timestamp.Equal(t0) || !evs[1].Timestamp.Equal(t0.Add(time.Minute)) {
		t.Errorf("draft audit events = %+v, want created at %v and edited a minute later", evs, t0)
	}
}
