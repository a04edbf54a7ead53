package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"mailsift/model"
	"mailsift/model/contract"
)

// TestBucketMoveUndoAcrossRestart moves a triaged thread with the 1–4
// keys' action twice, undoes one move, reopens the store and undoes the
// other: each undo puts the previous override back (the earlier move's,
// then none: the thread is in triage's bucket again) and hands back what
// the caller learned of the undone move.
func TestBucketMoveUndoAcrossRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	opts := &Options{Principal: model.Address{Email: "me@example.com"}}
	s, err := Open(ctx, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	put(t, s, mkMsg("a@x", "Server down", at(time.Hour)), mkMsg("b@x", "Other", at(2*time.Hour)))
	id := threadOf(t, s, "a@x")
	if err := s.SaveTriage(ctx, triageRec(t, s, id, "k", contract.CategoryUrgent, false)); err != nil {
		t.Fatal(err)
	}
	section := func(want Section, wantOverride string) {
		t.Helper()
		ts, err := s.ThreadSummaryByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if ts.Section != want || ts.Override != wantOverride {
			t.Errorf("thread in %q with override %q, want %q with %q", ts.Section, ts.Override, want, wantOverride)
		}
		checkSectionCounts(t, s)
	}
	section(SectionUrgent, "")

	res, err := s.SetBucket(ctx, BucketRequest{Label: "move 1 thread to low priority", Threads: []int64{id},
		Category: contract.CategoryLowPriority, Learned: map[int64]string{id: "first"}})
	if err != nil || res.Threads != 1 || res.ActionID == 0 {
		t.Fatalf("SetBucket = %+v, %v; want 1 thread on the stack", res, err)
	}
	section(SectionLowPriority, contract.CategoryLowPriority)
	if _, err := s.SetBucket(ctx, BucketRequest{Label: "move 1 thread to actionable", Threads: []int64{id},
		Category: contract.CategoryActionable, Learned: map[int64]string{id: "second"}}); err != nil {
		t.Fatal(err)
	}
	section(SectionActionable, contract.CategoryActionable)
	if l, _ := s.LastAction(ctx); l != "move 1 thread to actionable" {
		t.Errorf("LastAction = %q", l)
	}

	u, err := s.Undo(ctx)
	if err != nil || u.Kind != KindBucket || u.Label != "move 1 thread to actionable" {
		t.Fatalf("Undo = %+v, %v", u, err)
	}
	if len(u.Overrides) != 1 || u.Overrides[0] != (UndoneOverride{Thread: id, Category: contract.CategoryLowPriority, Learned: "second"}) {
		t.Errorf("Undo overrides = %+v, want the thread back to low priority, learned %q", u.Overrides, "second")
	}
	section(SectionLowPriority, contract.CategoryLowPriority)

	// Restart: the stack lives in the store.
	s.Close()
	if s, err = Open(ctx, path, opts); err != nil {
		t.Fatal(err)
	}
	u, err = s.Undo(ctx)
	if err != nil || u.Kind != KindBucket || u.Label != "move 1 thread to low priority" {
		t.Fatalf("Undo after restart = %+v, %v", u, err)
	}
	if len(u.Overrides) != 1 || u.Overrides[0] != (UndoneOverride{Thread: id, Category: "", Learned: "first"}) {
		t.Errorf("Undo overrides after restart = %+v, want no override, learned %q", u.Overrides, "first")
	}
	section(SectionUrgent, "")
	if u, err := s.Undo(ctx); err != nil || u.Label != "" {
		t.Errorf("third Undo = %+v, %v; want nothing left", u, err)
	}
}

// TestBucketMoveRejects: an unknown category or thread changes nothing
// and puts nothing on the stack.
func TestBucketMoveRejects(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	put(t, s, mkMsg("a@x", "Server down"))
	id := threadOf(t, s, "a@x")
	if _, err := s.SetBucket(ctx, BucketRequest{Label: "x", Threads: []int64{id}, Category: "bogus"}); err == nil {
		t.Error("SetBucket(bogus) succeeded")
	}
	if _, err := s.SetBucket(ctx, BucketRequest{Label: "x", Threads: []int64{id, 9999}, Category: contract.CategoryUrgent}); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetBucket with a missing thread: err = %v, want ErrNotFound", err)
	}
	if ts, _ := s.ThreadSummaryByID(ctx, id); ts.Override != "" {
		t.Errorf("a failed move left override %q", ts.Override)
	}
	if l, _ := s.LastAction(ctx); l != "" {
		t.Errorf("a failed move is on the stack: %q", l)
	}
}
