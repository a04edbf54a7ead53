package storecheck

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"mailsift/store"
)

// Healthy fails the test unless the open store st passes SQLite's
// integrity and foreign key checks, its search index matches the messages
// (FTS5 integrity-check) and every thread's cached count and latest date
// agree with its messages, with no message outside a thread and no thread
// left empty. The fault tests run it after a crash, on the reopened store.
func Healthy(t testing.TB, st *store.Store) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+st.Path()+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var got []string
	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		t.Fatalf("integrity_check: %v", err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	rows.Close()
	if strings.Join(got, "\n") != "ok" {
		t.Fatalf("PRAGMA integrity_check = %q, want ok", got)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM pragma_foreign_key_check").Scan(&n); err != nil || n != 0 {
		t.Errorf("foreign_key_check: %d violations (%v)", n, err)
	}
	// For an external-content FTS5 table this compares the index with the
	// content view; it writes nothing.
	if _, err := db.ExecContext(ctx, "INSERT INTO messages_fts(messages_fts) VALUES('integrity-check')"); err != nil {
		t.Errorf("search index integrity-check: %v", err)
	}
	checks := []struct{ what, q string }{
		{"messages without a thread", `SELECT count(*) FROM messages m
			WHERE m.thread_id IS NULL OR NOT EXISTS (SELECT 1 FROM threads t WHERE t.id = m.thread_id)`},
		{"threads whose count disagrees with their messages", `SELECT count(*) FROM threads t
			WHERE t.count <> (SELECT count(*) FROM messages m WHERE m.thread_id = t.id)`},
		{"threads whose latest date disagrees with their messages", `SELECT count(*) FROM threads t
			WHERE t.latest <> (SELECT max(m.date) FROM messages m WHERE m.thread_id = t.id)`},
		{"empty threads", `SELECT count(*) FROM threads t WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.thread_id = t.id)`},
		{"locations of missing messages", `SELECT count(*) FROM locations l WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = l.message)`},
	}
	for _, c := range checks {
		if err := db.QueryRowContext(ctx, c.q).Scan(&n); err != nil {
			t.Errorf("%s: %v", c.what, err)
		} else if n != 0 {
			t.Errorf("%s: %d", c.what, n)
		}
	}
}
