package app

import (
	"context"
	"path/filepath"
	"testing"

	"mailsift/model/contract"
	"mailsift/store"
	"mailsift/triage"
)

// correctionOf returns the learner's live correction of thread root
// Message-ID mid (ok false: none).
func correctionOf(a *App, mid string) (triage.Correction, bool) {
	for _, c := range a.Learning().Learner.Corrections() {
		if c.Thread == mid {
			return c, true
		}
	}
	return triage.Correction{}, false
}

// TestUndoBucketMoveTakesLearningBack moves threads with the 1–4 keys'
// path (Mail.SetOverride) and undoes the moves with Actions.Undo (the u
// key): each undo puts the previous override back in the store and takes
// the move's correction back, so the learner counts the thread where it
// was before — the earlier move, or nothing — also after a restart (a new
// store handle and a new app reading the corrections file).
func TestUndoBucketMoveTakesLearningBack(t *testing.T) {
	ctx := context.Background()
	dir, cfg, st, ids := learnSetup(t)
	a := New(cfg, st, Options{})
	mail, acts := a.Mail(), a.Actions(nil)
	override := func(st *store.Store, id int64) string {
		t.Helper()
		ts, err := st.ThreadSummaryByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return ts.Override
	}
	lowFor := func(a *App, st *store.Store, id int64) bool {
		th, err := st.Thread(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return a.Analyzer().Deterministic(th.Messages, a.Principal()).Result.Category == contract.CategoryLowPriority
	}

	// w1: low priority, then urgent; undo goes back to the first move.
	if err := mail.SetOverride(ctx, ids["w1@x"], contract.CategoryLowPriority); err != nil {
		t.Fatal(err)
	}
	if err := mail.SetOverride(ctx, ids["w1@x"], contract.CategoryUrgent); err != nil {
		t.Fatal(err)
	}
	if c, ok := correctionOf(a, "w1@x"); !ok || c.Category != contract.CategoryUrgent {
		t.Fatalf("after two moves the correction is %+v (%v), want urgent", c, ok)
	}
	note, err := acts.Undo(ctx)
	if err != nil || note != "undone: move 1 thread to urgent" {
		t.Fatalf("Undo = %q, %v", note, err)
	}
	if got := override(st, ids["w1@x"]); got != contract.CategoryLowPriority {
		t.Errorf("override after undo = %q, want low priority", got)
	}
	if c, ok := correctionOf(a, "w1@x"); !ok || c.Category != contract.CategoryLowPriority {
		t.Errorf("after undoing the second move the correction is %+v (%v), want the first move's low priority", c, ok)
	}

	// w2 to low priority too: the sender's third thread follows.
	if err := mail.SetOverride(ctx, ids["w2@x"], contract.CategoryLowPriority); err != nil {
		t.Fatal(err)
	}
	if !lowFor(a, st, ids["w3@x"]) {
		t.Fatal("two moves of the sender's threads did not move its third thread; the test needs that")
	}

	// Restart, then undo w2's move: the override and the correction go.
	st.Close()
	st2, err := store.Open(ctx, filepath.Join(dir, "mailsift.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	a2 := New(cfg, st2, Options{})
	if _, ok := correctionOf(a2, "w2@x"); !ok {
		t.Fatal("the corrections file lost w2's move")
	}
	if note, err := a2.Actions(nil).Undo(ctx); err != nil || note != "undone: move 1 thread to low priority" {
		t.Fatalf("Undo after restart = %q, %v", note, err)
	}
	if got := override(st2, ids["w2@x"]); got != "" {
		t.Errorf("override after undo = %q, want none", got)
	}
	if c, ok := correctionOf(a2, "w2@x"); ok {
		t.Errorf("the undone move's correction is still there: %+v", c)
	}
	if lowFor(a2, st2, ids["w3@x"]) {
		t.Error("the sender's third thread still follows an undone move")
	}
	// A fresh load of the file agrees (the undo is written, not only in memory).
	cs, err := a2.Learning().Log.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Thread == "w2@x" {
			t.Errorf("corrections file still has w2's move: %+v", c)
		}
	}

	// Undo the first move of w1 (now the newest left on the stack is
	// w1's low priority move).
	if note, err := a2.Actions(nil).Undo(ctx); err != nil || note != "undone: move 1 thread to low priority" {
		t.Fatalf("third Undo = %q, %v", note, err)
	}
	if c, ok := correctionOf(a2, "w1@x"); ok {
		t.Errorf("w1 keeps a correction after both moves were undone: %+v", c)
	}
}

// TestUndoClearedBucketRelearns: clearing an override (app layer only)
// is undoable too; its undo brings the override and the correction back.
func TestUndoClearedBucketRelearns(t *testing.T) {
	ctx := context.Background()
	_, cfg, st, ids := learnSetup(t)
	defer st.Close()
	a := New(cfg, st, Options{})
	mail := a.Mail()
	id := ids["o1@x"]
	if err := mail.SetOverride(ctx, id, contract.CategoryInformational); err != nil {
		t.Fatal(err)
	}
	if note, err := mail.MoveToBucket(ctx, []int64{id}, ""); err != nil || note != "cleared the bucket of 1 thread (u undoes)" {
		t.Fatalf("clear = %q, %v", note, err)
	}
	if _, ok := correctionOf(a, "o1@x"); ok {
		t.Fatal("clearing kept the correction")
	}
	if note, err := a.Actions(nil).Undo(ctx); err != nil || note != "undone: clear the bucket of 1 thread" {
		t.Fatalf("Undo = %q, %v", note, err)
	}
	if ts, _ := st.ThreadSummaryByID(ctx, id); ts.Override != contract.CategoryInformational {
		t.Errorf("override after undoing the clear = %q", ts.Override)
	}
	if c, ok := correctionOf(a, "o1@x"); !ok || c.Category != contract.CategoryInformational {
		t.Errorf("correction after undoing the clear = %+v (%v)", c, ok)
	}
}

// TestFailedBucketMoveLearnsNothing: a move the store refuses (an
// unknown category) leaves no correction behind.
func TestFailedBucketMoveLearnsNothing(t *testing.T) {
	ctx := context.Background()
	_, cfg, st, ids := learnSetup(t)
	defer st.Close()
	a := New(cfg, st, Options{})
	if err := a.Mail().SetOverride(ctx, ids["o1@x"], "bogus"); err == nil {
		t.Fatal("an unknown bucket was accepted")
	}
	if c, ok := correctionOf(a, "o1@x"); ok {
		t.Errorf("a refused move was learned: %+v", c)
	}
}
