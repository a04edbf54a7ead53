package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"mailsift/model"
)

// archiveDest moves inbox copies to Archive.
func archiveDest(_, _ string, role model.Role) (string, model.Role) {
	if role == model.RoleInbox {
		return "Archive", model.RoleArchive
	}
	return "", ""
}

func sectionTotal(t *testing.T, s *Store) int {
	t.Helper()
	cm, err := s.SectionCounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sec := range Sections() {
		n += cm[sec]
	}
	return n
}

func locationsOf(t *testing.T, s *Store, mid string) []model.Location {
	t.Helper()
	rows, err := s.r.QueryContext(context.Background(), `SELECT l.account, l.mailbox, l.key, l.uid FROM locations l
		JOIN messages m ON m.id = l.message WHERE m.message_id = ? ORDER BY l.mailbox`, mid)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []model.Location
	for rows.Next() {
		var l model.Location
		var uid int64
		if err := rows.Scan(&l.Account, &l.Mailbox, &l.Key, &uid); err != nil {
			t.Fatal(err)
		}
		l.UID = uint32(uid)
		out = append(out, l)
	}
	return out
}

func TestArchiveQueuedThenAppliedThenUndone(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	put(t, s, mkMsg("a1", "first"), mkMsg("b1", "second", at(time.Hour)))
	if err := s.SetMailbox(ctx, model.Mailbox{Account: "acct", Name: "Archive", Role: model.RoleArchive}); err != nil {
		t.Fatal(err)
	}
	ta := threadOf(t, s, "a1")
	res, err := s.MoveThreads(ctx, MoveRequest{Kind: "archive", Label: "archive 1 thread", Threads: []int64{ta}, Dest: archiveDest})
	if err != nil {
		t.Fatal(err)
	}
	if res.Threads != 1 || res.Copies != 1 || res.ActionID == 0 {
		t.Fatalf("MoveThreads = %+v, want 1 thread, 1 copy, an action id", res)
	}
	if n := sectionTotal(t, s); n != 1 {
		t.Errorf("sections hold %d threads after archiving one of two, want 1", n)
	}
	checkSectionCounts(t, s)
	if st, _ := s.ThreadStatus(ctx, ta); st.Status != StatusClosed {
		t.Errorf("status after archive = %q, want closed", st.Status)
	}
	pend, err := s.PendingMoves(ctx, "acct", 0)
	if err != nil || len(pend) != 1 {
		t.Fatalf("PendingMoves = %v, %v; want one", pend, err)
	}
	if p := pend[0]; p.From.Mailbox != "INBOX" || p.From.Key != "a1" || p.To != "Archive" || p.ToRole != model.RoleArchive {
		t.Errorf("pending move = %+v, want INBOX/a1 → Archive", p)
	}
	if locs := locationsOf(t, s, "a1"); len(locs) != 1 || locs[0].Mailbox != "Archive" || !IsPlaceholderKey(locs[0].Key) {
		t.Errorf("locations while queued = %+v, want one placeholder in Archive", locs)
	}
	// The source applies it: the copy is Archive/UID 7.
	if err := s.AckMoves(ctx, []model.MoveResult{{ID: pend[0].ID, UID: 7}}); err != nil {
		t.Fatal(err)
	}
	if locs := locationsOf(t, s, "a1"); len(locs) != 1 || locs[0].Mailbox != "Archive" || locs[0].Key != "7" || locs[0].UID != 7 {
		t.Errorf("locations after ack = %+v, want Archive/7", locs)
	}
	if p, _ := s.PendingMoves(ctx, "acct", 0); len(p) != 0 {
		t.Errorf("pending after ack = %+v", p)
	}
	// Undo after it was applied: a move back is queued.
	u, err := s.Undo(ctx)
	if err != nil || u.Label != "archive 1 thread" || u.Missing != 0 {
		t.Fatalf("Undo = %+v, %v", u, err)
	}
	if n := sectionTotal(t, s); n != 2 {
		t.Errorf("sections hold %d threads after undo, want 2", n)
	}
	pend, _ = s.PendingMoves(ctx, "acct", 0)
	if len(pend) != 1 || pend[0].From.Mailbox != "Archive" || pend[0].From.UID != 7 || pend[0].To != "INBOX" {
		t.Errorf("pending after undo = %+v, want Archive/7 → INBOX", pend)
	}
	checkSectionCounts(t, s)
	// Nothing left to undo.
	if u, err := s.Undo(ctx); err != nil || u.Label != "" {
		t.Errorf("second Undo = %+v, %v; want nothing", u, err)
	}
}

func TestUndoWhileQueuedAfterRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	opts := &Options{Principal: model.Address{Email: "me@example.com"}}
	s, err := Open(ctx, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	m := mkMsg("a1", "first")
	m.Loc.UID = 41
	m.Loc.Key = "41"
	put(t, s, m)
	id := threadOf(t, s, "a1")
	if _, err := s.MoveThreads(ctx, MoveRequest{Kind: "archive", Label: "archive", Threads: []int64{id}, Dest: archiveDest}); err != nil {
		t.Fatal(err)
	}
	// A flag change made on the moved copy waits for the move.
	if _, err := s.SetThreadsFlag(ctx, FlagRequest{Kind: "star", Label: "star", Threads: []int64{id}, Flag: model.FlagFlagged, Set: true}); err != nil {
		t.Fatal(err)
	}
	if pf, _ := s.PendingFlagChanges(ctx, "acct", 0); len(pf) != 0 {
		t.Errorf("flag changes on a queued move's placeholder are pushed: %+v", pf)
	}
	s.Close()
	s, err = Open(ctx, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if u, err := s.Undo(ctx); err != nil || u.Kind != "star" {
		t.Fatalf("Undo star after restart = %+v, %v", u, err)
	}
	if u, err := s.Undo(ctx); err != nil || u.Kind != "archive" {
		t.Fatalf("Undo archive after restart = %+v, %v", u, err)
	}
	if p, _ := s.PendingMoves(ctx, "acct", 0); len(p) != 0 {
		t.Errorf("undoing a queued move left %+v queued, want it cancelled", p)
	}
	if locs := locationsOf(t, s, "a1"); len(locs) != 1 || locs[0].Mailbox != "INBOX" || locs[0].Key != "41" || locs[0].UID != 41 {
		t.Errorf("locations after undo = %+v, want INBOX/41 back", locs)
	}
	checkSectionCounts(t, s)
}

func TestSpamMarksAndKeywords(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	m := mkMsg("s1", "win money", from("Spammer", "Spam@Bad.example"))
	m.Headers = map[string][]string{"List-Id": {"<offers.bad.example>"}}
	m.Loc.UID, m.Loc.Key = 3, "3"
	put(t, s, m)
	id := threadOf(t, s, "s1")
	yes := true
	res, err := s.MoveThreads(ctx, MoveRequest{Kind: "spam", Label: "spam", Threads: []int64{id}, Spam: &yes,
		SetKeyword: "$Junk", ClearKeyword: "$NotJunk",
		Dest: func(_, _ string, role model.Role) (string, model.Role) {
			if role == model.RoleJunk {
				return "", ""
			}
			return "Junk", model.RoleJunk
		}})
	if err != nil || res.Copies != 1 {
		t.Fatalf("spam = %+v, %v", res, err)
	}
	pf, _ := s.PendingFlagChanges(ctx, "acct", 0)
	if len(pf) != 1 || pf[0].Change.Flag != "$Junk" || !pf[0].Change.Set || pf[0].Change.Loc.Mailbox != "INBOX" || pf[0].Change.Loc.UID != 3 {
		t.Errorf("pending flags = %+v, want $Junk on INBOX/3 (before the move)", pf)
	}
	marks, err := s.SpamMarks(ctx, 0)
	if err != nil || len(marks) != 1 {
		t.Fatalf("SpamMarks = %+v, %v", marks, err)
	}
	if mk := marks[0]; mk.ThreadID != id || mk.Sender != "spam@bad.example" || mk.ListID != "<offers.bad.example>" || !mk.Spam {
		t.Errorf("mark = %+v", mk)
	}
	if _, err := s.Undo(ctx); err != nil {
		t.Fatal(err)
	}
	if marks, _ := s.SpamMarks(ctx, 0); len(marks) != 0 {
		t.Errorf("marks after undo = %+v, want none", marks)
	}
	pf, _ = s.PendingFlagChanges(ctx, "acct", 0)
	if len(pf) != 1 || pf[0].Change.Set {
		t.Errorf("pending flags after undo = %+v, want $Junk cleared", pf)
	}
}

func TestSnoozeWakes(t *testing.T) {
	ctx := context.Background()
	clk := newTestClock(t0.Add(48 * time.Hour))
	s := openTestAt(t, clk)
	put(t, s, mkMsg("a1", "later"), mkMsg("b1", "other", at(time.Minute)))
	id := threadOf(t, s, "a1")
	until := clk.Now().Add(3 * time.Hour)
	if _, err := s.Snooze(ctx, []int64{id}, until, "snooze"); err != nil {
		t.Fatal(err)
	}
	if n := sectionTotal(t, s); n != 1 {
		t.Errorf("sections hold %d threads while one of two is snoozed, want 1", n)
	}
	st, _ := s.ThreadStatus(ctx, id)
	if st.Status != StatusSnoozed || !st.Until.Equal(until.Truncate(time.Second)) {
		t.Errorf("status = %+v, want snoozed until %v", st, until)
	}
	if w, ok, _ := s.NextWake(ctx); !ok || !w.Equal(until.Truncate(time.Second)) {
		t.Errorf("NextWake = %v %v", w, ok)
	}
	if woke, _ := s.WakeSnoozed(ctx); len(woke) != 0 {
		t.Errorf("woke %v before the time", woke)
	}
	clk.Advance(3 * time.Hour)
	woke, err := s.WakeSnoozed(ctx)
	if err != nil || len(woke) != 1 || woke[0] != id {
		t.Fatalf("WakeSnoozed = %v, %v", woke, err)
	}
	if n := sectionTotal(t, s); n != 2 {
		t.Errorf("sections hold %d threads after the wake, want 2", n)
	}
	ret, _ := s.ReturnedThreads(ctx)
	if !ret[id] {
		t.Errorf("returned threads %v lack %d", ret, id)
	}
	if st, _ := s.ThreadStatus(ctx, id); st.Status != StatusOpen || !st.Returned {
		t.Errorf("status after wake = %+v", st)
	}
	if err := s.SeenReturned(ctx, id); err != nil {
		t.Fatal(err)
	}
	if ret, _ := s.ReturnedThreads(ctx); ret[id] {
		t.Error("mark stays after SeenReturned")
	}
	checkSectionCounts(t, s)
}

func TestWaitingForReply(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	put(t, s, mkMsg("q1", "question", from("Alice", "alice@example.com")),
		mkMsg("q2", "Re: question", inReplyTo("q1"), from("Me", "me@example.com"), inMailbox("Sent"), at(time.Hour)))
	id := threadOf(t, s, "q1")
	if err := s.RefreshWaiting(ctx, t0.Add(2*time.Hour), nil); err != nil {
		t.Fatal(err)
	}
	rows, err := s.ListThreads(ctx, SectionWaiting, 0, 10)
	if err != nil || len(rows) != 1 || rows[0].ID != id {
		t.Fatalf("waiting = %+v, %v; want thread %d", rows, err, id)
	}
	// Too recent for the cut-off: not waiting yet.
	_ = s.RefreshWaiting(ctx, t0.Add(30*time.Minute), nil)
	if cm, _ := s.SectionCounts(ctx); cm[SectionWaiting] != 0 {
		t.Errorf("waiting count with a later cut-off = %d, want 0", cm[SectionWaiting])
	}
	// An account turned off is skipped.
	_ = s.RefreshWaiting(ctx, t0.Add(2*time.Hour), []string{"acct"})
	if cm, _ := s.SectionCounts(ctx); cm[SectionWaiting] != 0 {
		t.Errorf("waiting count with the account off = %d, want 0", cm[SectionWaiting])
	}
	// The other side answers: no longer waiting.
	put(t, s, mkMsg("q3", "Re: question", inReplyTo("q1", "q2"), from("Alice", "alice@example.com"), at(90*time.Minute)))
	_ = s.RefreshWaiting(ctx, t0.Add(4*time.Hour), nil)
	if cm, _ := s.SectionCounts(ctx); cm[SectionWaiting] != 0 {
		t.Errorf("waiting count after a reply = %d, want 0", cm[SectionWaiting])
	}
}

func TestExpungeFromTrash(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if err := s.SetMailbox(ctx, model.Mailbox{Account: "acct", Name: "Trash", Role: model.RoleTrash}); err != nil {
		t.Fatal(err)
	}
	put(t, s, mkMsg("d1", "gone", inMailbox("Trash")), mkMsg("d2", "kept"))
	id := threadOf(t, s, "d1")
	res, err := s.ExpungeThreads(ctx, []int64{id, threadOf(t, s, "d2")})
	if err != nil || res.Threads != 1 || res.Copies != 1 {
		t.Fatalf("ExpungeThreads = %+v, %v; want only the trash copy", res, err)
	}
	pend, _ := s.PendingMoves(ctx, "acct", 0)
	if len(pend) != 1 || !pend[0].Expunge || pend[0].From.Mailbox != "Trash" {
		t.Errorf("pending = %+v, want one expunge in Trash", pend)
	}
	if locs := locationsOf(t, s, "d1"); len(locs) != 0 {
		t.Errorf("locations after expunge = %+v", locs)
	}
	if locs := locationsOf(t, s, "d2"); len(locs) != 1 {
		t.Errorf("an inbox message was touched: %+v", locs)
	}
}

// TestArchiveIntoAllMail is Gmail: no \Archive; archiving moves the inbox
// copy to All Mail, where the message already has a copy, so the server's
// answer names that copy and the store keeps one location there.
func TestArchiveIntoAllMail(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if err := s.SetMailbox(ctx, model.Mailbox{Account: "acct", Name: "[Gmail]/All Mail", Role: model.RoleAll}); err != nil {
		t.Fatal(err)
	}
	inbox := mkMsg("g1", "gmail")
	inbox.Loc.UID, inbox.Loc.Key = 5, "5"
	all := mkMsg("g1", "gmail", inMailbox("[Gmail]/All Mail"))
	all.Loc.UID, all.Loc.Key = 900, "900"
	put(t, s, inbox, all)
	id := threadOf(t, s, "g1")
	_, err := s.MoveThreads(ctx, MoveRequest{Kind: "archive", Label: "archive", Threads: []int64{id},
		Dest: func(_, _ string, role model.Role) (string, model.Role) {
			if role == model.RoleInbox {
				return "[Gmail]/All Mail", model.RoleAll
			}
			return "", ""
		}})
	if err != nil {
		t.Fatal(err)
	}
	if n := sectionTotal(t, s); n != 0 {
		t.Errorf("archived Gmail thread still in the sections (%d)", n)
	}
	pend, _ := s.PendingMoves(ctx, "acct", 0)
	if len(pend) != 1 || pend[0].From.UID != 5 {
		t.Fatalf("pending = %+v", pend)
	}
	if err := s.AckMoves(ctx, []model.MoveResult{{ID: pend[0].ID, UID: 900}}); err != nil {
		t.Fatal(err)
	}
	if locs := locationsOf(t, s, "g1"); len(locs) != 1 || locs[0].Key != "900" {
		t.Errorf("locations = %+v, want only All Mail/900", locs)
	}
	checkSectionCounts(t, s)
}

// TestUndoWhileReplayInFlight: the user undoes an archive while a replay
// has already handed the move to the server. The undo must not cancel
// the entry (the server may have moved the message): it is chained after
// it and moves the copy back once the server said where it is.
func TestUndoWhileReplayInFlight(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	m := mkMsg("a1", "race")
	m.Loc.UID, m.Loc.Key = 3, "3"
	put(t, s, m)
	id := threadOf(t, s, "a1")
	if _, err := s.MoveThreads(ctx, MoveRequest{Kind: "archive", Label: "archive", Threads: []int64{id}, Dest: archiveDest}); err != nil {
		t.Fatal(err)
	}
	taken, err := s.TakeMoves(ctx, "acct", 0)
	if err != nil || len(taken) != 1 {
		t.Fatalf("TakeMoves = %+v, %v", taken, err)
	}
	if _, err := s.Undo(ctx); err != nil {
		t.Fatal(err)
	}
	if n := sectionTotal(t, s); n != 1 {
		t.Errorf("after undo the thread is not back in the sections (%d)", n)
	}
	if again, _ := s.TakeMoves(ctx, "acct", 0); len(again) != 1 || again[0].ID != taken[0].ID {
		t.Fatalf("while the first move is unacknowledged TakeMoves = %+v, want only it (the undo waits)", again)
	}
	if err := s.AckMoves(ctx, []model.MoveResult{{ID: taken[0].ID, UID: 70}}); err != nil {
		t.Fatal(err)
	}
	back, _ := s.TakeMoves(ctx, "acct", 0)
	if len(back) != 1 || back[0].From.Mailbox != "Archive" || back[0].From.UID != 70 || back[0].To != "INBOX" {
		t.Fatalf("after the ack TakeMoves = %+v, want Archive/70 → INBOX", back)
	}
	if err := s.AckMoves(ctx, []model.MoveResult{{ID: back[0].ID, UID: 9}}); err != nil {
		t.Fatal(err)
	}
	if locs := locationsOf(t, s, "a1"); len(locs) != 1 || locs[0].Mailbox != "INBOX" || locs[0].UID != 9 {
		t.Errorf("locations = %+v, want INBOX/9", locs)
	}
	checkSectionCounts(t, s)
}
