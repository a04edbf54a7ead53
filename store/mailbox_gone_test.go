package store

import (
	"context"
	"testing"
	"time"

	"mailsift/mailsrc"
	"mailsift/model"
	"mailsift/model/contract"
)

// TestForgetMailbox forgets INBOX of an account whose mail is also partly
// in Archive: messages with a copy in Archive stay with their threads,
// triage and overrides; messages only in INBOX go, with their search
// entries and, when nothing else is left, their threads.
func TestForgetMailbox(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if err := s.SetMailbox(ctx, model.Mailbox{Account: "acct", Name: "INBOX", Role: model.RoleInbox}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMailbox(ctx, model.Mailbox{Account: "acct", Name: "Archive", Role: model.RoleArchive}); err != nil {
		t.Fatal(err)
	}
	// Another account's INBOX must not be touched.
	if err := s.SetMailbox(ctx, model.Mailbox{Account: "other", Name: "INBOX", Role: model.RoleInbox}); err != nil {
		t.Fatal(err)
	}
	put(t, s,
		// a: the same message in INBOX and Archive.
		mkMsg("a@x", "Quarterly plan", at(1*time.Hour), body("marmalade figures")),
		mkMsg("a@x", "Quarterly plan", at(1*time.Hour), body("marmalade figures"), inMailbox("Archive")),
		// b: INBOX only, its reply b2 in Archive.
		mkMsg("b@x", "Budget", at(2*time.Hour), body("budget question")),
		mkMsg("b2@x", "Re: Budget", at(3*time.Hour), inReplyTo("b@x"), inMailbox("Archive"), body("budget answer")),
		// d: INBOX only.
		mkMsg("d@x", "Concert", at(4*time.Hour), body("xylophone quartet tickets")),
		// o: the other account's INBOX.
		mkMsg("o@x", "Other account", at(5*time.Hour), account("other"), body("xylophone solo")),
	)
	a, b, d, o := threadOf(t, s, "a@x"), threadOf(t, s, "b@x"), threadOf(t, s, "d@x"), threadOf(t, s, "o@x")
	if b != threadOf(t, s, "b2@x") {
		t.Fatal("reply b2 not threaded with b")
	}
	for _, r := range []TriageRecord{
		triageRec(t, s, a, "k1", contract.CategoryUrgent, false),
		triageRec(t, s, b, "k1", contract.CategoryActionable, false),
		triageRec(t, s, d, "k1", contract.CategoryInformational, false),
		triageRec(t, s, o, "k1", contract.CategoryInformational, false),
	} {
		if err := s.SaveTriage(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetOverride(ctx, a, contract.CategoryLowPriority); err != nil {
		t.Fatal(err)
	}
	if err := s.SetOverride(ctx, d, contract.CategoryUrgent); err != nil {
		t.Fatal(err)
	}
	inboxLoc := model.Location{Account: "acct", Mailbox: "INBOX", Key: "a@x"}
	archiveLoc := model.Location{Account: "acct", Mailbox: "Archive", Key: "a@x"}
	for _, l := range []model.Location{inboxLoc, archiveLoc} {
		if err := s.QueueFlagChange(ctx, l, model.FlagFlagged, true); err != nil {
			t.Fatal(err)
		}
	}
	inboxDraft := &Draft{Account: "acct", Subject: "Re: Budget", Body: "draft one", Source: "template"}
	archiveDraft := &Draft{Account: "acct", Subject: "Re: Plan", Body: "draft two", Source: "template"}
	for i, dr := range []*Draft{inboxDraft, archiveDraft} {
		if err := s.SaveDraft(ctx, dr); err != nil {
			t.Fatal(err)
		}
		if err := s.SetDraftServerCopy(ctx, dr.ID, []string{"INBOX", "Archive"}[i], 7); err != nil {
			t.Fatal(err)
		}
	}
	counts, err := s.SectionCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if counts[SectionLowPriority] != 1 || counts[SectionActionable] != 1 || counts[SectionUrgent] != 1 || counts[SectionInformational] != 1 {
		t.Fatalf("SectionCounts before = %v, want one thread each in low priority, actionable, urgent, informational", counts)
	}
	if hits, err := s.Search(ctx, "xylophone", 10); err != nil || len(hits) != 2 {
		t.Fatalf("Search(xylophone) before = %d hits, %v; want 2", len(hits), err)
	}

	if err := s.ForgetMailbox(ctx, "acct", "INBOX"); err != nil {
		t.Fatalf("ForgetMailbox() = %v", err)
	}
	endSync(t, s)

	boxes, err := s.Mailboxes(ctx, "acct")
	if err != nil || len(boxes) != 1 || boxes[0].Name != "Archive" {
		t.Errorf("Mailboxes(acct) = %+v, %v; want only Archive", boxes, err)
	}
	if boxes, _ := s.Mailboxes(ctx, "other"); len(boxes) != 1 {
		t.Errorf("Mailboxes(other) = %+v; want its INBOX kept", boxes)
	}
	if locs, _ := s.Locations(ctx, "acct", "INBOX"); len(locs) != 0 {
		t.Errorf("INBOX still has %d locations", len(locs))
	}
	// a: kept (still in Archive), same thread, triage and override kept.
	if got := threadOf(t, s, "a@x"); got != a {
		t.Errorf("a@x moved from thread %d to %d", a, got)
	}
	ta, err := s.ThreadSummaryByID(ctx, a)
	if err != nil || ta.Override != contract.CategoryLowPriority || ta.Triage == nil || ta.Triage.Result.Category != contract.CategoryUrgent {
		t.Errorf("thread a after forget = %+v, %v; want override and triage kept", ta, err)
	}
	// b: its INBOX message is gone, the thread lives on with the reply.
	if _, err := s.ThreadIDForMessage(ctx, "b@x"); err == nil {
		t.Errorf("b@x (only in the forgotten INBOX) still stored")
	}
	if got := threadOf(t, s, "b2@x"); got != b {
		t.Errorf("b2@x moved from thread %d to %d", b, got)
	}
	tb, err := s.Thread(ctx, b)
	if err != nil || len(tb.Messages) != 1 || tb.Messages[0].MessageID != "b2@x" {
		t.Errorf("thread b after forget = %+v, %v; want only b2@x", tb, err)
	}
	if tsb, err := s.ThreadSummaryByID(ctx, b); err != nil || tsb.Triage == nil {
		t.Errorf("thread b triage after forget = %+v, %v; want kept", tsb, err)
	}
	// d: gone with its thread, triage and override.
	if _, err := s.ThreadIDForMessage(ctx, "d@x"); err == nil {
		t.Errorf("d@x still stored")
	}
	if _, err := s.ThreadSummaryByID(ctx, d); err == nil {
		t.Errorf("thread d still exists")
	}
	if n := countRows(t, s, `SELECT count(*) FROM triage WHERE thread_id = ?`, d); n != 0 {
		t.Errorf("%d triage rows of deleted thread d", n)
	}
	if n := countRows(t, s, `SELECT count(*) FROM overrides WHERE thread_id = ?`, d); n != 0 {
		t.Errorf("%d overrides of deleted thread d", n)
	}
	for _, q := range []string{
		`SELECT count(*) FROM raw_messages WHERE message NOT IN (SELECT id FROM messages)`,
		`SELECT count(*) FROM message_refs WHERE message NOT IN (SELECT id FROM messages)`,
		`SELECT count(*) FROM messages WHERE id NOT IN (SELECT message FROM locations)`,
		`SELECT count(*) FROM threads WHERE id NOT IN (SELECT thread_id FROM messages WHERE thread_id IS NOT NULL)`,
	} {
		if n := countRows(t, s, q); n != 0 {
			t.Errorf("%s = %d, want 0", q, n)
		}
	}
	// Search: the forgotten-only message is gone, the other account's
	// and the surviving copy are found.
	hits, err := s.Search(ctx, "xylophone", 10)
	if err != nil || len(hits) != 1 || hits[0].MessageID != "o@x" {
		t.Errorf("Search(xylophone) after = %+v, %v; want only o@x", hits, err)
	}
	if hits, err := s.Search(ctx, "marmalade", 10); err != nil || len(hits) != 1 || hits[0].ThreadID != a {
		t.Errorf("Search(marmalade) after = %+v, %v; want a@x (still in Archive)", hits, err)
	}
	if _, err := s.w.ExecContext(ctx, `INSERT INTO messages_fts(messages_fts) VALUES('integrity-check')`); err != nil {
		t.Errorf("search index integrity check: %v", err)
	}
	// Sections: a and b left the inbox, d is gone; only o is in one.
	counts, err = s.SectionCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for sec, n := range counts {
		want := 0
		if sec == SectionInformational {
			want = 1
		}
		if n != want {
			t.Errorf("SectionCounts[%s] after = %d, want %d (all %v)", sec, n, want, counts)
		}
	}
	checkSectionCounts(t, s)
	// Queued flag changes: INBOX's dropped, Archive's kept.
	pend, err := s.PendingFlagChanges(ctx, "acct", 10)
	if err != nil || len(pend) != 1 || pend[0].Change.Loc.Mailbox != "Archive" {
		t.Errorf("PendingFlagChanges after = %+v, %v; want only Archive's", pend, err)
	}
	// Drafts: the server copy in INBOX is forgotten, the one in Archive kept.
	if got, err := s.Draft(ctx, inboxDraft.ID); err != nil || got.ServerMailbox != "" || got.ServerUID != 0 {
		t.Errorf("draft with copy in INBOX = %+v, %v; want no server copy", got, err)
	}
	if got, err := s.Draft(ctx, archiveDraft.ID); err != nil || got.ServerMailbox != "Archive" || got.ServerUID != 7 {
		t.Errorf("draft with copy in Archive = %+v, %v; want it kept", got, err)
	}

	// Forgetting the last mailbox empties the account; an unknown one is
	// a no-op.
	if err := s.ForgetMailbox(ctx, "acct", "Archive"); err != nil {
		t.Fatal(err)
	}
	endSync(t, s)
	if err := s.ForgetMailbox(ctx, "acct", "Nope"); err != nil {
		t.Errorf("ForgetMailbox(unknown) = %v, want nil", err)
	}
	endSync(t, s)
	if n := countRows(t, s, `SELECT count(*) FROM messages`); n != 1 {
		t.Errorf("%d messages left, want 1 (the other account's)", n)
	}
	if n := countRows(t, s, `SELECT count(*) FROM threads`); n != 1 {
		t.Errorf("%d threads left, want 1", n)
	}
	if n := countRows(t, s, `SELECT count(*) FROM triage`) + countRows(t, s, `SELECT count(*) FROM overrides`); n != 1 {
		t.Errorf("%d triage rows and overrides left, want 1 (thread o's triage)", n)
	}
	checkSectionCounts(t, s)
}

// TestForgetGoneWithStore checks mailsrc.ForgetGone against the store:
// only stored mailboxes reported missing are forgotten, and an empty
// enumeration forgets nothing.
func TestForgetGoneWithStore(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	put(t, s,
		mkMsg("k@x", "Keep", body("kept message")),
		mkMsg("g@x", "Gone", inMailbox("Old"), body("gone message")),
	)
	for _, name := range []string{"INBOX", "Old"} {
		if err := s.SetMailbox(ctx, model.Mailbox{Account: "acct", Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(name string) bool { return name == "INBOX" }
	if gone, err := mailsrc.ForgetGone(ctx, s, "acct", 0, exists); err != nil || len(gone) != 0 {
		t.Fatalf("ForgetGone(empty enumeration) = %v, %v; want nothing forgotten", gone, err)
	}
	endSync(t, s)
	if boxes, _ := s.Mailboxes(ctx, "acct"); len(boxes) != 2 {
		t.Fatalf("mailboxes after empty enumeration = %+v, want both", boxes)
	}
	gone, err := mailsrc.ForgetGone(ctx, s, "acct", 1, exists)
	if err != nil || len(gone) != 1 || gone[0] != "Old" {
		t.Fatalf("ForgetGone() = %v, %v; want [Old]", gone, err)
	}
	endSync(t, s)
	if boxes, _ := s.Mailboxes(ctx, "acct"); len(boxes) != 1 || boxes[0].Name != "INBOX" {
		t.Errorf("mailboxes after = %+v, want INBOX", boxes)
	}
	if _, err := s.ThreadIDForMessage(ctx, "g@x"); err == nil {
		t.Errorf("message only in Old still stored")
	}
	if _, err := s.ThreadIDForMessage(ctx, "k@x"); err != nil {
		t.Errorf("message in INBOX lost: %v", err)
	}
}
