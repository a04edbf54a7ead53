package store

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"
)

// TestInspectHealth checks that Inspect reports the schema version and
// the outbox items that may need attention, leaving sent ones out, and
// changes nothing: the version of a store ahead of this build is read,
// not refused.
func TestInspectHealth(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	_, _, sending := queueOne(t, s, "Subject: a\r\n\r\nhi\r\n", "a@example.com", time.Now())
	_, _, sent := queueOne(t, s, "Subject: b\r\n\r\nhi\r\n", "b@example.com", time.Now())
	for _, id := range []int64{sending.ID, sent.ID} {
		if _, err := s.BeginSend(ctx, id, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.MarkCommitted(ctx, sending.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkSent(ctx, sent.ID, SentOptions{}); err != nil {
		t.Fatal(err)
	}
	h, err := Inspect(ctx, s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if h.SchemaVersion != SchemaVersionWanted() || !h.HasOutbox {
		t.Errorf("Inspect = version %d, outbox %v; want %d, true", h.SchemaVersion, h.HasOutbox, SchemaVersionWanted())
	}
	if len(h.Outbox) != 1 || h.Outbox[0].ID != sending.ID || h.Outbox[0].State != OutboxSending || h.Outbox[0].Phase != PhaseCommitted {
		t.Errorf("Inspect outbox = %+v, want only item %d sending/committed", h.Outbox, sending.ID)
	}
	if _, err := s.w.ExecContext(ctx, "PRAGMA user_version = 999"); err != nil {
		t.Fatal(err)
	}
	if h, err := Inspect(ctx, s.Path()); err != nil || h.SchemaVersion != 999 {
		t.Errorf("Inspect of a newer store = %+v, %v; want version 999", h, err)
	}
}

// TestProbeOutboxLock checks the three states of the lock file: absent,
// held by another Store (which conflicts like another process), and left
// behind by a holder that let go; the probe takes nothing and writes
// nothing.
func TestProbeOutboxLock(t *testing.T) {
	ctx := context.Background()
	a := openTest(t)
	st, err := ProbeOutboxLock(a.Path())
	if err != nil || st.Exists || st.Held {
		t.Fatalf("ProbeOutboxLock before any send = %+v, %v; want no file", st, err)
	}
	if _, err := os.Stat(st.Path); !os.IsNotExist(err) {
		t.Errorf("the probe created %s", st.Path)
	}
	release, err := a.HoldOutbox()
	if err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(os.Getpid())
	st, err = ProbeOutboxLock(a.Path())
	if err != nil || !st.Held || st.Holder != pid {
		t.Fatalf("ProbeOutboxLock while held = %+v, %v; want held by %s", st, err, pid)
	}
	// The probe did not take the lock from the holder.
	b, err := Open(ctx, a.Path(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.HoldOutbox(); err == nil {
		t.Fatal("a second store took the outbox while the first held it")
	}
	release()
	st, err = ProbeOutboxLock(a.Path())
	if err != nil || !st.Exists || st.Held || st.Holder != pid {
		t.Fatalf("ProbeOutboxLock after release = %+v, %v; want a free file naming the last holder", st, err)
	}
	if rel, err := b.HoldOutbox(); err != nil {
		t.Fatalf("the probe kept the lock: %v", err)
	} else {
		rel()
	}
}
