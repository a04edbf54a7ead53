package app

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"

	"mailsift/config"
	"mailsift/internal/testserver/dovecot"
	"mailsift/mailsrc"
	imapsrc "mailsift/mailsrc/imap"
	"mailsift/mailsrc/maildir"
	"mailsift/mirror"
	"mailsift/model"
	"mailsift/store"
)

const (
	actUser = "alice"
	actPass = "actions-Passw0rd"
)

// mailServer is a server the action tests check: what a mailbox holds,
// by Message-ID.
type mailServer interface {
	// count returns how many messages of mailbox carry Message-ID id
	// (-1 when the mailbox does not exist).
	count(t testing.TB, mailbox, id string) int
	// hasFlag reports whether the message with id in mailbox has flag.
	hasFlag(t *testing.T, mailbox, id string, flag imap.Flag) bool
	source(t testing.TB) mailsrc.Source
	// down returns a source for the same account that cannot connect.
	down(t *testing.T) mailsrc.Source
}

type imapServer struct {
	addr string
	c    *imapclient.Client
}

func newIMAPServer(t testing.TB, addr string) *imapServer {
	c, err := imapclient.DialInsecure(addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Login(actUser, actPass).Wait(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &imapServer{addr: addr, c: c}
}

func (s *imapServer) append(t testing.TB, box, raw string) {
	t.Helper()
	raw = strings.ReplaceAll(strings.ReplaceAll(raw, "\r\n", "\n"), "\n", "\r\n")
	cmd := s.c.Append(box, int64(len(raw)), nil)
	if _, err := io.WriteString(cmd, raw); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := cmd.Wait(); err != nil {
		t.Fatalf("append to %s: %v", box, err)
	}
}

func (s *imapServer) uids(t testing.TB, box, id string) []imap.UID {
	t.Helper()
	if _, err := s.c.Select(box, &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
		return nil
	}
	crit := &imap.SearchCriteria{Header: []imap.SearchCriteriaHeaderField{{Key: "Message-ID", Value: "<" + id + ">"}}}
	data, err := s.c.UIDSearch(crit, nil).Wait()
	if err != nil {
		t.Fatalf("search %s: %v", box, err)
	}
	return data.AllUIDs()
}

func (s *imapServer) count(t testing.TB, box, id string) int {
	t.Helper()
	if _, err := s.c.Select(box, &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
		return -1
	}
	return len(s.uids(t, box, id))
}

func (s *imapServer) hasFlag(t *testing.T, box, id string, flag imap.Flag) bool {
	t.Helper()
	uids := s.uids(t, box, id)
	if len(uids) != 1 {
		return false
	}
	msgs, err := s.c.Fetch(imap.UIDSetNum(uids[0]), &imap.FetchOptions{Flags: true}).Collect()
	if err != nil || len(msgs) != 1 {
		t.Fatalf("fetch flags: %v", err)
	}
	for _, f := range msgs[0].Flags {
		if strings.EqualFold(string(f), string(flag)) {
			return true
		}
	}
	return false
}

func (s *imapServer) sourceAt(t testing.TB, addr string) mailsrc.Source {
	host, port, _ := net.SplitHostPort(addr)
	src := imapsrc.New("acct", imapsrc.Config{Host: host, Port: port, Username: actUser, TLS: imapsrc.TLSInsecurePlain,
		Password: func(context.Context) (string, error) { return actPass, nil }})
	t.Cleanup(func() { src.Close() })
	return src
}

func (s *imapServer) source(t testing.TB) mailsrc.Source { return s.sourceAt(t, s.addr) }

func (s *imapServer) down(t *testing.T) mailsrc.Source {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: connections are refused
	return s.sourceAt(t, addr)
}

// startMem starts an imapmemserver with caps (MOVE through IMAP4rev2, or
// IMAP4rev1 with UIDPLUS only, for the COPY fallback).
func startMem(t *testing.T, caps imap.CapSet) *imapServer {
	mem := imapmemserver.New()
	u := imapmemserver.NewUser(actUser, actPass)
	if err := u.Create("INBOX", nil); err != nil {
		t.Fatal(err)
	}
	mem.AddUser(u)
	srv := imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return mem.NewSession(), nil, nil
		},
		InsecureAuth: true,
		Caps:         caps,
		Logger:       log.New(io.Discard, "", 0),
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return newIMAPServer(t, ln.Addr().String())
}

func actionMessage(i int) string {
	return fmt.Sprintf("From: Sender %d <s%d@example.com>\nTo: alex@example.com\nSubject: topic %d\n"+
		"Date: %s\nMessage-ID: <act-%d@example.com>\n\nBody %d.\n",
		i, i, i, time.Date(2026, 11, 1, 9, i, 0, 0, time.UTC).Format(time.RFC1123Z), i, i)
}

func actionsApp(t *testing.T) (*App, *store.Store) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "m.db"),
		&store.Options{Principal: model.Address{Email: "alex@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg := config.Defaults()
	cfg.Principal = config.Principal{Email: "alex@example.com"}
	return New(&cfg, st, Options{}), st
}

func threadByMessage(t *testing.T, st *store.Store, i int) int64 {
	t.Helper()
	id, err := st.ThreadIDForMessage(context.Background(), fmt.Sprintf("act-%d@example.com", i))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// checkOnce asserts where each message is on the server: in want's
// mailbox exactly once and in no other of boxes.
func checkOnce(t *testing.T, srv mailServer, boxes []string, want map[int]string) {
	t.Helper()
	for i, box := range want {
		id := fmt.Sprintf("act-%d@example.com", i)
		for _, b := range boxes {
			n := srv.count(t, b, id)
			if b == box && n != 1 {
				t.Errorf("message %d is %d times in %s, want once", i, n, b)
			}
			if b != box && n > 0 {
				t.Errorf("message %d is also in %s (%d times), want only in %s", i, b, n, box)
			}
		}
	}
}

func inboxCount(t *testing.T, st *store.Store) int {
	t.Helper()
	cm, err := st.SectionCounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range store.Sections() {
		n += cm[s]
	}
	return n
}

// runActionsScenario drives every action against one server: archive,
// undo after the server applied it, offline queueing replayed once, undo
// while still queued, spam with $Junk and not spam, delete to Trash and
// delete for good, and a sync afterwards that finds the store right.
func runActionsScenario(t *testing.T, srv mailServer, seed func(i int)) {
	ctx := context.Background()
	for i := 1; i <= 6; i++ {
		seed(i)
	}
	a, st := actionsApp(t)
	src := srv.source(t)
	if err := mirror.Sync(ctx, st, "acct", src, nil); err != nil {
		t.Fatal(err)
	}
	if n := inboxCount(t, st); n != 6 {
		t.Fatalf("inbox holds %d threads after the first sync, want 6", n)
	}
	x := a.Actions(nil)
	th := func(i int) int64 { return threadByMessage(t, st, i) }
	boxes := []string{"INBOX", "Archive", "Junk", "Trash"}

	// Archive two: gone from the inbox at once, on the server after replay.
	res, err := x.Archive(ctx, []int64{th(1), th(2)})
	if err != nil || !strings.Contains(res, "archived 2 threads") {
		t.Fatalf("Archive = %+v, %v", res, err)
	}
	if n := inboxCount(t, st); n != 4 {
		t.Errorf("inbox holds %d threads after archiving 2 of 6, want 4", n)
	}
	if err := mirror.Replay(ctx, st, "acct", src); err != nil {
		t.Fatalf("Replay: %v", err)
	}
	checkOnce(t, srv, boxes, map[int]string{1: "Archive", 2: "Archive", 3: "INBOX"})

	// Undo after the server applied it: moved back.
	if r, err := x.Undo(ctx); err != nil || !strings.Contains(r, "archive 2 threads") {
		t.Fatalf("Undo = %+v, %v", r, err)
	}
	if err := mirror.Replay(ctx, st, "acct", src); err != nil {
		t.Fatal(err)
	}
	checkOnce(t, srv, boxes, map[int]string{1: "INBOX", 2: "INBOX"})

	// Offline: queued, the store changes at once, nothing reaches the
	// server; back online it is applied exactly once.
	if _, err := x.Archive(ctx, []int64{th(3)}); err != nil {
		t.Fatal(err)
	}
	if err := mirror.Replay(ctx, st, "acct", srv.down(t)); err == nil {
		t.Error("Replay through a server that is down succeeded")
	}
	if p, _ := st.PendingMoves(ctx, "acct", 0); len(p) != 1 {
		t.Errorf("%d moves queued while offline, want 1", len(p))
	}
	checkOnce(t, srv, boxes, map[int]string{3: "INBOX"})
	if err := mirror.Replay(ctx, st, "acct", src); err != nil {
		t.Fatal(err)
	}
	if err := mirror.Replay(ctx, st, "acct", src); err != nil {
		t.Fatal(err)
	}
	checkOnce(t, srv, boxes, map[int]string{3: "Archive"})

	// Undo while queued: never reaches the server.
	if _, err := x.Archive(ctx, []int64{th(4)}); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Undo(ctx); err != nil {
		t.Fatal(err)
	}
	if p, _ := st.PendingMoves(ctx, "acct", 0); len(p) != 0 {
		t.Errorf("undo of a queued archive left %d moves queued", len(p))
	}

	// Spam: to Junk with $Junk; the mark is recorded. Then not spam.
	if _, err := x.ToggleSpam(ctx, []int64{th(5)}); err != nil {
		t.Fatal(err)
	}
	if err := mirror.Replay(ctx, st, "acct", src); err != nil {
		t.Fatal(err)
	}
	checkOnce(t, srv, boxes, map[int]string{5: "Junk"})
	if !srv.hasFlag(t, "Junk", "act-5@example.com", "$Junk") {
		t.Error("the spam message in Junk lacks $Junk")
	}
	if marks, _ := x.SpamMarks(ctx, 0); len(marks) != 1 || !marks[0].Spam || marks[0].Sender != "s5@example.com" {
		t.Errorf("spam marks = %+v", marks)
	}
	if _, err := x.ToggleSpam(ctx, []int64{th(5)}); err != nil {
		t.Fatal(err)
	}
	if err := mirror.Replay(ctx, st, "acct", src); err != nil {
		t.Fatal(err)
	}
	checkOnce(t, srv, boxes, map[int]string{5: "INBOX"})
	if srv.hasFlag(t, "INBOX", "act-5@example.com", "$Junk") || !srv.hasFlag(t, "INBOX", "act-5@example.com", "$NotJunk") {
		t.Error("the message back from Junk should have $NotJunk and no $Junk")
	}

	// Delete goes to Trash; delete again asks for "for good".
	if _, err := x.Delete(ctx, []int64{th(6)}); err != nil {
		t.Fatal(err)
	}
	if err := mirror.Replay(ctx, st, "acct", src); err != nil {
		t.Fatal(err)
	}
	checkOnce(t, srv, boxes, map[int]string{6: "Trash"})
	if _, err := x.Delete(ctx, []int64{th(6)}); err == nil || !strings.Contains(err.Error(), "already in Trash") {
		t.Errorf("Delete from Trash = %v, want the already-in-Trash error", err)
	}
	if r, err := x.DeleteForever(ctx, []int64{th(6)}); err != nil || !strings.Contains(r, "deleted 1 thread for good") {
		t.Fatalf("DeleteForever = %+v, %v", r, err)
	}
	if err := mirror.Replay(ctx, st, "acct", src); err != nil {
		t.Fatal(err)
	}
	checkOnce(t, srv, boxes, map[int]string{6: "none"})

	// A sync afterwards agrees with the store: nothing came back, nothing
	// doubled.
	if err := mirror.Sync(ctx, st, "acct", src, nil); err != nil {
		t.Fatal(err)
	}
	if n := inboxCount(t, st); n != 4 { // 1, 2, 4, 5; 3 archived, 6 deleted
		t.Errorf("inbox holds %d threads after the final sync, want 4", n)
	}
	for i, want := range map[int]string{1: store.StatusOpen, 3: store.StatusClosed, 5: store.StatusOpen} {
		if s, err := x.ThreadStatus(ctx, th(i)); err != nil || s.Status != want {
			t.Errorf("thread of message %d: status %+v, %v; want %s", i, s, err, want)
		}
	}
}

func TestActionsMemServerMove(t *testing.T) {
	srv := startMem(t, imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapIMAP4rev2: {}})
	runActionsScenario(t, srv, func(i int) { srv.append(t, "INBOX", actionMessage(i)) })
}

func TestActionsMemServerCopyFallback(t *testing.T) {
	srv := startMem(t, imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapUIDPlus: {}})
	runActionsScenario(t, srv, func(i int) { srv.append(t, "INBOX", actionMessage(i)) })
}

