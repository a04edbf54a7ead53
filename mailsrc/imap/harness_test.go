package imap

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
)

const (
	testUser = "alice"
	testPass = "s3cret-Passw0rd"
)

// testServer is an IMAP server the suite runs against.
type testServer struct {
	kind string
	addr string
	user string
	pass string
	// logins counts LOGIN attempts seen by the server (nil if the server
	// cannot count them).
	logins *atomic.Int64
	// condstore is true if the server has CONDSTORE.
	condstore bool
}

type newServerFunc func(t testing.TB) *testServer

// countingSession counts login attempts on the memserver side.
type countingSession struct {
	imapserver.SessionIMAP4rev2
	logins *atomic.Int64
}

func (s *countingSession) Login(username, password string) error {
	s.logins.Add(1)
	return s.SessionIMAP4rev2.Login(username, password)
}

// newMemServer starts go-imap's imapmemserver on 127.0.0.1:0.
func newMemServer(t testing.TB) *testServer {
	logins := new(atomic.Int64)
	ts := serveMem(t, func(next imapserver.SessionIMAP4rev2) imapserver.Session {
		return &countingSession{SessionIMAP4rev2: next, logins: logins}
	})
	ts.logins = logins
	return ts
}

// serveMem starts an imapmemserver with one user (an empty INBOX) on
// 127.0.0.1:0, each session made by wrap from the memserver's own.
func serveMem(t testing.TB, wrap func(next imapserver.SessionIMAP4rev2) imapserver.Session) *testServer {
	mem := imapmemserver.New()
	u := imapmemserver.NewUser(testUser, testPass)
	if err := u.Create("INBOX", nil); err != nil {
		t.Fatal(err)
	}
	mem.AddUser(u)
	srv := imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return wrap(mem.NewSession().(imapserver.SessionIMAP4rev2)), nil, nil
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
	return &testServer{kind: "memserver", addr: ln.Addr().String(), user: testUser, pass: testPass}
}

// source returns a plain-loopback Source for the server.
func (ts *testServer) source(t testing.TB, mod func(*Config)) *Source {
	host, port, _ := net.SplitHostPort(ts.addr)
	cfg := Config{
		Host: host, Port: port, Username: ts.user, TLS: TLSInsecurePlain,
		Password: func(context.Context) (string, error) { return ts.pass, nil },
	}
	if mod != nil {
		mod(&cfg)
	}
	s := New("acct", cfg)
	t.Cleanup(func() { s.Close() })
	return s
}

// admin is a second, independent client that changes the server behind
// the source's back.
type admin struct {
	t testing.TB
	c *imapclient.Client
}

