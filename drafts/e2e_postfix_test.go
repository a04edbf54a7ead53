package drafts

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"mailsift/internal/testserver/dovecot"
	"mailsift/internal/testserver/postfix"
	imapsrc "mailsift/mailsrc/imap"
	"mailsift/model"
	"mailsift/store"
)

// imapCount logs in as user and counts the messages in mailbox with the
// given Message-ID.
func imapCount(t *testing.T, addr, user, pass, mailbox, messageID string) int {
	t.Helper()
	c, err := imapclient.DialInsecure(addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Login(user, pass).Wait(); err != nil {
		t.Fatalf("login %s: %v", user, err)
	}
	if _, err := c.Select(mailbox, &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
		return 0
	}
	data, err := c.UIDSearch(&imap.SearchCriteria{Header: []imap.SearchCriteriaHeaderField{{Key: "Message-ID", Value: messageID}}}, nil).Wait()
	if err != nil {
		t.Fatal(err)
	}
	return len(data.AllUIDs())
}

// waitDelivered is dovecot.WaitDelivered under the name this package's
// Postfix tests (here, itip_test.go, newmsg_test.go) call it by.
var waitDelivered = dovecot.WaitDelivered

// TestPostfixDovecotEndToEnd sends a confirmed reply through a private
// Postfix delivering to Dovecot over LMTP, then finds it exactly once in
// the recipient's INBOX and exactly once in the sender's Sent folder (the
// APPEND goes through the IMAP source).
func TestPostfixDovecotEndToEnd(t *testing.T) {
	if postfix.Binary() == "" {
		postfix.Unavailable(t, "postfix is not installed")
	}
	if dovecot.Binary() == "" {
		dovecot.Unavailable(t, "dovecot is not installed")
	}
	ctx := context.Background()
	users := map[string]string{"alice": "alice-pw", "bob": "bob-pw"}
	dv := dovecot.Start(t, &dovecot.Options{LMTP: true, Users: users, ExtraConfig: postfix.DovecotExtraConfig(postfix.DovecotVersion())})
	pf := postfix.Start(t, postfix.Options{Domain: "mailsift.test", LMTPAddr: dv.LMTPAddr})

	// alice's Sent folder exists, as on a real account.
	c, err := imapclient.DialInsecure(dv.Addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Login("alice", "alice-pw").Wait(); err != nil {
		t.Fatal(err)
	}
	if err := c.Create("Sent", nil).Wait(); err != nil {
		t.Fatal(err)
	}
	c.Close()

	me := model.Address{Name: "Alice", Email: "alice@mailsift.test"}
	bobT := model.Address{Name: "Bob", Email: "bob@mailsift.test"}
	st, err := store.Open(ctx, t.TempDir()+"/m.db", &store.Options{Principal: me})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	orig := msg("orig-1@mailsift.test", "Lunch on Friday?", bobT, []model.Address{me}, nil, time.Now().Add(-time.Hour), "Are you free for lunch on Friday?")
	if err := st.PutMessages(ctx, []*model.Message{orig}); err != nil {
		t.Fatal(err)
	}
	tid, _ := st.ThreadIDForMessage(ctx, orig.MessageID)

	host, portStr, _ := net.SplitHostPort(dv.Addr)
	src := imapsrc.New("alice", imapsrc.Config{Host: host, Port: portStr, Username: "alice", TLS: imapsrc.TLSInsecurePlain,
		Password: func(context.Context) (string, error) { return "alice-pw", nil }})
	defer src.Close()
	e := New(st, Options{Principal: me, Policy: Policy{Signature: "Alice"}, PollInterval: 50 * time.Millisecond,
		Accounts: []Account{{From: me, Transport: &SMTP{Host: pf.Host, Port: pf.Port, TLS: SMTPInsecure, Timeout: 10 * time.Second},
			Mailbox: src, SentMailbox: "Sent"}}})
	_, _, item := newConfirmed(t, e, tid)
	it := runUntilSettled(t, e, st, item.ID)
	if it.State != store.OutboxSent || it.AppendState != store.AppendDone {
		t.Fatalf("outbox item = %s append %q (%s)", it.State, it.AppendState, it.LastError)
	}
	waitDelivered(t, dv.Addr, "bob", "bob-pw", item.MessageID, 20*time.Second)
	// Another outbox pass finds nothing to do: it neither sends nor
	// appends again.
	if n, err := e.ProcessDue(ctx); n != 0 || err != nil {
		t.Fatalf("second outbox pass handled %d item(s), %v; want none", n, err)
	}
	inbox := imapCount(t, dv.Addr, "bob", "bob-pw", "INBOX", item.MessageID)
	sent := imapCount(t, dv.Addr, "alice", "alice-pw", "Sent", item.MessageID)
	if inbox != 1 || sent != 1 {
		t.Fatalf("bob's INBOX has %d copies, alice's Sent %d; want 1 and 1\npostfix log:\n%s", inbox, sent, pf.Log())
	}
}