func TestActionsDovecot(t *testing.T) {
	d := dovecot.Start(t, &dovecot.Options{Users: map[string]string{actUser: actPass}})
	srv := newIMAPServer(t, d.Addr)
	runActionsScenario(t, srv, func(i int) { srv.append(t, "INBOX", actionMessage(i)) })
}

// maildirServer checks a Maildir tree (Maildir++ layout).
type maildirServer struct{ root string }

func (m *maildirServer) dir(box string) string {
	if box == "INBOX" {
		return m.root
	}
	return filepath.Join(m.root, "."+box)
}

func (m *maildirServer) files(box, id string) []string {
	var out []string
	for _, sub := range []string{"cur", "new"} {
		entries, err := os.ReadDir(filepath.Join(m.dir(box), sub))
		if err != nil {
			continue
		}
		for _, e := range entries {
			b, _ := os.ReadFile(filepath.Join(m.dir(box), sub, e.Name()))
			if strings.Contains(string(b), "<"+id+">") {
				out = append(out, e.Name())
			}
		}
	}
	return out
}

func (m *maildirServer) count(t testing.TB, box, id string) int { return len(m.files(box, id)) }

// hasFlag: Maildir has no keywords; $Junk / $NotJunk stay in the store.
func (m *maildirServer) hasFlag(t *testing.T, box, id string, flag imap.Flag) bool {
	return flag == "$Junk" && box == "Junk" || flag == "$NotJunk" && box == "INBOX"
}