func (ts *testServer) admin(t testing.TB) *admin {
	c, err := imapclient.DialInsecure(ts.addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Login(ts.user, ts.pass).Wait(); err != nil {
		t.Fatalf("admin login: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return &admin{t: t, c: c}
}

func (a *admin) create(name string) {
	a.t.Helper()
	if err := a.c.Create(name, nil).Wait(); err != nil {
		a.t.Fatalf("create %q: %v", name, err)
	}
}

func (a *admin) delete(name string) {
	a.t.Helper()
	if err := a.c.Unselect().Wait(); err != nil && !strings.Contains(err.Error(), "No mailbox") {
		_ = err // not selected: fine
	}
	if err := a.c.Delete(name).Wait(); err != nil {
		a.t.Fatalf("delete %q: %v", name, err)
	}
}

func (a *admin) append(box string, raw string, flags ...imap.Flag) imap.UID {
	a.t.Helper()
	raw = strings.ReplaceAll(strings.ReplaceAll(raw, "\r\n", "\n"), "\n", "\r\n")
	cmd := a.c.Append(box, int64(len(raw)), &imap.AppendOptions{Flags: flags})
	if _, err := io.WriteString(cmd, raw); err != nil {
		a.t.Fatal(err)
	}
	if err := cmd.Close(); err != nil {
		a.t.Fatal(err)
	}
	data, err := cmd.Wait()
	if err != nil {
		a.t.Fatalf("append to %q: %v", box, err)
	}
	return data.UID
}

func (a *admin) sel(box string) {
	a.t.Helper()
	if _, err := a.c.Select(box, nil).Wait(); err != nil {
		a.t.Fatalf("select %q: %v", box, err)
	}
}

func (a *admin) store(box string, uid imap.UID, op imap.StoreFlagsOp, flags ...imap.Flag) {
	a.t.Helper()
	a.sel(box)
	if err := a.c.Store(imap.UIDSetNum(uid), &imap.StoreFlags{Op: op, Silent: true, Flags: flags}, nil).Close(); err != nil {
		a.t.Fatalf("store: %v", err)
	}
}

func (a *admin) expunge(box string, uid imap.UID) {
	a.t.Helper()
	a.store(box, uid, imap.StoreFlagsAdd, imap.FlagDeleted)
	if err := a.c.Expunge().Close(); err != nil {
		a.t.Fatalf("expunge: %v", err)
	}
}

func (a *admin) flags(box string, uid imap.UID) []imap.Flag {
	a.t.Helper()
	a.sel(box)
	msgs, err := a.c.Fetch(imap.UIDSetNum(uid), &imap.FetchOptions{Flags: true, UID: true}).Collect()
	if err != nil || len(msgs) != 1 {
		a.t.Fatalf("fetch flags of %d: %v (%d msgs)", uid, err, len(msgs))
	}
	return msgs[0].Flags
}

func hasFlag(fl []imap.Flag, f imap.Flag) bool {
	for _, x := range fl {
		if strings.EqualFold(string(x), string(f)) {
			return true
		}
	}
	return false
}

// testMessage returns a small synthetic message.
func testMessage(i int, subject string) string {
	return fmt.Sprintf("From: Sender %d <sender%d@example.com>\r\nTo: alice@example.com\r\n"+
		"Subject: %s\r\nDate: %s\r\nMessage-ID: <msg-%d-%s@example.com>\r\n"+
		"List-Id: <news.example.com>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"+
		"Body of message %d about %s.\r\n",
		i, i, subject, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i)*time.Minute).Format(time.RFC1123Z),
		i, strings.ReplaceAll(subject, " ", "-"), i, subject)
}

func readFixture(t testing.TB, name string) string {
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// cutDialer dials through a wrapper that, after limit bytes have been
// read from the server, either closes the connection (cut) or stops
// delivering data until the connection is closed (stall).
type cutDialer struct {
	limit int64
	stall bool
	dials atomic.Int64

	initOnce, stallOnce sync.Once
	stalled             chan struct{} // see stalledC
}

// stalledC returns a channel closed once a read has stalled.
func (d *cutDialer) stalledC() <-chan struct{} {
	d.initOnce.Do(func() { d.stalled = make(chan struct{}) })
	return d.stalled
}

// markStalled closes the stalledC channel (once).
func (d *cutDialer) markStalled() {
	d.stalledC()
	d.stallOnce.Do(func() { close(d.stalled) })
}

func (d *cutDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d.dials.Add(1)
	var nd net.Dialer
	c, err := nd.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &cutConn{Conn: c, left: d.limit, stall: d.stall, closed: make(chan struct{}), d: d}, nil
}

type cutConn struct {
	net.Conn
	mu     sync.Mutex
	left   int64
	stall  bool
	once   sync.Once
	closed chan struct{}
	d      *cutDialer
}

func (c *cutConn) Read(b []byte) (int, error) {
	c.mu.Lock()
	left := c.left
	c.mu.Unlock()
	if left <= 0 {
		if c.stall {
			c.d.markStalled()
			<-c.closed
			return 0, net.ErrClosed
		}
		c.Close()
		return 0, io.ErrUnexpectedEOF
	}
	if int64(len(b)) > left {
		b = b[:left]
	}
	n, err := c.Conn.Read(b)
	c.mu.Lock()
	c.left -= int64(n)
	c.mu.Unlock()
	return n, err
}

func (c *cutConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}
