package imap

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/emersion/go-imap/v2"

	"mailsift/internal/gcbatch"
	"mailsift/model"
	"mailsift/store"
)

func openStore(t testing.TB) *store.Store {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "mail.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.EnsureAccount(context.Background(), "acct", "imap://alice@127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestSyncIntoStore syncs a memserver account into a real store, then
// syncs again after new mail, a flag change and an expunge, in both
// first-sync modes.
func TestSyncIntoStore(t *testing.T) {
	for _, whole := range []bool{true, false} {
		t.Run(fmt.Sprint("whole=", whole), func(t *testing.T) { testSyncIntoStore(t, whole) })
	}
}

func testSyncIntoStore(t *testing.T, whole bool) {
	ctx := context.Background()
	ts := newMemServer(t)
	a := ts.admin(t)
	a.create("Sent")
	a.append("INBOX", readFixture(t, "attachment.eml"))
	u2 := a.append("INBOX", readFixture(t, "latin1.eml"))
	u3 := a.append("INBOX", testMessage(3, "newsletter"))
	a.append("Sent", testMessage(4, "sent one"), imap.FlagSeen)

	st := openStore(t)
	src := ts.source(t, func(c *Config) {
		if !whole {
			c.WholeBudget = -1
		}
	})
	mustSync(t, src, st)

	boxes, err := st.Mailboxes(ctx, "acct")
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string]model.Role{}
	for _, mb := range boxes {
		roles[mb.Name] = mb.Role
		if mb.State.UIDValidity == 0 || mb.State.UIDNext == 0 {
			t.Errorf("mailbox %q state = %+v, want stored UIDVALIDITY/UIDNEXT", mb.Name, mb.State)
		}
	}
	if roles["INBOX"] != model.RoleInbox || roles["Sent"] != model.RoleSent {
		t.Errorf("mailbox roles = %v", roles)
	}
	locs, err := st.Locations(ctx, "acct", "INBOX")
	if err != nil || len(locs) != 3 {
		t.Fatalf("INBOX locations = %v, %v; want 3", locs, err)
	}
	if missing, _ := st.MissingBodies(ctx, "acct", "INBOX", 10); len(missing) != 0 {
		t.Errorf("bodies still missing after sync: %v", missing)
	}
	t1, err1 := st.ThreadIDForMessage(ctx, "report-1@example.com")
	t2, err2 := st.ThreadIDForMessage(ctx, "latin1-1@example.org")
	if err1 != nil || err2 != nil || t1 != t2 {
		t.Errorf("reply threaded separately: %d (%v) vs %d (%v)", t1, err1, t2, err2)
	}
	if raw, err := st.RawMessage(ctx, "report-1@example.com"); err != nil || !strings.Contains(string(raw), "report.pdf") {
		t.Errorf("RawMessage() = %d bytes, %v; want the raw message", len(raw), err)
	}
	// A message without attachments is stored without its raw bytes; the
	// source fetches them from the server (suite: "read a message's raw
	// bytes on demand").
	if _, err := st.RawMessage(ctx, "latin1-1@example.org"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RawMessage(no attachments) = %v, want ErrNotFound (not kept in the store)", err)
	}
	if raw, err := src.ReadRaw(ctx, loc("acct", "INBOX", u2)); err != nil || string(raw) != readFixture(t, "latin1.eml") {
		t.Errorf("ReadRaw = %d bytes, %v; want the message as appended", len(raw), err)
	}

	a.expunge("INBOX", u3)
	a.store("INBOX", u2, imap.StoreFlagsAdd, imap.FlagSeen)
	u5 := a.append("INBOX", testMessage(5, "fresh"))
	mustSync(t, src, st)
	locs, err = st.Locations(ctx, "acct", "INBOX")
	if err != nil {
		t.Fatal(err)
	}
	if len(locs) != 3 {
		t.Errorf("after resync INBOX has %d locations, want 3", len(locs))
	}
	if _, ok := locs[loc("acct", "INBOX", u3)]; ok {
		t.Errorf("expunged message %d still stored", u3)
	}
	if f, ok := locs[loc("acct", "INBOX", u2)]; !ok || !f.Seen {
		t.Errorf("message %d flags = %+v, %v; want \\Seen", u2, f, ok)
	}
	if _, ok := locs[loc("acct", "INBOX", u5)]; !ok {
		t.Errorf("new message %d not stored", u5)
	}
}

// BenchmarkDovecotCorpusSyncIntoStore: the corpus from a local Dovecot
// into a fresh SQLite store (threading, FTS) per iteration, with the GC
// settings every sync runs with (the sync command enters gcbatch).
func BenchmarkDovecotCorpusSyncIntoStore(b *testing.B) {
	ts, n := corpusDovecot(b)
	if err := ts.source(b, nil).Sync(context.Background(), newFakeSink(), nil); err != nil {
		b.Fatal(err) // warm Dovecot's index
	}
	defer gcbatch.Enter()()
	for b.Loop() {
		st := openStore(b)
		src := ts.source(b, nil)
		if err := src.Sync(context.Background(), st, nil); err != nil {
			b.Fatal(err)
		}
		src.Close()
		st.Close()
	}
	b.ReportMetric(float64(n), "msgs/op")
}
