package imap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"

	"mailsift/internal/storecheck"
	"mailsift/model"
	"mailsift/model/contract"
	"mailsift/store"
)

func (a *admin) rename(from, to string) {
	a.t.Helper()
	if err := a.c.Unselect().Wait(); err != nil {
		_ = err // not selected: fine
	}
	if err := a.c.Rename(from, to, nil).Wait(); err != nil {
		a.t.Fatalf("rename %q to %q: %v", from, to, err)
	}
}

// lockedBuffer is an io.Writer safe for a logger's concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func storeThread(t *testing.T, st *store.Store, mid string) int64 {
	t.Helper()
	id, err := st.ThreadIDForMessage(context.Background(), mid)
	if err != nil {
		t.Fatalf("ThreadIDForMessage(%q) = %v", mid, err)
	}
	return id
}

func saveTriage(t *testing.T, st *store.Store, thread int64, category string) {
	t.Helper()
	ctx := context.Background()
	h, err := st.ThreadContentHash(ctx, thread)
	if err != nil {
		t.Fatal(err)
	}
	err = st.SaveTriage(ctx, store.TriageRecord{ThreadID: thread, CacheKey: "test-key", ContentHash: h, Source: "deterministic",
		Result: contract.Result{Category: category, Summary: "summary of " + category}})
	if err != nil {
		t.Fatal(err)
	}
}

// scenarioMailboxDeleted: a mailbox deleted on the server is forgotten
// by the next sync; a message it shared with another mailbox stays.
func scenarioMailboxDeleted(t *testing.T, ts *testServer) {
	ctx := context.Background()
	a := ts.admin(t)
	a.create("Projects")
	a.create("Old")
	shared := testMessage(1, "shared plan")
	a.append("INBOX", shared)
	a.append("Projects", shared)
	a.append("Projects", testMessage(2, "zeppelin budget"))
	a.append("Old", testMessage(3, "old stuff"))

	st := openStore(t)
	logs := &lockedBuffer{}
	src := ts.source(t, func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(logs, nil)) })
	mustSync(t, src, st)
	if got := storecheck.MailboxNames(t, st, "acct"); got != "INBOX,Old,Projects" {
		t.Fatalf("mailboxes after first sync = %s", got)
	}
	shareThread := storeThread(t, st, "msg-1-shared-plan@example.com")
	saveTriage(t, st, shareThread, contract.CategoryActionable)
	if hits, err := st.Search(ctx, "zeppelin", 10); err != nil || len(hits) != 1 {
		t.Fatalf("Search(zeppelin) before = %v, %v; want 1 hit", hits, err)
	}

	a.delete("Projects")
	mustSync(t, src, st)

	if got := storecheck.MailboxNames(t, st, "acct"); got != "INBOX,Old" {
		t.Errorf("mailboxes after delete = %s, want INBOX,Old", got)
	}
	if locs, _ := st.Locations(ctx, "acct", "Projects"); len(locs) != 0 {
		t.Errorf("Projects still has %d locations", len(locs))
	}
	if _, err := st.ThreadIDForMessage(ctx, "msg-2-zeppelin-budget@example.com"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("message only in Projects: ThreadIDForMessage = %v, want ErrNotFound", err)
	}
	if hits, err := st.Search(ctx, "zeppelin", 10); err != nil || len(hits) != 0 {
		t.Errorf("Search(zeppelin) after = %v, %v; want no hit", hits, err)
	}
	if got := storeThread(t, st, "msg-1-shared-plan@example.com"); got != shareThread {
		t.Errorf("shared message moved from thread %d to %d", shareThread, got)
	}
	if sum, err := st.ThreadSummaryByID(ctx, shareThread); err != nil || sum.Triage == nil || sum.Triage.Result.Category != contract.CategoryActionable {
		t.Errorf("shared thread after delete = %+v, %v; want its triage kept", sum, err)
	}
	if locs, _ := st.Locations(ctx, "acct", "Old"); len(locs) != 1 {
		t.Errorf("Old has %d locations, want 1", len(locs))
	}
	if l := logs.String(); !strings.Contains(l, "level=INFO") || !strings.Contains(l, "mailbox=Projects") {
		t.Errorf("no Info log naming the forgotten mailbox in:\n%s", l)
	}
	// A further sync changes nothing.
	mustSync(t, src, st)
	if got := storecheck.MailboxNames(t, st, "acct"); got != "INBOX,Old" {
		t.Errorf("mailboxes after a further sync = %s, want INBOX,Old", got)
	}
}

