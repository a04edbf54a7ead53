package drafts

import (
	"context"
	"io"
	"log"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"

	mailimap "mailsift/mailsrc/imap"
	"mailsift/store"
)

// cutAppendSession is an imapmemserver session whose first APPEND (across
// sessions) loses its connection: before the message is stored, or after
// it is stored but before the tagged OK.
type cutAppendSession struct {
	imapserver.SessionIMAP4rev2
	conn   *imapserver.Conn
	cut    *atomic.Bool
	stored bool // cut after storing
}

func (s *cutAppendSession) Append(mailbox string, r imap.LiteralReader, opts *imap.AppendOptions) (*imap.AppendData, error) {
	if !s.cut.CompareAndSwap(false, true) {
		return s.SessionIMAP4rev2.Append(mailbox, r, opts)
	}
	if !s.stored {
		io.Copy(io.Discard, r)
		s.conn.NetConn().Close()
		return nil, io.ErrUnexpectedEOF
	}
	data, err := s.SessionIMAP4rev2.Append(mailbox, r, opts)
	s.conn.NetConn().Close()
	return data, err
}

// TestIMAPDiesMidAppend sends a reply whose copy to Sent goes over IMAP
// (imapmemserver) and cuts the server's connection during that APPEND,
// before or after the server stored the message. The outbox keeps the
// append pending; after a restart (a new engine and IMAP connection)
// exactly one copy is in Sent and the message was delivered once.
// (TestCrashAtEachStep's during-append step stops the process before the
// APPEND is sent; this covers the server side.)
func TestIMAPDiesMidAppend(t *testing.T) {
	for _, stored := range []bool{false, true} {
		name := "before-store"
		if stored {
			name = "after-store"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			mem := imapmemserver.New()
			u := imapmemserver.NewUser("alice", "pw-imap")
			for _, mb := range []string{"INBOX", "Sent"} {
				if err := u.Create(mb, nil); err != nil {
					t.Fatal(err)
				}
			}
			mem.AddUser(u)
			cut := new(atomic.Bool)
			srv := imapserver.New(&imapserver.Options{
				NewSession: func(c *imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
					return &cutAppendSession{SessionIMAP4rev2: mem.NewSession().(imapserver.SessionIMAP4rev2), conn: c, cut: cut, stored: stored}, nil, nil
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
			host, port, _ := net.SplitHostPort(ln.Addr().String())
			source := func() *mailimap.Source {
				s := mailimap.New("acct", mailimap.Config{Host: host, Port: port, Username: "alice", TLS: mailimap.TLSInsecurePlain,
					Password: func(context.Context) (string, error) { return "pw-imap", nil }})
				t.Cleanup(func() { s.Close() })
				return s
			}

			st, _ := newStore(t)
			tid, _ := seedThread(t, st)
			be := &smtpBackend{}
			smtpSrv := startSMTP(t, be, "plain")
			fast := func(o *Options) { o.Backoff.Base, o.Backoff.Max = time.Millisecond, time.Millisecond }
			e := newEngine(st, smtpSrv.transport("plain"), source(), fast)
			_, _, item := confirmedReply(t, e, st, tid)
			if _, err := e.ProcessDue(ctx); err != nil {
				t.Fatalf("first pass: %v", err)
			}
			if !cut.Load() {
				t.Fatal("the APPEND to Sent was never cut")
			}
			it, err := st.OutboxItem(ctx, item.ID)
			if err != nil {
				t.Fatal(err)
			}
			if it.State != store.OutboxSent || it.AppendState == store.AppendDone {
				t.Fatalf("after the cut: state %s, append %s; want sent, append pending", it.State, it.AppendState)
			}

			// Restart: a new engine and a new IMAP connection.
			it = runUntilSettled(t, newEngine(st, smtpSrv.transport("plain"), source(), fast), st, item.ID)
			if n := countSent(t, ln.Addr().String(), item.MessageID); n != 1 || it.State != store.OutboxSent {
				t.Errorf("after restart: %d copies in Sent, state %s (%s); want 1, sent", n, it.State, it.LastError)
			}
			if n := countContaining(be.messages(), item.MessageID); n != 1 {
				t.Errorf("delivered %d times, want once", n)
			}
		})
	}
}

// countSent counts the messages in Sent with the given Message-ID, over
// a separate IMAP connection.
func countSent(t *testing.T, addr, messageID string) int {
	t.Helper()
	c, err := imapclient.DialInsecure(addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Login("alice", "pw-imap").Wait(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Select("Sent", nil).Wait(); err != nil {
		t.Fatal(err)
	}
	data, err := c.UIDSearch(&imap.SearchCriteria{Header: []imap.SearchCriteriaHeaderField{{Key: "Message-ID", Value: "<" + messageID + ">"}}}, nil).Wait()
	if err != nil {
		t.Fatal(err)
	}
	return len(data.AllUIDs())
}
