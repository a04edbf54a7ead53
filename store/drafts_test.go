package store

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"mailsift/model"
)

// queueOne stores a draft, a pending approval for raw and confirms it.
func queueOne(t *testing.T, s *Store, raw, msgID string, notBefore time.Time) (*Draft, *Approval, *OutboxItem) {
	t.Helper()
	ctx := context.Background()
	d := &Draft{ThreadID: 0, From: model.Address{Email: "me@example.com"}, To: []model.Address{{Email: "bob@example.com"}},
		Subject: "Re: x", Body: "hello there", NeedsApproval: true, Source: "template"}
	if err := s.SaveDraft(ctx, d); err != nil {
		t.Fatal(err)
	}
	a := &Approval{DraftID: d.ID, ExpiresAt: time.Now().Add(time.Minute),
		What: ApprovalWhat{Action: "send_mail", EnvelopeFrom: "me@example.com", Recipients: []string{"bob@example.com"}, MessageID: msgID, Message: raw}}
	if err := s.CreateApproval(ctx, a); err != nil {
		t.Fatal(err)
	}
	item, err := s.ConfirmAndEnqueue(ctx, ConfirmRequest{ApprovalID: a.ID, By: "operator", NotBefore: notBefore, ToolName: "send_mail"})
	if err != nil {
		t.Fatal(err)
	}
	return d, a, item
}

func TestDraftLifecycle(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if v, _ := s.SchemaVersion(ctx); v < 2 {
		t.Fatalf("schema version %d, want the drafts migration applied", v)
	}
	d, a, item := queueOne(t, s, "Subject: x\r\n\r\nhi\r\n", "id1@example.com", time.Now())
	if item.State != OutboxQueued || item.IdempotencyKey != "send_mail:id1@example.com" || string(item.Raw) != a.What.Message {
		t.Fatalf("queued item = %+v", item)
	}
	got, _ := s.Draft(ctx, d.ID)
	if got.State != DraftQueued {
		t.Errorf("draft state = %s, want queued", got.State)
	}
	d.Body = "changed"
	if err := s.SaveDraft(ctx, d); !errors.Is(err, ErrNotEditable) {
		t.Errorf("editing a queued draft = %v, want ErrNotEditable", err)
	}
	// The gate: approved, due, hashes match.
	if _, err := s.BeginSend(ctx, item.ID, time.Now().Add(-time.Hour)); !errors.Is(err, ErrBadState) {
		t.Errorf("BeginSend before due = %v", err)
	}
	ticket, err := s.BeginSend(ctx, item.ID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if tk := ticket.Item(); tk.State != OutboxSending || tk.Attempts != 1 || tk.Phase != PhaseConnecting || string(tk.Raw) != a.What.Message {
		t.Fatalf("BeginSend = %+v", tk)
	}
	if _, err := s.BeginSend(ctx, item.ID, time.Now()); !errors.Is(err, ErrBadState) {
		t.Errorf("second BeginSend while sending = %v", err)
	}
	if err := s.CancelOutbox(ctx, item.ID, "too late"); !errors.Is(err, ErrBadState) {
		t.Errorf("cancel while sending = %v", err)
	}
	// A crash after commit leaves it unknown.
	if err := s.MarkCommitted(ctx, item.ID); err != nil {
		t.Fatal(err)
	}
	if n, err := s.RecoverInterrupted(ctx); n != 1 || err != nil {
		t.Fatalf("RecoverInterrupted = %d, %v", n, err)
	}
	it, _ := s.OutboxItem(ctx, item.ID)
	if it.State != OutboxUnknown {
		t.Errorf("after crash past commit: %s, want unknown", it.State)
	}
	if err := s.MarkSent(ctx, item.ID, SentOptions{How: "found in Sent"}); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Draft(ctx, d.ID)
	it, _ = s.OutboxItem(ctx, item.ID)
	if got.State != DraftSent || it.State != OutboxSent || it.AppendState != AppendSkipped {
		t.Errorf("after MarkSent: draft %s item %s append %q", got.State, it.State, it.AppendState)
	}
	evs, _ := s.AuditEvents(ctx, d.TraceID, 0)
	if len(evs) < 7 || evs[len(evs)-1].Type != "tool_call.succeeded" {
		t.Errorf("audit = %+v", evs)
	}
}

func TestRecoverBeforeCommitIsRetryable(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	_, _, item := queueOne(t, s, "Subject: y\r\n\r\nhi\r\n", "id2@example.com", time.Now())
	if _, err := s.BeginSend(ctx, item.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	s.RecoverInterrupted(ctx)
	it, _ := s.OutboxItem(ctx, item.ID)
	if it.State != OutboxFailed || it.NextAttemptAt.IsZero() || !strings.Contains(it.LastError, "before the message was handed over") {
		t.Errorf("after crash before commit: %+v", it)
	}
	due, _ := s.DueOutbox(ctx, time.Now().Add(time.Second))
	if len(due) != 1 || due[0].ID != item.ID {
		t.Errorf("due = %+v", due)
	}
}

func TestConfirmRefusals(t *testing.T) {
	ctx := context.Background()
	clock := newTestClock(t0)
	s := openTestAt(t, clock)
	d := &Draft{To: []model.Address{{Email: "bob@example.com"}}, Body: "x"}
	if err := s.SaveDraft(ctx, d); err != nil {
		t.Fatal(err)
	}
	a := &Approval{DraftID: d.ID, ExpiresAt: clock.Now().Add(time.Minute), What: ApprovalWhat{MessageID: "e@x", Message: "m"}}
	if err := s.CreateApproval(ctx, a); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Approval(ctx, a.ID); got.Status != ApprovalPending {
		t.Errorf("status before expiry = %s, want pending", got.Status)
	}
	clock.Advance(time.Minute)
	if _, err := s.ConfirmAndEnqueue(ctx, ConfirmRequest{ApprovalID: a.ID, By: "operator"}); !errors.Is(err, ErrApprovalExpired) {
		t.Errorf("expired confirm = %v", err)
	}
	got, _ := s.Approval(ctx, a.ID)
	if got.Status != ApprovalExpired {
		t.Errorf("status = %s, want expired (recorded)", got.Status)
	}
	// Editing a draft expires its pending approval.
	a2 := &Approval{DraftID: d.ID, ExpiresAt: clock.Now().Add(time.Minute), What: ApprovalWhat{MessageID: "f@x", Message: "m"}}
	s.CreateApproval(ctx, a2)
	d.Body = "edited"
	if err := s.SaveDraft(ctx, d); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ConfirmAndEnqueue(ctx, ConfirmRequest{ApprovalID: a2.ID, By: "operator"}); !errors.Is(err, ErrApprovalExpired) {
		t.Errorf("confirm after the draft was edited = %v, want ErrApprovalExpired", err)
	}
	if items, _ := s.OutboxItems(ctx); len(items) != 0 {
		t.Errorf("queued %d items from refused approvals", len(items))
	}
}