// scenarioMailboxRenamed: a mailbox renamed on the server comes back
// under its new name; its threads keep their ids, triage and override.
func scenarioMailboxRenamed(t *testing.T, ts *testServer) {
	ctx := context.Background()
	a := ts.admin(t)
	a.create("Projects")
	a.append("INBOX", testMessage(1, "hello"))
	a.append("Projects", testMessage(2, "launch plan"))
	reply := strings.Replace(testMessage(3, "Re: launch plan"), "MIME-Version:",
		"In-Reply-To: <msg-2-launch-plan@example.com>\r\nReferences: <msg-2-launch-plan@example.com>\r\nMIME-Version:", 1)
	a.append("Projects", reply)

	st := openStore(t)
	src := ts.source(t, nil)
	mustSync(t, src, st)
	thread := storeThread(t, st, "msg-2-launch-plan@example.com")
	if got := storeThread(t, st, "msg-3-Re:-launch-plan@example.com"); got != thread {
		t.Fatalf("reply threaded separately (%d vs %d)", got, thread)
	}
	saveTriage(t, st, thread, contract.CategoryUrgent)
	if err := st.SetOverride(ctx, thread, contract.CategoryActionable); err != nil {
		t.Fatal(err)
	}
	hash, err := st.ThreadContentHash(ctx, thread)
	if err != nil {
		t.Fatal(err)
	}

	a.rename("Projects", "Clients")
	mustSync(t, src, st)

	if got := storecheck.MailboxNames(t, st, "acct"); got != "Clients,INBOX" {
		t.Errorf("mailboxes after rename = %s, want Clients,INBOX", got)
	}
	if locs, _ := st.Locations(ctx, "acct", "Clients"); len(locs) != 2 {
		t.Errorf("Clients has %d locations, want 2", len(locs))
	}
	if locs, _ := st.Locations(ctx, "acct", "Projects"); len(locs) != 0 {
		t.Errorf("Projects still has %d locations", len(locs))
	}
	for _, mid := range []string{"msg-2-launch-plan@example.com", "msg-3-Re:-launch-plan@example.com"} {
		if got := storeThread(t, st, mid); got != thread {
			t.Errorf("%s moved from thread %d to %d", mid, thread, got)
		}
	}
	sum, err := st.ThreadSummaryByID(ctx, thread)
	if err != nil || sum.Count != 2 || sum.Triage == nil || sum.Triage.Result.Category != contract.CategoryUrgent ||
		sum.Override != contract.CategoryActionable {
		t.Errorf("thread after rename = %+v, %v; want 2 messages, triage and override kept", sum, err)
	}
	if got, err := st.ThreadContentHash(ctx, thread); err != nil || got != hash {
		t.Errorf("thread content hash %q -> %q (%v): the stored triage would look stale", hash, got, err)
	}
	if missing, _ := st.MissingBodies(ctx, "acct", "Clients", 10); len(missing) != 0 {
		t.Errorf("bodies missing in Clients after sync: %v", missing)
	}
}

// listHookSession lets a test change what LIST answers.
type listHookSession struct {
	imapserver.SessionIMAP4rev2
	list func(w *imapserver.ListWriter, ref string, patterns []string, options *imap.ListOptions) error
}

func (s *listHookSession) List(w *imapserver.ListWriter, ref string, patterns []string, options *imap.ListOptions) error {
	return s.list(w, ref, patterns, options)
}

// newHookedMemServer is a memserver whose LIST goes through hook (nil:
// the memserver's own answer).
func newHookedMemServer(t *testing.T, hook func(next imapserver.SessionIMAP4rev2, w *imapserver.ListWriter, ref string, patterns []string, options *imap.ListOptions) error) *testServer {
	return serveMem(t, func(next imapserver.SessionIMAP4rev2) imapserver.Session {
		return &listHookSession{SessionIMAP4rev2: next, list: func(w *imapserver.ListWriter, ref string, patterns []string, options *imap.ListOptions) error {
			return hook(next, w, ref, patterns, options)
		}}
	})
}

