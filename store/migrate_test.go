package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"mailsift/model"
)

// TestUpgradeFromVersion1 builds a database at schema version 1 with a
// message indexed the version-1 way, then opens it: migrations 2 and 3 must
// run, rebuild the search index on the new rowids and keep the data.
func TestUpgradeFromVersion1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		migrations[0],
		`INSERT INTO threads(id, subject, norm_subject, latest, count, unread, has_body) VALUES(1, 'Old news', 'old news', 1700000000, 1, 1, 1)`,
		`INSERT INTO messages(id, message_id, content_hash, thread_id, date, subject, text, has_body, from_text)
			VALUES(1, 'old@x', 'h', 1, 1700000000, 'Old news', 'the archived zeppelin report', 1, 'Zed <zed@example.com>')`,
		`INSERT INTO locations(account, mailbox, key, message) VALUES('acct', 'INBOX', '1', 1)`,
		`INSERT INTO messages_fts(rowid, from_text, to_text, subject, body)
			SELECT id, from_text, to_text, subject, body FROM messages_fts_src`,
		`PRAGMA user_version = 1`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	db.Close()

	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatalf("Open of a version-1 database: %v", err)
	}
	defer s.Close()
	if v, _ := s.SchemaVersion(ctx); v != len(migrations) {
		t.Fatalf("SchemaVersion = %d, want %d", v, len(migrations))
	}
	hits, err := s.Search(ctx, "zeppelin", 10)
	if err != nil || len(hits) != 1 || hits[0].MessageID != "old@x" || hits[0].ThreadID != 1 {
		t.Fatalf("Search after upgrade = %+v, %v", hits, err)
	}
	if hits, _ := s.Search(ctx, "from:zed", 10); len(hits) != 1 {
		t.Fatalf("from: search after upgrade = %+v", hits)
	}
	counts, err := s.SectionCounts(ctx)
	if err != nil || counts[SectionUntriaged] != 1 {
		t.Fatalf("SectionCounts after upgrade = %v, %v", counts, err)
	}
	// The upgraded store keeps working: a reply joins, the old message can go.
	put(t, s, mkMsg("new@x", "Re: Old news", inReplyTo("old@x")))
	if got := threadOf(t, s, "new@x"); got != 1 {
		t.Fatalf("reply thread = %d, want 1", got)
	}
	if err := s.RemoveLocations(ctx, []model.Location{{Account: "acct", Mailbox: "INBOX", Key: "1"}}); err != nil {
		t.Fatal(err)
	}
	endSync(t, s)
	if hits, _ := s.Search(ctx, "zeppelin", 10); len(hits) != 0 {
		t.Fatalf("deleted message still found: %+v", hits)
	}
	checkSectionCounts(t, s)
}

// TestMessageIDLookupsUseIndex: after migration 11 removed the plain
// message_id index, every lookup by Message-ID (threading, dedupe, raw
// bytes, the outbox's answered flag, copies of an envelope) still walks
// the dedupe index instead of scanning the messages table; and the dedupe
// index still allows several envelopes (no content hash) per Message-ID
// but only one copy per content.
func TestMessageIDLookupsUseIndex(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	for _, q := range []string{
		`SELECT thread_id FROM messages WHERE message_id = 'x' AND thread_id IS NOT NULL LIMIT 1`,
		`SELECT thread_id FROM messages WHERE message_id IN ('x', 'y') AND id <> 1`,
		`SELECT id FROM messages WHERE message_id = 'x' AND content_hash = 'h'`,
		`SELECT f.id FROM messages m, messages f WHERE f.message_id = m.message_id AND f.has_body = 1 AND m.id = 1`,
	} {
		rows, err := s.r.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q)
		if err != nil {
			t.Fatal(err)
		}
		var plan string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan += detail + "; "
		}
		rows.Close()
		if !strings.Contains(plan, "messages_dedupe") || strings.Contains(plan, "SCAN m") && strings.Contains(plan, "SCAN f") {
			t.Errorf("plan for %q = %s; want a search of messages_dedupe", q, plan)
		}
	}
	if _, err := s.w.ExecContext(ctx, `INSERT INTO messages(id, message_id, content_hash) VALUES(101, 'dup@x', NULL), (102, 'dup@x', NULL), (103, 'dup@x', 'h1')`); err != nil {
		t.Fatalf("envelopes sharing a Message-ID: %v", err)
	}
	if _, err := s.w.ExecContext(ctx, `INSERT INTO messages(id, message_id, content_hash) VALUES(104, 'dup@x', 'h1')`); err == nil {
		t.Error("a second copy with the same content hash was accepted")
	}
}