func (m *maildirServer) source(t testing.TB) mailsrc.Source { return maildir.New("acct", m.root, nil) }

func (m *maildirServer) down(t *testing.T) mailsrc.Source {
	return maildir.New("acct", filepath.Join(m.root, "unmounted"), nil)
}

func TestActionsMaildir(t *testing.T) {
	m := &maildirServer{root: t.TempDir()}
	for _, sub := range []string{"cur", "new", "tmp"} {
		if err := os.MkdirAll(filepath.Join(m.root, sub), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	runActionsScenario(t, m, func(i int) {
		name := fmt.Sprintf("17000000%02d.M%dP1.host:2,", i, i)
		if err := os.WriteFile(filepath.Join(m.root, "cur", name), []byte(actionMessage(i)), 0o600); err != nil {
			t.Fatal(err)
		}
	})
}

// TestArchiveDestinations checks where archive sends an inbox copy:
// \Archive when the account has one, else Gmail's \All, else "Archive".
func TestArchiveDestinations(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		boxes []model.Mailbox
		want  string
	}{
		{"special-use archive", []model.Mailbox{{Name: "Archives", Role: model.RoleArchive}, {Name: "[Gmail]/All Mail", Role: model.RoleAll}}, "Archives"},
		{"gmail", []model.Mailbox{{Name: "[Gmail]/All Mail", Role: model.RoleAll}}, "[Gmail]/All Mail"},
		{"none", nil, "Archive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, st := actionsApp(t)
			for _, mb := range tc.boxes {
				mb.Account = "acct"
				if err := st.SetMailbox(ctx, mb); err != nil {
					t.Fatal(err)
				}
			}
			m := &model.Message{Loc: model.Location{Account: "acct", Mailbox: "INBOX", Key: "1", UID: 1}, MessageID: "d@x",
				Subject: "s", Text: "t", HasBody: true, ContentHash: "h", Size: 1, Date: time.Now()}
			if err := st.PutMessages(ctx, []*model.Message{m}); err != nil {
				t.Fatal(err)
			}
			id, _ := st.ThreadIDForMessage(ctx, "d@x")
			if _, err := a.Actions(nil).Archive(ctx, []int64{id}); err != nil {
				t.Fatal(err)
			}
			p, _ := st.PendingMoves(ctx, "acct", 0)
			if len(p) != 1 || p[0].To != tc.want {
				t.Errorf("pending = %+v, want a move to %q", p, tc.want)
			}
		})
	}
}

