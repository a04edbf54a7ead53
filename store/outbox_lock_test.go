package store

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestOutboxOneOwner opens two stores on one database, as two processes
// do (a flock taken through another open file conflicts even in one
// process): while the first sends, the second can neither settle the
// item nor send; once the first is gone the second recovers the item.
func TestOutboxOneOwner(t *testing.T) {
	ctx := context.Background()
	a := openTest(t)
	b, err := Open(ctx, a.Path(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	_, _, item := queueOne(t, a, "Subject: z\r\n\r\nhi\r\n", "id3@example.com", time.Now())
	if _, err := a.BeginSend(ctx, item.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	busy := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrOutboxBusy) || !strings.Contains(err.Error(), "process "+strconv.Itoa(os.Getpid())) ||
			!strings.Contains(err.Error(), a.Path()+".outbox-lock") {
			t.Errorf("%s while another store sends = %v, want ErrOutboxBusy naming the holder and the lock file", what, err)
		}
	}
	n, err := b.RecoverInterrupted(ctx)
	busy("RecoverInterrupted", err)
	if n != 0 {
		t.Errorf("RecoverInterrupted settled %d items of the sending store", n)
	}
	_, err = b.BeginSend(ctx, item.ID, time.Now())
	busy("BeginSend", err)
	_, err = b.HoldOutbox()
	busy("HoldOutbox", err)
	if err := a.MarkCommitted(ctx, item.ID); err != nil {
		t.Fatalf("MarkCommitted by the owner = %v", err)
	}
	if it, _ := a.OutboxItem(ctx, item.ID); it.State != OutboxSending || it.Phase != PhaseCommitted {
		t.Fatalf("item after the other store's attempts: %s/%s, want sending/committed", it.State, it.Phase)
	}

	// The owner ends without recording the outcome (as after kill -9).
	a.Close()
	if n, err := b.RecoverInterrupted(ctx); n != 1 || err != nil {
		t.Fatalf("RecoverInterrupted after the owner ended = %d, %v; want 1, nil", n, err)
	}
	if it, _ := b.OutboxItem(ctx, item.ID); it.State != OutboxUnknown {
		t.Errorf("recovered item is %s, want unknown", it.State)
	}
}

// TestHoldOutboxRelease checks that holds nest and that the last release
// frees the outbox for another store, while a claim made by a send
// without a hold stays until Close.
func TestHoldOutboxRelease(t *testing.T) {
	ctx := context.Background()
	a := openTest(t)
	b, err := Open(ctx, a.Path(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	r1, err := a.HoldOutbox()
	if err != nil {
		t.Fatal(err)
	}
	r2, err := a.HoldOutbox()
	if err != nil {
		t.Fatal(err)
	}
	r1()
	r1() // idempotent
	if _, err := b.HoldOutbox(); !errors.Is(err, ErrOutboxBusy) {
		t.Fatalf("HoldOutbox while one hold is left = %v, want ErrOutboxBusy", err)
	}
	r2()
	rb, err := b.HoldOutbox()
	if err != nil {
		t.Fatalf("HoldOutbox after the last release = %v", err)
	}
	rb()
	if _, err := a.RecoverInterrupted(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.HoldOutbox(); !errors.Is(err, ErrOutboxBusy) {
		t.Errorf("HoldOutbox after the other store recovered without a hold = %v, want ErrOutboxBusy (held until Close)", err)
	}
}