// TestGoneMailboxesNeedACompleteList: stored mailboxes are forgotten only
// on a successful LIST that does not name them at all: a failed LIST, an
// empty one, or one naming the mailbox \Noselect or \NonExistent keeps
// them.
func TestGoneMailboxesNeedACompleteList(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	mode := "normal"
	ts := newHookedMemServer(t, func(next imapserver.SessionIMAP4rev2, w *imapserver.ListWriter, ref string, patterns []string, options *imap.ListOptions) error {
		mu.Lock()
		m := mode
		mu.Unlock()
		switch m {
		case "fail":
			return &imap.Error{Type: imap.StatusResponseTypeNo, Text: "LIST temporarily unavailable"}
		case "empty":
			return nil
		case "noselect":
			if err := w.WriteList(&imap.ListData{Mailbox: "Projects", Delim: '/', Attrs: []imap.MailboxAttr{imap.MailboxAttrNoSelect}}); err != nil {
				return err
			}
			if err := w.WriteList(&imap.ListData{Mailbox: "Old", Delim: '/', Attrs: []imap.MailboxAttr{imap.MailboxAttrNonExistent}}); err != nil {
				return err
			}
		}
		return next.List(w, ref, patterns, options)
	})
	a := ts.admin(t)
	a.create("Projects")
	a.create("Old")
	a.append("INBOX", testMessage(1, "inbox mail"))
	a.append("Projects", testMessage(2, "project mail"))
	a.append("Old", testMessage(3, "old mail"))
	st := openStore(t)
	src := ts.source(t, nil)
	mustSync(t, src, st)
	if got := storecheck.MailboxNames(t, st, "acct"); got != "INBOX,Old,Projects" {
		t.Fatalf("mailboxes after first sync = %s", got)
	}
	a.delete("Projects")
	a.delete("Old")

	setMode := func(m string) {
		mu.Lock()
		mode = m
		mu.Unlock()
	}
	setMode("fail")
	if err := src.Sync(ctx, st, nil); err == nil {
		t.Errorf("Sync() with a failing LIST = nil, want an error")
	}
	setMode("empty")
	if err := src.Sync(ctx, st, nil); err != nil {
		t.Errorf("Sync() with an empty LIST = %v", err)
	}
	setMode("noselect")
	if err := src.Sync(ctx, st, nil); err != nil {
		t.Errorf("Sync() with \\Noselect Projects = %v", err)
	}
	if got := storecheck.MailboxNames(t, st, "acct"); got != "INBOX,Old,Projects" {
		t.Errorf("mailboxes after failed, empty and \\Noselect/\\NonExistent LISTs = %s, want all kept", got)
	}
	if locs, _ := st.Locations(ctx, "acct", "Projects"); len(locs) != 1 {
		t.Errorf("Projects has %d locations, want its message kept", len(locs))
	}
	setMode("normal")
	mustSync(t, src, st)
	if got := storecheck.MailboxNames(t, st, "acct"); got != "INBOX" {
		t.Errorf("mailboxes after a LIST without them = %s, want INBOX", got)
	}
}

// scenarioMessageMoved: a message moved from INBOX to Archive on the
// server (copied, then expunged from INBOX, as every client moves mail)
// is the same stored message afterwards: its thread, triage result and
// the user's override survive the sync that sees both changes, although
// INBOX (where it disappears) is synced before Archive (where it
// appears).
func scenarioMessageMoved(t *testing.T, ts *testServer) {
	ctx := context.Background()
	a := ts.admin(t)
	a.create("Archive")
	raw := testMessage(1, "quarterly numbers")
	uid := a.append("INBOX", raw)
	a.append("INBOX", testMessage(2, "other"))

	st := openStore(t)
	src := ts.source(t, nil)
	mustSync(t, src, st)
	const mid = "msg-1-quarterly-numbers@example.com"
	thread := storeThread(t, st, mid)
	saveTriage(t, st, thread, contract.CategoryUrgent)
	if err := st.SetOverride(ctx, thread, contract.CategoryActionable); err != nil {
		t.Fatal(err)
	}

	a.append("Archive", raw)
	a.expunge("INBOX", uid)
	mustSync(t, src, st)

	if locs, _ := st.Locations(ctx, "acct", "INBOX"); len(locs) != 1 {
		t.Errorf("INBOX has %d locations, want 1", len(locs))
	}
	if locs, _ := st.Locations(ctx, "acct", "Archive"); len(locs) != 1 {
		t.Errorf("Archive has %d locations, want 1", len(locs))
	}
	if got := storeThread(t, st, mid); got != thread {
		t.Errorf("moved message now in thread %d, was %d: its thread was lost", got, thread)
	}
	sum, err := st.ThreadSummaryByID(ctx, thread)
	if err != nil || sum.Count != 1 || sum.Triage == nil || sum.Triage.Result.Category != contract.CategoryUrgent ||
		sum.Override != contract.CategoryActionable {
		t.Errorf("thread after the move = %+v, %v; want one message, triage and override kept", sum, err)
	}
	if missing, _ := st.MissingBodies(ctx, "acct", "Archive", 10); len(missing) != 0 {
		t.Errorf("bodies missing in Archive after sync: %v", missing)
	}

	// Expunged from everywhere: the message goes at the end of the sync.
	a.sel("Archive")
	a.expunge("Archive", 1)
	mustSync(t, src, st)
	if _, err := st.ThreadIDForMessage(ctx, mid); err == nil {
		t.Error("message expunged from every folder is still stored")
	}
}

