package store

import (
	"context"
	"reflect"
	"testing"

	"mailsift/model"
)

func TestFlagQueueSemantics(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	m := mkMsg("f@x", "Flags")
	put(t, s, m)
	tid := threadOf(t, s, "f@x")
	if ts, _ := s.ThreadSummaryByID(ctx, tid); ts.Unread != 1 {
		t.Fatalf("Unread = %d, want 1", ts.Unread)
	}
	if err := s.MarkThreadSeen(ctx, tid, true); err != nil {
		t.Fatal(err)
	}
	if ts, _ := s.ThreadSummaryByID(ctx, tid); ts.Unread != 0 {
		t.Fatalf("after MarkThreadSeen Unread = %d, want 0", ts.Unread)
	}
	pend, err := s.PendingFlagChanges(ctx, "acct", 0)
	if err != nil || len(pend) != 1 {
		t.Fatalf("PendingFlagChanges = %v, %v, want 1", pend, err)
	}
	want := model.Location{Account: "acct", Mailbox: "INBOX", Key: "f@x"}
	if c := pend[0].Change; c.Loc != want || c.Flag != model.FlagSeen || !c.Set {
		t.Fatalf("pending change = %+v", c)
	}
	// The source still reports unseen (sync ran before push): local wins.
	if err := s.SetFlags(ctx, map[model.Location]model.Flags{want: {Seen: false, Flagged: true}}); err != nil {
		t.Fatal(err)
	}
	locs, _ := s.Locations(ctx, "acct", "INBOX")
	if f := locs[want]; !f.Seen || !f.Flagged {
		t.Fatalf("flags after SetFlags with pending = %+v, want seen (pending) and flagged (source)", f)
	}
	// A newer change of the same flag replaces the queued one.
	if err := s.QueueFlagChange(ctx, want, model.FlagSeen, false); err != nil {
		t.Fatal(err)
	}
	pend, _ = s.PendingFlagChanges(ctx, "acct", 0)
	if len(pend) != 1 || pend[0].Change.Set {
		t.Fatalf("pending after re-queue = %+v, want one clear", pend)
	}
	if ts, _ := s.ThreadSummaryByID(ctx, tid); ts.Unread != 1 {
		t.Fatalf("Unread = %d, want 1 after clearing seen", ts.Unread)
	}
	if err := s.AckFlagChanges(ctx, []int64{pend[0].ID}); err != nil {
		t.Fatal(err)
	}
	if pend, _ := s.PendingFlagChanges(ctx, "acct", 0); len(pend) != 0 {
		t.Fatalf("pending after ack = %v", pend)
	}
	// After the ack the source is authoritative again.
	if err := s.SetFlags(ctx, map[model.Location]model.Flags{want: {Seen: true}}); err != nil {
		t.Fatal(err)
	}
	locs, _ = s.Locations(ctx, "acct", "INBOX")
	if f := locs[want]; !f.Seen || f.Flagged {
		t.Fatalf("flags after ack + SetFlags = %+v, want seen only", f)
	}
	if ts, _ := s.ThreadSummaryByID(ctx, tid); ts.Unread != 0 {
		t.Fatalf("Unread = %d, want 0", ts.Unread)
	}
	// Keywords.
	if err := s.QueueFlagChange(ctx, want, "$Junk", true); err != nil {
		t.Fatal(err)
	}
	locs, _ = s.Locations(ctx, "acct", "INBOX")
	if f := locs[want]; len(f.Keywords) != 1 || f.Keywords[0] != "$Junk" {
		t.Fatalf("keywords = %v, want [$Junk]", f.Keywords)
	}
	// Unknown location.
	if err := s.QueueFlagChange(ctx, model.Location{Account: "acct", Mailbox: "INBOX", Key: "nope"}, model.FlagSeen, true); err == nil {
		t.Fatal("QueueFlagChange on unknown location succeeded")
	}
}

