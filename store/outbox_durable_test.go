package store

import (
	"context"
	"testing"
	"time"
)

// TestOutboxWritesAreDurable checks that every outbox state change
// (confirm and enqueue, begin send, committed, sent, failed, unknown,
// appended, cancelled, retried) commits with synchronous=FULL, so a power
// loss cannot undo a "sent" (and send again), while the mirror's writes
// stay NORMAL. Temporary triggers on the single writer connection record
// the setting each write ran under.
func TestOutboxWritesAreDurable(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	for _, q := range []string{
		`CREATE TEMP TABLE seen(tbl TEXT, op TEXT, sync INTEGER)`,
		`CREATE TEMP TRIGGER seen_outbox_ins AFTER INSERT ON main.outbox BEGIN
			INSERT INTO seen SELECT 'outbox', 'insert', synchronous FROM pragma_synchronous; END`,
		`CREATE TEMP TRIGGER seen_outbox_upd AFTER UPDATE ON main.outbox BEGIN
			INSERT INTO seen SELECT 'outbox', 'update ' || NEW.state || '/' || NEW.phase, synchronous FROM pragma_synchronous; END`,
		`CREATE TEMP TRIGGER seen_messages AFTER INSERT ON main.messages BEGIN
			INSERT INTO seen SELECT 'messages', 'insert', synchronous FROM pragma_synchronous; END`,
	} {
		if _, err := s.w.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	_, _, item := queueOne(t, s, "Subject: d\r\n\r\nhi\r\n", "durable@example.com", time.Now())
	step := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	_, err := s.BeginSend(ctx, item.ID, time.Now())
	step("BeginSend", err)
	step("MarkCommitted", s.MarkCommitted(ctx, item.ID))
	step("MarkUnknown", s.MarkUnknown(ctx, item.ID, "dropped", time.Time{}))
	step("RetryOutbox", s.RetryOutbox(ctx, item.ID))
	step("MarkFailed", s.MarkFailed(ctx, item.ID, "refused", time.Now()))
	_, err = s.BeginSend(ctx, item.ID, time.Now())
	step("BeginSend again", err)
	step("MarkSent", s.MarkSent(ctx, item.ID, SentOptions{AppendToSent: true}))
	step("DeferAppend", s.DeferAppend(ctx, item.ID, time.Now(), "offline"))
	step("MarkAppended", s.MarkAppended(ctx, item.ID, "Sent", 7, false, ""))
	_, _, other := queueOne(t, s, "Subject: e\r\n\r\nhi\r\n", "durable2@example.com", time.Now().Add(time.Hour))
	step("CancelOutbox", s.CancelOutbox(ctx, other.ID, "undo"))
	put(t, s, mkMsg("mirror@example.com", "mirrored"))

	rows, err := s.w.QueryContext(ctx, `SELECT tbl, op, sync FROM seen`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var tbl, op string
		var sync int
		if err := rows.Scan(&tbl, &op, &sync); err != nil {
			t.Fatal(err)
		}
		n++
		want := 2 // FULL
		if tbl == "messages" {
			want = 1 // NORMAL
		}
		if sync != want {
			t.Errorf("%s %s ran with synchronous=%d, want %d", tbl, op, sync, want)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 12 {
		t.Errorf("recorded %d writes, want every outbox change and the mirrored message", n)
	}
}
