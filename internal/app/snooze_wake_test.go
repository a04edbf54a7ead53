package app

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"mailsift/config"
	"mailsift/internal/app/event"
	"mailsift/model"
	"mailsift/store"
)

// TestSessionWakesSnoozesAndFillsWaiting starts a session after a
// snooze's time passed (mailsift was not running): the thread comes back
// at once, marked, with a ThreadsChanged event naming it; and a thread the
// user wrote last four days ago shows in "Waiting for reply".
func TestSessionWakesSnoozesAndFillsWaiting(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	clock := &testClock{now: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)}
	me := model.Address{Email: "me@example.org"}
	st, err := store.Open(ctx, filepath.Join(dir, "m.db"), &store.Options{Principal: me, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	msgs := []*model.Message{
		{Loc: model.Location{Account: "a", Mailbox: "INBOX", Key: "1"}, MessageID: "s1@example.com",
			From: model.Address{Email: "bob@example.com"}, Subject: "Snooze me", Text: "x", HasBody: true,
			Date: clock.Now().Add(-time.Hour), ContentHash: "h1", Size: 10},
		{Loc: model.Location{Account: "a", Mailbox: "Sent", Key: "2"}, MessageID: "w1@example.com",
			From: me, To: []model.Address{{Email: "carol@example.com"}}, Subject: "Any news?", Text: "y", HasBody: true,
			Date: clock.Now().Add(-4 * 24 * time.Hour), ContentHash: "h2", Size: 10},
	}
	if err := st.PutMessages(ctx, msgs); err != nil {
		t.Fatal(err)
	}
	snoozed, _ := st.ThreadIDForMessage(ctx, "s1@example.com")
	waiting, _ := st.ThreadIDForMessage(ctx, "w1@example.com")
	if _, err := st.Snooze(ctx, []int64{snoozed}, clock.Now().Add(time.Hour), "snooze"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Hour) // mailsift was closed meanwhile

	cfg := config.Defaults()
	cfg.Principal = config.Principal{Email: me.Email}
	cfg.DataDir = dir
	cfg.Triage.Offline = true
	a := New(&cfg, st, Options{Now: clock.Now})
	s, err := a.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Wait()
	defer cancel()
	deadline := time.After(20 * time.Second)
	for woke := false; !woke; {
		select {
		case ev := <-s.Events():
			if tc, ok := ev.(event.ThreadsChanged); ok && slices.Contains(tc.IDs, snoozed) {
				woke = true
			}
		case <-deadline:
			t.Fatal("no ThreadsChanged naming the snoozed thread")
		}
	}
	ts, err := st.ThreadStatus(ctx, snoozed)
	if err != nil || ts.Status != store.StatusOpen || !ts.Returned {
		t.Errorf("status after start = %+v, %v; want open and returned", ts, err)
	}
	// While running: snoozed again, it wakes when the timer runs after
	// its time (a sync pass runs the timer too, as here).
	if _, err := s.Actions.Snooze(ctx, []int64{snoozed}, clock.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if ts, _ := st.ThreadStatus(ctx, snoozed); ts.Status != store.StatusSnoozed {
		t.Fatalf("status after Snooze = %+v", ts)
	}
	clock.Advance(2 * time.Hour)
	s.pokeTimers()
	for woke := false; !woke; {
		select {
		case ev := <-s.Events():
			if tc, ok := ev.(event.ThreadsChanged); ok && slices.Contains(tc.IDs, snoozed) {
				woke = true
			}
		case <-deadline:
			t.Fatal("no ThreadsChanged naming the thread snoozed while running")
		}
	}
	rows, err := st.ListThreads(ctx, store.SectionWaiting, 0, 10)
	if err != nil || len(rows) != 1 || rows[0].ID != waiting {
		t.Errorf("waiting for reply = %+v, %v; want thread %d", rows, err, waiting)
	}
}
