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
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"mailsift/config"
	"mailsift/internal/app/event"
	"mailsift/model"
	"mailsift/store"
)

// testClock is a clock the test moves by hand, so the outbox's retry
// backoff never makes the test wait.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

// gateListener is a server's listening socket that, while down, accepts
// each connection and closes it at once (the client sees the server hang
// up before its greeting, as when a server is down behind a proxy), and
// while up hands connections to the server. One socket for the whole test
// keeps the port: a closed port could be taken by another process before
// the server comes back.
type gateListener struct {
	net.Listener
	up      atomic.Bool
	refused atomic.Int32
}

func (g *gateListener) Accept() (net.Conn, error) {
	for {
		c, err := g.Listener.Accept()
		if err != nil || g.up.Load() {
			return c, err
		}
		g.refused.Add(1)
		c.Close()
	}
}

func listenGate(t *testing.T) *gateListener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return &gateListener{Listener: ln}
}

func (g *gateListener) port() int { return g.Addr().(*net.TCPAddr).Port }

// refuseAll serves a port that is always down: every connection is hung
// up on (an IMAP server, or Ollama, that is not there).
func refuseAll(t *testing.T) *gateListener {
	t.Helper()
	g := listenGate(t)
	t.Cleanup(func() { g.Close() })
	go func() {
		for {
			if _, err := g.Accept(); err != nil {
				return
			}
		}
	}()
	return g
}

// smtpSink is a go-smtp backend that records every message it accepts.
type smtpSink struct {
	mu   sync.Mutex
	msgs [][]byte
}

func (b *smtpSink) NewSession(*smtp.Conn) (smtp.Session, error) { return &sinkSession{b: b}, nil }

func (b *smtpSink) received() [][]byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([][]byte(nil), b.msgs...)
}

type sinkSession struct{ b *smtpSink }

func (s *sinkSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *sinkSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (s *sinkSession) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.b.mu.Lock()
	s.b.msgs = append(s.b.msgs, data)
	s.b.mu.Unlock()
	return nil
}
func (s *sinkSession) Reset()        {}
func (s *sinkSession) Logout() error { return nil }

// eventLog reads a session's events and keeps them, so a test can wait
// for one without losing the others that come first.
type eventLog struct {
	t    *testing.T
	ch   <-chan event.Event
	seen []event.Event
}

// waitFor returns the index of the first event at or after index from
// that matches ok, reading new events until one does. The timeout only
// bounds a broken feature; it never paces the test.
func (l *eventLog) waitFor(from int, what string, ok func(event.Event) bool) int {
	l.t.Helper()
	for i := from; i < len(l.seen); i++ {
		if ok(l.seen[i]) {
			return i
		}
	}
	timeout := time.NewTimer(time.Minute)
	defer timeout.Stop()
	for {
		select {
		case ev := <-l.ch:
			l.seen = append(l.seen, ev)
			if ok(ev) {
				return len(l.seen) - 1
			}
		case <-timeout.C:
			var b strings.Builder
			for _, ev := range l.seen {
				fmt.Fprintf(&b, "  %T %+v\n", ev, ev)
			}
			l.t.Fatalf("no event: %s; events seen:\n%s", what, b.String())
		}
	}
}

