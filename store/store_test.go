package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"mailsift/model"
)

func TestMigrationsFromEmptyAndReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "a", "b", "mailsift.db")
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	v, err := s.SchemaVersion(ctx)
	if err != nil || v != len(migrations) {
		t.Fatalf("SchemaVersion = %d, %v, want %d", v, err, len(migrations))
	}
	put(t, s, mkMsg("a@x", "Hello"))
	var mode string
	if err := s.r.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v, want wal", mode, err)
	}
	var fk int
	if err := s.r.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		t.Fatalf("foreign_keys = %d, %v, want 1", fk, err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	s, err = Open(ctx, path, nil)
	if err != nil {
		t.Fatalf("re-Open: %v", err)
	}
	defer s.Close()
	if v, _ := s.SchemaVersion(ctx); v != len(migrations) {
		t.Fatalf("after reopen SchemaVersion = %d, want %d", v, len(migrations))
	}
	if _, err := s.ThreadIDForMessage(ctx, "a@x"); err != nil {
		t.Fatalf("message lost on reopen: %v", err)
	}
}

func TestOpenRejectsNewerSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mailsift.db")
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(ctx, "PRAGMA user_version = 999"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(ctx, path, nil); err == nil {
		t.Fatal("Open of a newer schema succeeded, want an error")
	}
}

func TestDedupeAcrossFolders(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	a := mkMsg("m1@x", "Report", seen())
	b := mkMsg("m1@x", "Report", inMailbox("Archive"))
	put(t, s, a, b)
	if n := countRows(t, s, "SELECT count(*) FROM messages"); n != 1 {
		t.Fatalf("messages = %d, want 1", n)
	}
	if n := countRows(t, s, "SELECT count(*) FROM locations"); n != 2 {
		t.Fatalf("locations = %d, want 2", n)
	}
	ts, err := s.ThreadSummaryByID(ctx, threadOf(t, s, "m1@x"))
	if err != nil {
		t.Fatal(err)
	}
	if ts.Count != 1 || ts.Unread != 0 {
		t.Fatalf("thread count/unread = %d/%d, want 1/0 (seen in one folder)", ts.Count, ts.Unread)
	}
	// Remove one location: the message stays.
	if err := s.RemoveLocations(ctx, []model.Location{a.Loc}); err != nil {
		t.Fatal(err)
	}
	endSync(t, s)
	if n := countRows(t, s, "SELECT count(*) FROM messages"); n != 1 {
		t.Fatalf("after removing one location messages = %d, want 1", n)
	}
	hits, err := s.Search(ctx, "Report", 10)
	if err != nil || len(hits) != 1 {
		t.Fatalf("Search = %v, %v, want 1 hit", hits, err)
	}
	// Remove the other: the message, its thread and its search entry go.
	if err := s.RemoveLocations(ctx, []model.Location{b.Loc}); err != nil {
		t.Fatal(err)
	}
	endSync(t, s)
	if n := countRows(t, s, "SELECT count(*) FROM messages"); n != 0 {
		t.Fatalf("after removing both messages = %d, want 0", n)
	}
	checkSectionCounts(t, s)
	if n := countRows(t, s, "SELECT count(*) FROM threads"); n != 0 {
		t.Fatalf("threads = %d, want 0", n)
	}
	if n := countRows(t, s, "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'report'"); n != 0 {
		t.Fatalf("FTS rows matching = %d, want 0", n)
	}
	if _, err := s.ThreadIDForMessage(ctx, "m1@x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("ThreadIDForMessage after delete err = %v, want ErrNotFound", err)
	}
}