// refusingSession is a memserver session that refuses to create or move
// into the mailbox "Forbidden", as a server refuses for good.
type refusingSession struct{ imapserver.SessionIMAP4rev2 }

func refuse(dest string) error {
	if dest == "Forbidden" {
		return &imap.Error{Type: imap.StatusResponseTypeNo, Code: imap.ResponseCodeNoPerm, Text: "not allowed here"}
	}
	return nil
}

func (s refusingSession) Create(mailbox string, opts *imap.CreateOptions) error {
	if err := refuse(mailbox); err != nil {
		return err
	}
	return s.SessionIMAP4rev2.Create(mailbox, opts)
}

func (s refusingSession) Move(w *imapserver.MoveWriter, numSet imap.NumSet, dest string) error {
	if err := refuse(dest); err != nil {
		return err
	}
	return s.SessionIMAP4rev2.Move(w, numSet, dest)
}

// TestRefusedMoveGoesBack: a move the server refuses for good is not
// retried forever (it would hold every later sync up): the copy goes back
// where the server has it, the user is told, and the next replay is clean.
func TestRefusedMoveGoesBack(t *testing.T) {
	ctx := context.Background()
	mem := imapmemserver.New()
	u := imapmemserver.NewUser(actUser, actPass)
	if err := u.Create("INBOX", nil); err != nil {
		t.Fatal(err)
	}
	mem.AddUser(u)
	srv := imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return refusingSession{mem.NewSession().(imapserver.SessionIMAP4rev2)}, nil, nil
		},
		InsecureAuth: true,
		Caps:         imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapIMAP4rev2: {}},
		Logger:       log.New(io.Discard, "", 0),
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	s := newIMAPServer(t, ln.Addr().String())
	s.append(t, "INBOX", actionMessage(1))
	s.append(t, "INBOX", actionMessage(2))
	a, st := actionsApp(t)
	src := s.source(t)
	if err := mirror.Sync(ctx, st, "acct", src, nil); err != nil {
		t.Fatal(err)
	}
	x := a.Actions(nil)
	if _, err := x.MoveTo(ctx, []int64{threadByMessage(t, st, 1)}, "Forbidden"); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Archive(ctx, []int64{threadByMessage(t, st, 2)}); err != nil {
		t.Fatal(err)
	}
	err = mirror.Replay(ctx, st, "acct", src)
	if err == nil || !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), "back where they were") {
		t.Fatalf("Replay = %v, want the refusal explained", err)
	}
	if p, _ := st.PendingMoves(ctx, "acct", 0); len(p) != 0 {
		t.Errorf("%d moves still queued after the refusal", len(p))
	}
	if s1, _ := x.ThreadStatus(ctx, threadByMessage(t, st, 1)); s1.Status != store.StatusOpen {
		t.Errorf("refused thread is %q, want back in the inbox", s1.Status)
	}
	checkOnce(t, s, []string{"INBOX", "Archive", "Forbidden"}, map[int]string{1: "INBOX", 2: "Archive"})
	if err := mirror.Sync(ctx, st, "acct", src, nil); err != nil {
		t.Errorf("the next sync after a refusal = %v", err)
	}
	if n := inboxCount(t, st); n != 1 {
		t.Errorf("inbox holds %d threads after the sync, want 1", n)
	}
}