func TestResetMailbox(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if err := s.SetMailbox(ctx, model.Mailbox{Account: "acct", Name: "INBOX", Role: model.RoleInbox,
		State: model.MailboxState{UIDValidity: 7, UIDNext: 3, HighestModSeq: 9}}); err != nil {
		t.Fatal(err)
	}
	st, err := s.MailboxState(ctx, "acct", "INBOX")
	if err != nil || st.UIDValidity != 7 || st.UIDNext != 3 || st.HighestModSeq != 9 {
		t.Fatalf("MailboxState = %+v, %v", st, err)
	}
	mbs, err := s.Mailboxes(ctx, "acct")
	if err != nil || len(mbs) != 1 || mbs[0].Role != model.RoleInbox {
		t.Fatalf("Mailboxes = %+v, %v", mbs, err)
	}
	a := mkMsg("1", "Only inbox", func(m *model.Message) { m.Loc.UID = 1; m.Loc.Key = "1" })
	b := mkMsg("2", "Also archived", func(m *model.Message) { m.Loc.UID = 2; m.Loc.Key = "2" })
	b2 := mkMsg("2", "Also archived", inMailbox("Archive"))
	put(t, s, a, b, b2)
	if err := s.QueueFlagChange(ctx, a.Loc, model.FlagFlagged, true); err != nil {
		t.Fatal(err)
	}
	if err := s.ResetMailbox(ctx, "acct", "INBOX"); err != nil {
		t.Fatal(err)
	}
	endSync(t, s)
	if locs, _ := s.Locations(ctx, "acct", "INBOX"); len(locs) != 0 {
		t.Fatalf("INBOX locations after reset = %v", locs)
	}
	if n := countRows(t, s, "SELECT count(*) FROM messages"); n != 1 {
		t.Fatalf("messages = %d, want 1 (the archived one)", n)
	}
	if pend, _ := s.PendingFlagChanges(ctx, "acct", 0); len(pend) != 0 {
		t.Fatalf("pending after reset = %v", pend)
	}
	if st, _ := s.MailboxState(ctx, "acct", "INBOX"); st != (model.MailboxState{}) {
		t.Fatalf("state after reset = %+v, want zero", st)
	}
	if hits, _ := s.Search(ctx, "inbox", 10); len(hits) != 0 {
		t.Fatalf("search finds deleted message: %v", hits)
	}
}

// TestLocationsFlagsRoundTrip checks that Locations returns each flag and
// the keywords exactly as stored, one flag at a time (they are packed into
// one column on the way out).
func TestLocationsFlagsRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	cases := []struct {
		name string
		f    model.Flags
	}{
		{"none", model.Flags{}},
		{"seen", model.Flags{Seen: true}},
		{"answered", model.Flags{Answered: true}},
		{"flagged", model.Flags{Flagged: true}},
		{"deleted", model.Flags{Deleted: true}},
		{"draft", model.Flags{Draft: true}},
		{"all", model.Flags{Seen: true, Answered: true, Flagged: true, Deleted: true, Draft: true}},
		{"keywords", model.Flags{Answered: true, Keywords: []string{"$Label1", "work"}}},
	}
	for _, c := range cases {
		m := mkMsg("rt-"+c.name+"@x", "Round trip "+c.name)
		m.Flags = c.f
		put(t, s, m)
	}
	locs, err := s.Locations(ctx, "acct", "INBOX")
	if err != nil {
		t.Fatal(err)
	}
	if len(locs) != len(cases) {
		t.Fatalf("Locations = %d entries, want %d", len(locs), len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			loc := model.Location{Account: "acct", Mailbox: "INBOX", Key: "rt-" + c.name + "@x"}
			got, ok := locs[loc]
			if !ok {
				t.Fatalf("Locations has no %v", loc)
			}
			if !reflect.DeepEqual(got, c.f) {
				t.Errorf("Locations()[%s] = %+v, want %+v", c.name, got, c.f)
			}
		})
	}
}
