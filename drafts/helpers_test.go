package drafts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"mailsift/model"
	"mailsift/store"
)

var (
	alice = model.Address{Name: "Alice Example", Email: "alice@example.com"} // the principal
	bob   = model.Address{Name: "Bob Builder", Email: "bob@example.com"}
	carol = model.Address{Name: "Carol", Email: "carol@example.com"}
)

func openStore(t testing.TB, path string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), path, &store.Options{Principal: alice})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newStore(t testing.TB) (*store.Store, string) {
	path := filepath.Join(t.TempDir(), "mailsift.db")
	return openStore(t, path), path
}

func msg(id, subject string, from model.Address, to, cc []model.Address, date time.Time, body string, refs ...string) *model.Message {
	h := sha256.Sum256([]byte(id + body))
	m := &model.Message{
		Loc:        model.Location{Account: "acct", Mailbox: "INBOX", Key: id},
		MessageID:  id,
		References: refs,
		From:       from, To: to, Cc: cc,
		Date: date, Subject: subject, Text: body,
		HasBody: true, ContentHash: hex.EncodeToString(h[:]),
	}
	if len(refs) > 0 {
		m.InReplyTo = refs[len(refs)-1:]
	}
	return m
}

// seedThread stores a two-message thread (bob → alice, cc carol) and
// returns its id and the latest message's id.
func seedThread(t testing.TB, st *store.Store) (int64, string) {
	t.Helper()
	ctx := context.Background()
	base := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	m1 := msg("m1@example.com", "Quarterly report", bob, []model.Address{alice}, []model.Address{carol}, base, "Hi Alice, can you review the report?")
	m2 := msg("m2@example.com", "Re: Quarterly report", bob, []model.Address{alice}, []model.Address{carol}, base.Add(time.Hour), "Any news on the report?", "m1@example.com")
	if err := st.PutMessages(ctx, []*model.Message{m1, m2}); err != nil {
		t.Fatal(err)
	}
	id, err := st.ThreadIDForMessage(ctx, "m2@example.com")
	if err != nil {
		t.Fatal(err)
	}
	return id, "m2@example.com"
}

// memMailbox is an in-memory Mailbox (a Sent and Drafts folder).
type memMailbox struct {
	mu      sync.Mutex
	folders map[string][][]byte
	uids    map[string][]uint32
	uid     uint32
	deleted []uint32
}

func newMemMailbox() *memMailbox {
	return &memMailbox{folders: map[string][][]byte{}, uids: map[string][]uint32{}}
}

func (m *memMailbox) Append(_ context.Context, mailbox string, _ []model.Flag, _ time.Time, raw []byte) (uint32, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.folders[mailbox] = append(m.folders[mailbox], append([]byte(nil), raw...))
	m.uid++
	m.uids[mailbox] = append(m.uids[mailbox], m.uid)
	return m.uid, nil
}

// DeleteMessage removes the message with the given uid (uids are 1-based
// append order across folders; the slot is kept so later uids stay valid).
func (m *memMailbox) DeleteMessage(_ context.Context, mailbox string, uid uint32) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.deleted = append(m.deleted, uid)
	var keep [][]byte
	for i, raw := range m.folders[mailbox] {
		if m.uids[mailbox][i] != uid {
			keep = append(keep, raw)
		}
	}
	m.folders[mailbox] = keep
	var ku []uint32
	for _, u := range m.uids[mailbox] {
		if u != uid {
			ku = append(ku, u)
		}
	}
	m.uids[mailbox] = ku
	return nil
}

func (m *memMailbox) FindByMessageID(_ context.Context, mailbox, id string) (bool, error) {
	return m.count(mailbox, id) > 0, nil
}

func (m *memMailbox) count(mailbox, id string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, raw := range m.folders[mailbox] {
		if strings.Contains(string(raw), "Message-ID: <"+id+">") {
			n++
		}
	}
	return n
}