// bodyCounter counts the messages with a body each mailbox puts into
// the store, i.e. the bodies the source fetched.
type bodyCounter struct {
	*store.Store
	mu     sync.Mutex
	bodies map[string]int
}

func (b *bodyCounter) PutMessages(ctx context.Context, msgs []*model.Message) error {
	b.mu.Lock()
	for _, m := range msgs {
		if m.HasBody {
			b.bodies[m.Loc.Mailbox]++
		}
	}
	b.mu.Unlock()
	return b.Store.PutMessages(ctx, msgs)
}

// scenarioCopiesFetchedOnce: the same messages in INBOX and in "All Mail"
// (as Gmail shows every message again in All Mail) are fetched once, in
// the first folder; the copies point at the stored messages, and only
// the message that is in All Mail alone is fetched there.
func scenarioCopiesFetchedOnce(t *testing.T, ts *testServer) {
	ctx := context.Background()
	a := ts.admin(t)
	a.create("All Mail")
	for i := range 3 {
		raw := testMessage(10+i, fmt.Sprintf("shared %d", i))
		a.append("INBOX", raw)
		if i == 0 {
			a.append("All Mail", raw, imap.FlagSeen) // flags are per folder
		} else {
			a.append("All Mail", raw)
		}
	}
	a.append("All Mail", testMessage(20, "archived only"))

	st := &bodyCounter{Store: openStore(t), bodies: map[string]int{}}
	mustSync(t, ts.source(t, nil), st)
	if got := st.bodies["INBOX"]; got != 3 {
		t.Errorf("INBOX fetched %d bodies, want 3", got)
	}
	if got := st.bodies["All Mail"]; got != 1 {
		t.Errorf("All Mail fetched %d bodies, want 1 (the copies are stored already)", got)
	}
	for i := range 3 {
		mid := fmt.Sprintf("msg-%d-shared-%d@example.com", 10+i, i)
		if th, err := st.ThreadIDForMessage(ctx, mid); err != nil {
			t.Errorf("%s not stored: %v", mid, err)
		} else if sum, err := st.ThreadSummaryByID(ctx, th); err != nil || sum.Count != 1 || !sum.HasBody {
			t.Errorf("%s's thread = %+v, %v; want one message with its body", mid, sum, err)
		}
	}
	for _, box := range []string{"INBOX", "All Mail"} {
		if m, _ := st.MissingBodies(ctx, "acct", box, 10); len(m) != 0 {
			t.Errorf("%s still misses bodies: %v", box, m)
		}
	}
	locs, _ := st.Locations(ctx, "acct", "All Mail")
	if len(locs) != 4 {
		t.Errorf("All Mail has %d locations, want 4", len(locs))
	}
	seen := 0
	for _, f := range locs {
		if f.Seen {
			seen++
		}
	}
	if seen != 1 {
		t.Errorf("%d seen locations in All Mail, want 1: a linked copy keeps its own flags", seen)
	}
	if inbox, _ := st.Locations(ctx, "acct", "INBOX"); len(inbox) != 3 {
		t.Errorf("INBOX has %d locations, want 3", len(inbox))
	} else {
		for l, f := range inbox {
			if f.Seen {
				t.Errorf("INBOX %v is seen: the copy's flag leaked", l)
			}
		}
	}
}