// TestOfflineEndToEnd runs a session with everything remote down: the IMAP
// server and Ollama hang up on every connection and the SMTP server is
// down. The mail an earlier sync stored stays readable and searchable,
// triage falls back to the deterministic rules, and a confirmed reply
// waits in the outbox (failed, with a next attempt); when the SMTP server
// comes back and the retry is due, the reply goes out exactly once.
func TestOfflineEndToEnd(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	imapDown, ollamaDown := refuseAll(t), refuseAll(t)
	smtpGate := listenGate(t)
	sink := &smtpSink{}
	srv := smtp.NewServer(sink)
	srv.Domain = "localhost"
	srv.ErrorLog = log.New(io.Discard, "", 0)
	go srv.Serve(smtpGate)
	t.Cleanup(func() { srv.Close() })

	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.toml")
	cfgText := fmt.Sprintf(`[principal]
name = "Me"
email = "me@example.org"

[ollama]
host = "http://127.0.0.1:%d"

[drafts]
undo_seconds = 0

[[account]]
name = "work"
source = "imap+insecure://me@127.0.0.1:%d"
password = "not-used"
smtp = "smtp+insecure://127.0.0.1:%d"
`, ollamaDown.port(), imapDown.port(), smtpGate.port())
	if err := os.WriteFile(cfgPath, []byte(cfgText), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{Path: cfgPath, DataDir: dir, Env: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	clock := &testClock{now: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)}
	st, err := store.Open(ctx, filepath.Join(dir, "mailsift.db"), &store.Options{Principal: cfg.Principal.Address(), Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	// An earlier sync left two threads in the store.
	if err := st.EnsureAccount(ctx, "work", cfg.Accounts[0].Src.Redacted()); err != nil {
		t.Fatal(err)
	}
	msgs := []*model.Message{
		{Loc: model.Location{Account: "work", Mailbox: "INBOX", Key: "1"}, MessageID: "q1@example.com",
			From: model.Address{Name: "Bob", Email: "bob@example.com"}, To: []model.Address{{Email: "me@example.org"}},
			Subject: "Quarterly figures", Text: "Could you send me the quarterly figures by Friday?", HasBody: true,
			Date: clock.Now().Add(-2 * time.Hour), ContentHash: "h-q1", Size: 100},
		{Loc: model.Location{Account: "work", Mailbox: "INBOX", Key: "2"}, MessageID: "n1@example.com",
			From: model.Address{Name: "News", Email: "news@example.net"}, To: []model.Address{{Email: "me@example.org"}},
			Subject: "Weekly newsletter", Text: "This week in gardening.", HasBody: true,
			Date: clock.Now().Add(-time.Hour), ContentHash: "h-n1", Size: 100},
	}
	if err := st.PutMessages(ctx, msgs); err != nil {
		t.Fatal(err)
	}
	threadID, err := st.ThreadIDForMessage(ctx, "q1@example.com")
	if err != nil {
		t.Fatal(err)
	}

	// The session starts at once, whatever is down.
	a := New(cfg, st, Options{Now: clock.Now})
	s, err := a.Start(ctx)
	if err != nil {
		t.Fatalf("Start with every server down: %v", err)
	}
	defer func() {
		cancel()
		s.Wait()
	}()
	events := &eventLog{t: t, ch: s.Events()}

	// The stored mail is readable and searchable meanwhile.
	th, err := s.Mail.Thread(ctx, threadID)
	if err != nil || len(th.Messages) != 1 || th.Messages[0].Subject != "Quarterly figures" {
		t.Fatalf("reading a stored thread offline = %+v, %v", th, err)
	}
	hits, err := s.Mail.Search(ctx, "quarterly", 10)
	if err != nil || len(hits) != 1 || hits[0].ThreadID != threadID {
		t.Fatalf("Search(quarterly) offline = %+v, %v; want thread %d", hits, err, threadID)
	}

	// The IMAP server is reported down, and triage runs without the model.
	events.waitFor(0, "account work offline", func(ev event.Event) bool {
		c, ok := ev.(event.Conn)
		return ok && c.Account == "work" && c.State == event.ConnOffline
	})
	if imapDown.refused.Load() == 0 {
		t.Error("the session never tried the IMAP server")
	}
	events.waitFor(0, "triage done without the model", func(ev event.Event) bool {
		p, ok := ev.(event.TriageProgress)
		return ok && p.Offline != "" && p.Total > 0 && p.Done == p.Total
	})
	for _, mid := range []string{"q1@example.com", "n1@example.com"} {
		id, _ := st.ThreadIDForMessage(ctx, mid)
		ts, err := st.ThreadSummaryByID(ctx, id)
		if err != nil || ts.Triage == nil || ts.Section == store.SectionUntriaged {
			t.Errorf("thread of %s after offline triage: %+v, %v; want a deterministic result", mid, ts, err)
		}
	}

	// A confirmed reply waits in the outbox while SMTP is down.
	d, err := s.Drafts.NewDraft(ctx, threadID, false, "work")
	if err != nil {
		t.Fatalf("NewDraft offline: %v", err)
	}
	ap, err := s.Drafts.Approve(ctx, d.ID, 0)
	if err != nil {
		t.Fatalf("Approve: %v", err)
	}
	item, err := s.Drafts.Confirm(ctx, ap.ID)
	if err != nil {
		t.Fatalf("Confirm: %v", err)
	}
	isItem := func(state store.OutboxState, extra func(event.Outbox) bool) func(event.Event) bool {
		return func(ev event.Event) bool {
			o, ok := ev.(event.Outbox)
			return ok && o.ID == item.ID && o.State == state && (extra == nil || extra(o))
		}
	}
	i := events.waitFor(0, "the reply failed with a next attempt", isItem(store.OutboxFailed, func(o event.Outbox) bool { return !o.NextAttempt.IsZero() }))
	if smtpGate.refused.Load() == 0 || len(sink.received()) != 0 {
		t.Fatalf("while SMTP was down: %d connections hung up on, %d messages received; want some, 0", smtpGate.refused.Load(), len(sink.received()))
	}
	if it, err := st.OutboxItem(ctx, item.ID); err != nil || it.State != store.OutboxFailed || it.NextAttemptAt.IsZero() {
		t.Fatalf("outbox item while SMTP is down = %+v, %v; want failed with a next attempt", it, err)
	}

	// SMTP comes back; once the retry is due the reply leaves, once.
	smtpGate.up.Store(true)
	clock.Advance(time.Hour) // past any backoff delay
	s.Drafts.Wake()
	i = events.waitFor(i+1, "the reply sent", isItem(store.OutboxSent, nil))
	got := sink.received()
	if len(got) != 1 || !strings.Contains(string(got[0]), "<"+ap.What.MessageID+">") {
		t.Fatalf("after SMTP came back the server got %d messages; want the reply once", len(got))
	}
	// Another outbox pass (filing in Sent is still pending, IMAP is down)
	// must not send it again.
	later := clock.Advance(time.Hour)
	s.Drafts.Wake()
	events.waitFor(i+1, "another pass over the sent reply", isItem(store.OutboxSent, func(o event.Outbox) bool { return o.NextAttempt.After(later) }))
	if n := len(sink.received()); n != 1 {
		t.Fatalf("the reply was sent %d times, want exactly once", n)
	}
	if it, _ := st.OutboxItem(ctx, item.ID); it.State != store.OutboxSent || it.Attempts != 2 {
		t.Errorf("outbox item at the end = %s after %d attempts, want sent after 2", it.State, it.Attempts)
	}
}