// dirMailbox is a Mailbox in a directory shared between processes: one
// file per appended message, named by Message-ID.
type dirMailbox struct{ dir string }

func (d dirMailbox) path(mailbox, id string) string {
	return filepath.Join(d.dir, mailbox+"__"+strings.NewReplacer("/", "_", "@", "_at_").Replace(id))
}

func (d dirMailbox) Append(_ context.Context, mailbox string, _ []model.Flag, _ time.Time, raw []byte) (uint32, error) {
	id := ""
	for _, line := range strings.Split(string(raw), "\r\n") {
		if v, ok := strings.CutPrefix(line, "Message-ID: <"); ok {
			id = strings.TrimSuffix(v, ">")
			break
		}
	}
	p := d.path(mailbox, id)
	if _, err := os.Stat(p); err == nil {
		// a second copy: record it so tests can see duplicates
		p += "." + time.Now().Format("150405.000000000")
	}
	return 1, os.WriteFile(p, raw, 0o600)
}

func (d dirMailbox) FindByMessageID(_ context.Context, mailbox, id string) (bool, error) {
	_, err := os.Stat(d.path(mailbox, id))
	return err == nil, nil
}

func (d dirMailbox) count(mailbox, id string) int {
	m, _ := filepath.Glob(d.path(mailbox, id) + "*")
	return len(m)
}

// confirmedReply drafts a reply to the seeded thread (with a Bcc), approves
// and confirms it, returning the draft, approval and outbox item.
func confirmedReply(t testing.TB, e *Engine, st *store.Store, threadID int64) (*Draft, *store.Approval, *store.OutboxItem) {
	t.Helper()
	ctx := context.Background()
	d, err := e.NewDraft(ctx, threadID, false, "")
	if err != nil {
		t.Fatal(err)
	}
	d.Bcc = []model.Address{{Email: "archive@example.com"}}
	d.Body = "Hi Bob,\n\nThe report is fine, thanks.\n\nAlice"
	if err := e.SaveDraft(ctx, d); err != nil {
		t.Fatal(err)
	}
	a, item := approveConfirm(t, e, d.ID)
	return d, a, item
}

// approveConfirm approves draft id for a minute and confirms the send,
// as the review and confirm screens do.
func approveConfirm(t testing.TB, e *Engine, id string) (*store.Approval, *store.OutboxItem) {
	t.Helper()
	ctx := context.Background()
	a, err := e.Approve(ctx, id, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	item, err := e.Confirm(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	return a, item
}

// newConfirmed drafts the default reply to thread tid and confirms it.
func newConfirmed(t testing.TB, e *Engine, tid int64) (*Draft, *store.Approval, *store.OutboxItem) {
	t.Helper()
	d, err := e.NewDraft(context.Background(), tid, false, "")
	if err != nil {
		t.Fatal(err)
	}
	a, item := approveConfirm(t, e, d.ID)
	return d, a, item
}

// ticketFor passes raw through the real approval gate of a fresh store
// and returns the send ticket (for calling transports directly).
func ticketFor(t testing.TB, raw, from string, rcpts ...string) *store.SendTicket {
	t.Helper()
	ctx := context.Background()
	st, _ := newStore(t)
	d := &store.Draft{To: []model.Address{{Email: rcpts[0]}}, Body: "x"}
	if err := st.SaveDraft(ctx, d); err != nil {
		t.Fatal(err)
	}
	a := &store.Approval{DraftID: d.ID, ExpiresAt: time.Now().Add(time.Minute), What: store.ApprovalWhat{
		Action: "send_mail", EnvelopeFrom: from, Recipients: rcpts, MessageID: NewMessageID(from), Message: raw}}
	if err := st.CreateApproval(ctx, a); err != nil {
		t.Fatal(err)
	}
	item, err := st.ConfirmAndEnqueue(ctx, store.ConfirmRequest{ApprovalID: a.ID, By: "operator", NotBefore: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	tk, err := st.BeginSend(ctx, item.ID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// testClock is a settable clock for Options.Now.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
