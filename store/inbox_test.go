package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"

	"mailsift/model"
)

// setRoles records the mailboxes of account "acct" with their roles.
func setRoles(t *testing.T, s *Store, roles map[string]model.Role) {
	t.Helper()
	for name, role := range roles {
		if err := s.SetMailbox(context.Background(), model.Mailbox{Account: "acct", Name: name, Role: role}); err != nil {
			t.Fatalf("SetMailbox %s: %v", name, err)
		}
	}
}

// listedIDs returns the ids of the untriaged section.
func listedIDs(t *testing.T, s *Store) []int64 {
	t.Helper()
	rows, err := s.ListThreads(context.Background(), SectionUntriaged, 0, 0)
	if err != nil {
		t.Fatalf("ListThreads: %v", err)
	}
	var ids []int64
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	return ids
}

func untriagedCount(t *testing.T, s *Store) int {
	t.Helper()
	c, err := s.SectionCounts(context.Background())
	if err != nil {
		t.Fatalf("SectionCounts: %v", err)
	}
	return c[SectionUntriaged]
}

func queued(t *testing.T, s *Store) []int64 {
	t.Helper()
	ids, err := s.ThreadsNeedingTriage(context.Background(), "k", 0)
	if err != nil {
		t.Fatalf("ThreadsNeedingTriage: %v", err)
	}
	return ids
}

// assertInSections checks that thread id is (or is not) listed, counted
// and queued for triage, as the only possible thread of the sections.
func assertInSections(t *testing.T, s *Store, id int64, want bool) {
	t.Helper()
	listed := slices.Contains(listedIDs(t, s), id)
	q := slices.Contains(queued(t, s), id)
	n := untriagedCount(t, s)
	if want && (!listed || !q || n != 1) {
		t.Errorf("thread %d: listed %v, queued %v, untriaged count %d; want listed, queued, count 1", id, listed, q, n)
	}
	if !want && (listed || q || n != 0) {
		t.Errorf("thread %d: listed %v, queued %v, untriaged count %d; want none of them", id, listed, q, n)
	}
	checkSectionCounts(t, s)
}

func TestInboxSentOnlyThreadNotInSections(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	setRoles(t, s, map[string]model.Role{"INBOX": model.RoleInbox, "Sent": model.RoleSent})
	put(t, s, mkMsg("sent@x", "Quarterly zeppelin plan", inMailbox("Sent"), from("Me", "me@example.com")))
	id := threadOf(t, s, "sent@x")
	assertInSections(t, s, id, false)
	hits, err := s.Search(ctx, "zeppelin", 10)
	if err != nil || len(hits) != 1 || hits[0].ThreadID != id {
		t.Fatalf("Search = %+v, %v; want the Sent message", hits, err)
	}
	if ts, err := s.ThreadSummaryByID(ctx, id); err != nil || ts.Subject != "Quarterly zeppelin plan" {
		t.Fatalf("ThreadSummaryByID = %+v, %v", ts, err)
	}
	if th, err := s.Thread(ctx, id); err != nil || len(th.Messages) != 1 {
		t.Fatalf("Thread = %+v, %v", th, err)
	}
}

func TestInboxReplyInSentKeepsThread(t *testing.T) {
	s := openTest(t)
	setRoles(t, s, map[string]model.Role{"INBOX": model.RoleInbox, "Sent": model.RoleSent})
	put(t, s, mkMsg("q@x", "Question"))
	put(t, s, mkMsg("a@x", "Re: Question", inReplyTo("q@x"), inMailbox("Sent"), from("Me", "me@example.com"), at(3600e9)))
	id := threadOf(t, s, "q@x")
	if threadOf(t, s, "a@x") != id {
		t.Fatal("reply not threaded with the question")
	}
	assertInSections(t, s, id, true)
	rows, _ := s.ListThreads(context.Background(), SectionUntriaged, 0, 0)
	if len(rows) != 1 || rows[0].Count != 2 {
		t.Fatalf("listed = %+v; want one thread of two messages", rows)
	}
}

func TestInboxSentReplyMergesWithInboxThread(t *testing.T) {
	s := openTest(t)
	setRoles(t, s, map[string]model.Role{"INBOX": model.RoleInbox, "Sent": model.RoleSent})
	// The reply is stored first, alone in Sent; its parent arrives in INBOX.
	put(t, s, mkMsg("a@x", "Re: Plan", inReplyTo("q@x"), inMailbox("Sent"), from("Me", "me@example.com"), at(3600e9)))
	assertInSections(t, s, threadOf(t, s, "a@x"), false)
	put(t, s, mkMsg("q@x", "Plan"))
	id := threadOf(t, s, "q@x")
	if threadOf(t, s, "a@x") != id {
		t.Fatal("parent and reply not in one thread")
	}
	assertInSections(t, s, id, true)
}