func TestEnvelopeThenBody(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	env := mkMsg("e1@x", "Budget", envelopeOnly())
	put(t, s, env)
	tid := threadOf(t, s, "e1@x")
	ts, _ := s.ThreadSummaryByID(ctx, tid)
	if ts.HasBody {
		t.Fatal("envelope-only thread reports HasBody")
	}
	miss, err := s.MissingBodies(ctx, "acct", "INBOX", 10)
	if err != nil || len(miss) != 1 || miss[0].Key != "e1@x" {
		t.Fatalf("MissingBodies = %v, %v, want [e1@x]", miss, err)
	}
	// Envelope again (re-sync) does not create a second row.
	put(t, s, mkMsg("e1@x", "Budget", envelopeOnly()))
	full := mkMsg("e1@x", "Budget", body("the numbers are in"))
	full.Raw = []byte("Subject: Budget\r\n\r\nthe numbers are in\r\n")
	put(t, s, full)
	if n := countRows(t, s, "SELECT count(*) FROM messages"); n != 1 {
		t.Fatalf("messages = %d, want 1 (body must update the envelope row)", n)
	}
	if got := threadOf(t, s, "e1@x"); got != tid {
		t.Fatalf("thread changed from %d to %d", tid, got)
	}
	th, err := s.Thread(ctx, tid)
	if err != nil || len(th.Messages) != 1 || th.Messages[0].Text != "the numbers are in" || !th.Messages[0].HasBody {
		t.Fatalf("Thread = %+v, %v", th, err)
	}
	if miss, _ := s.MissingBodies(ctx, "acct", "INBOX", 10); len(miss) != 0 {
		t.Fatalf("MissingBodies after body = %v, want none", miss)
	}
	if hits, err := s.Search(ctx, "numbers", 5); err != nil || len(hits) != 1 {
		t.Fatalf("body not searchable: %v, %v", hits, err)
	}
	raw, err := s.RawMessage(ctx, "e1@x")
	if err != nil || string(raw) != string(full.Raw) {
		t.Fatalf("RawMessage = %q, %v", raw, err)
	}
	// An envelope put after the body must not wipe the body.
	put(t, s, mkMsg("e1@x", "Budget", envelopeOnly(), seen()))
	th, _ = s.Thread(ctx, tid)
	if th.Messages[0].Text != "the numbers are in" || !th.Messages[0].Flags.Seen {
		t.Fatalf("after envelope refresh: text %q seen %v", th.Messages[0].Text, th.Messages[0].Flags.Seen)
	}
}

func TestEnvelopeThenBodyDedupesWithOtherFolder(t *testing.T) {
	s := openTest(t)
	// A different size: not known to be the same message until the body
	// (and its content hash) arrives.
	put(t, s, mkMsg("d@x", "Plan", inMailbox("Archive")))
	put(t, s, mkMsg("d@x", "Plan", envelopeOnly(), func(m *model.Message) { m.Size = 140 }))
	if n := countRows(t, s, "SELECT count(*) FROM messages"); n != 2 {
		t.Fatalf("before body messages = %d, want 2 (envelope keyed by location)", n)
	}
	put(t, s, mkMsg("d@x", "Plan"))
	if n := countRows(t, s, "SELECT count(*) FROM messages"); n != 1 {
		t.Fatalf("after body messages = %d, want 1", n)
	}
	if n := countRows(t, s, "SELECT count(*) FROM locations"); n != 2 {
		t.Fatalf("locations = %d, want 2", n)
	}
	if n := countRows(t, s, "SELECT count(*) FROM threads"); n != 1 {
		t.Fatalf("threads = %d, want 1", n)
	}
}

// TestEnvelopeOfStoredMessageLinksAtOnce: the envelope of a message
// already stored with its body in another folder (same Message-ID, same
// size: a copy, or Gmail's All Mail and labels) points at that message
// at once, so its body is not fetched again; a different size or an
// unknown Message-ID still waits for its body.
func TestEnvelopeOfStoredMessageLinksAtOnce(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	put(t, s, mkMsg("g@x", "Launch", inMailbox("INBOX")))
	put(t, s,
		mkMsg("g@x", "Launch", inMailbox("All Mail"), withKey("7"), envelopeOnly()),
		mkMsg("other@x", "Other", inMailbox("All Mail"), withKey("8"), envelopeOnly()),
		mkMsg("g@x", "Launch", inMailbox("Important"), withKey("9"), envelopeOnly(), func(m *model.Message) { m.Size = 999 }))
	if n := countRows(t, s, "SELECT count(*) FROM messages WHERE message_id = 'g@x'"); n != 2 {
		t.Errorf("%d rows for g@x, want 2 (the stored one, and the envelope of a different size)", n)
	}
	missing, err := s.MissingBodies(ctx, "acct", "All Mail", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) != 1 || missing[0].Key != "8" {
		t.Errorf("missing bodies in All Mail = %v, want only the unknown message (key 8)", missing)
	}
	if m, _ := s.MissingBodies(ctx, "acct", "Important", 10); len(m) != 1 {
		t.Errorf("missing bodies in Important = %v, want the envelope of a different size", m)
	}
	if n := countRows(t, s, "SELECT count(*) FROM locations WHERE message = (SELECT id FROM messages WHERE message_id = 'g@x' AND has_body = 1)"); n != 2 {
		t.Errorf("the stored message has %d locations, want 2 (INBOX, All Mail)", n)
	}
	checkSectionCounts(t, s)
}

func TestOpenOddPaths(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"with space", "hash#x", "pct%20y", "q?z", "ünï"} {
		p := filepath.Join(t.TempDir(), name, "mailsift.db")
		s, err := Open(ctx, p, nil)
		if err != nil {
			t.Errorf("Open(%q): %v", p, err)
			continue
		}
		put(t, s, mkMsg("p@x", "Path"))
		s.Close()
		if _, err := os.Stat(p); err != nil {
			t.Errorf("Open(%q) did not create the file there: %v", p, err)
		}
	}
}
