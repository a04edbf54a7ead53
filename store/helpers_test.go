package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"mailsift/model"
)

func openTest(t testing.TB) *Store {
	t.Helper()
	return openTestAt(t, nil)
}

// openTestAt opens a test store on clock c (nil: the real clock).
func openTestAt(t testing.TB, c *testClock) *Store {
	t.Helper()
	opts := &Options{Principal: model.Address{Name: "Me", Email: "me@example.com"}}
	if c != nil {
		opts.Now = c.Now
	}
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "sub", "mailsift.db"), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// testClock is a clock for Options.Now that moves only when told to.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newTestClock(t time.Time) *testClock { return &testClock{now: t} }

// Now returns the clock's time.
func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// msg builds a full message with a body at INBOX/<key>.
type msgOpt func(*model.Message)

func inReplyTo(ids ...string) msgOpt {
	return func(m *model.Message) { m.InReplyTo = ids[len(ids)-1:]; m.References = ids }
}
func at(d time.Duration) msgOpt { return func(m *model.Message) { m.Date = t0.Add(d) } }
func from(name, email string) msgOpt {
	return func(m *model.Message) { m.From = model.Address{Name: name, Email: email} }
}
func inMailbox(mb string) msgOpt { return func(m *model.Message) { m.Loc.Mailbox = mb } }
func seen() msgOpt               { return func(m *model.Message) { m.Flags.Seen = true } }
func body(s string) msgOpt       { return func(m *model.Message) { m.Text = s } }
func envelopeOnly() msgOpt {
	return func(m *model.Message) { m.HasBody = false; m.ContentHash = ""; m.Text = "" }
}
func subject(s string) msgOpt { return func(m *model.Message) { m.Subject = s } }
func account(a string) msgOpt { return func(m *model.Message) { m.Loc.Account = a } }
func withKey(k string) msgOpt { return func(m *model.Message) { m.Loc.Key = k } }

func mkMsg(id, subj string, opts ...msgOpt) *model.Message {
	m := &model.Message{
		Loc:       model.Location{Account: "acct", Mailbox: "INBOX", Key: id},
		MessageID: id,
		From:      model.Address{Name: "Alice", Email: "alice@example.com"},
		To:        []model.Address{{Name: "Me", Email: "me@example.com"}},
		Date:      t0,
		Subject:   subj,
		Text:      "body of " + id,
		HasBody:   true,
		Size:      100,
	}
	for _, o := range opts {
		o(m)
	}
	if m.HasBody && m.ContentHash == "" {
		sum := sha256.Sum256([]byte(m.MessageID + "\n" + m.Subject + "\n" + m.Text))
		m.ContentHash = hex.EncodeToString(sum[:])
	}
	return m
}

func put(t testing.TB, s *Store, msgs ...*model.Message) {
	t.Helper()
	if err := s.PutMessages(context.Background(), msgs); err != nil {
		t.Fatalf("PutMessages: %v", err)
	}
}

func threadOf(t *testing.T, s *Store, mid string) int64 {
	t.Helper()
	id, err := s.ThreadIDForMessage(context.Background(), mid)
	if err != nil {
		t.Fatalf("ThreadIDForMessage(%q): %v", mid, err)
	}
	return id
}

func countRows(t *testing.T, s *Store, q string, args ...any) int {
	t.Helper()
	var n int
	if err := s.r.QueryRowContext(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// checkSectionCounts asserts in_inbox is right and the trigger-kept
// counts match the in-inbox threads.
func checkSectionCounts(t *testing.T, s *Store) {
	t.Helper()
	if n := countRows(t, s, `SELECT count(*) FROM threads t WHERE t.in_inbox <> EXISTS(SELECT 1 FROM messages m
		JOIN locations l ON l.message = m.id LEFT JOIN mailboxes mb ON mb.account = l.account AND mb.name = l.mailbox
		WHERE m.thread_id = t.id AND `+inboxCond+`)`); n != 0 {
		t.Errorf("%d threads with a stale in_inbox", n)
	}
	rows, err := s.r.QueryContext(context.Background(), `SELECT t.section, count(*), COALESCE(c.n, -1) FROM threads t
		LEFT JOIN section_counts c ON c.section = t.section WHERE t.in_inbox = 1 GROUP BY t.section`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	total := 0
	for rows.Next() {
		var sec string
		var n, kept int
		if err := rows.Scan(&sec, &n, &kept); err != nil {
			t.Fatal(err)
		}
		total += n
		if n != kept {
			t.Errorf("section %q: %d threads, section_counts says %d", sec, n, kept)
		}
	}
	if sum := countRows(t, s, "SELECT COALESCE(sum(n), 0) FROM section_counts"); sum != total {
		t.Errorf("section_counts sum %d, threads %d", sum, total)
	}
}

// endSync does what a source does when a sync ends: messages left
// without a location are deleted (CollectOrphans).
func endSync(t *testing.T, s *Store) {
	t.Helper()
	if err := s.CollectOrphans(context.Background()); err != nil {
		t.Fatalf("CollectOrphans: %v", err)
	}
}