func TestInboxArchiveAndReturn(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	setRoles(t, s, map[string]model.Role{"INBOX": model.RoleInbox, "Archive": model.RoleArchive})
	inbox := mkMsg("m@x", "Invoice zeppelin", withKey("1"))
	archived := mkMsg("m@x", "Invoice zeppelin", withKey("7"), inMailbox("Archive"))
	put(t, s, inbox, archived)
	id := threadOf(t, s, "m@x")
	assertInSections(t, s, id, true)

	// Archiving: the INBOX copy goes, the Archive copy stays.
	if err := s.RemoveLocations(ctx, []model.Location{inbox.Loc}); err != nil {
		t.Fatal(err)
	}
	endSync(t, s)
	if got := threadOf(t, s, "m@x"); got != id {
		t.Fatalf("thread id changed to %d", got)
	}
	assertInSections(t, s, id, false)
	if hits, _ := s.Search(ctx, "zeppelin", 10); len(hits) != 1 {
		t.Fatalf("archived message not found by Search: %+v", hits)
	}

	// Moved back to INBOX.
	put(t, s, mkMsg("m@x", "Invoice zeppelin", withKey("2")))
	assertInSections(t, s, id, true)
}

func TestInboxResetMailbox(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	setRoles(t, s, map[string]model.Role{"INBOX": model.RoleInbox, "Archive": model.RoleArchive})
	put(t, s, mkMsg("m@x", "Kept", withKey("1")), mkMsg("m@x", "Kept", withKey("7"), inMailbox("Archive")))
	id := threadOf(t, s, "m@x")
	assertInSections(t, s, id, true)
	if err := s.ResetMailbox(ctx, "acct", "INBOX"); err != nil {
		t.Fatal(err)
	}
	endSync(t, s)
	if got := threadOf(t, s, "m@x"); got != id {
		t.Fatalf("thread id changed to %d", got)
	}
	assertInSections(t, s, id, false)
}

func TestInboxRoleChange(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	setRoles(t, s, map[string]model.Role{"Posteingang": model.RoleNone})
	put(t, s, mkMsg("m@x", "Hallo", inMailbox("Posteingang")))
	id := threadOf(t, s, "m@x")
	assertInSections(t, s, id, false)
	setRoles(t, s, map[string]model.Role{"Posteingang": model.RoleInbox})
	assertInSections(t, s, id, true)
	if err := s.SetMailbox(ctx, model.Mailbox{Account: "acct", Name: "Posteingang", Role: model.RoleArchive}); err != nil {
		t.Fatal(err)
	}
	assertInSections(t, s, id, false)
}

// TestUpgradeComputesInInbox opens a store at the schema version before
// in_inbox: the migration must flag the threads with an inbox location and
// recount the sections from those only.
func TestUpgradeComputesInInbox(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v6.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	const prev = 6
	qs := slices.Clone(migrations[:prev])
	qs = append(qs,
		`INSERT INTO mailboxes(account, name, role) VALUES('acct', 'Eingang', 'inbox'), ('acct', 'Sent', 'sent'),
			('acct', 'INBOX', '')`,
		`INSERT INTO threads(id, subject, latest, count, has_body) VALUES(1, 'in inbox', 100, 1, 1),
			(2, 'sent only', 200, 1, 1), (3, 'named INBOX', 300, 2, 1)`,
		`INSERT INTO messages(id, message_id, content_hash, thread_id, date, has_body, fts_rowid)
			VALUES(1, 'a@x', 'h1', 1, 100, 1, 1), (2, 'b@x', 'h2', 2, 200, 1, 2), (3, 'c@x', 'h3', 3, 300, 1, 3),
			(4, 'd@x', 'h4', 3, 301, 1, 4)`,
		`INSERT INTO locations(account, mailbox, key, message) VALUES('acct', 'Eingang', '1', 1),
			('acct', 'Sent', '2', 2), ('acct', 'Sent', '3', 3), ('acct', 'INBOX', '4', 4)`,
		`PRAGMA user_version = 6`,
	)
	for _, q := range qs {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	if n := 0; db.QueryRowContext(ctx, `SELECT n FROM section_counts WHERE section = 'untriaged'`).Scan(&n) != nil || n != 3 {
		t.Fatalf("version-6 fixture counts %d untriaged threads, want 3", n)
	}
	db.Close()

	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatalf("Open of a version-6 database: %v", err)
	}
	defer s.Close()
	if v, _ := s.SchemaVersion(ctx); v != len(migrations) {
		t.Fatalf("SchemaVersion = %d, want %d", v, len(migrations))
	}
	if got := listedIDs(t, s); !slices.Equal(got, []int64{3, 1}) {
		t.Errorf("listed after upgrade = %v, want [3 1]", got)
	}
	if got := queued(t, s); !slices.Equal(got, []int64{3, 1}) {
		t.Errorf("triage queue after upgrade = %v, want [3 1]", got)
	}
	if n := untriagedCount(t, s); n != 2 {
		t.Errorf("untriaged count after upgrade = %d, want 2", n)
	}
	checkSectionCounts(t, s)
}
