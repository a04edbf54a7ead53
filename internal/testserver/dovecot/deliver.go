package dovecot

import (
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// WaitDelivered logs in to the IMAP server at addr as user and waits,
// with IMAP IDLE on the INBOX, until a message with messageID is there,
// or fails the test after timeout. Postfix delivers asynchronously: the
// new mail is an event to wait for, not a delay to sleep through.
func WaitDelivered(t testing.TB, addr, user, pass, messageID string, timeout time.Duration) {
	t.Helper()
	WaitHeader(t, addr, user, pass, "INBOX", "Message-ID", messageID, timeout)
}

// WaitHeader logs in to the IMAP server at addr as user and waits, with
// IMAP IDLE on mailbox, until it holds a message whose header key
// contains value (IMAP SEARCH HEADER); it returns how many do, or fails
// the test after timeout.
func WaitHeader(t testing.TB, addr, user, pass, mailbox, key, value string, timeout time.Duration) int {
	t.Helper()
	arrived := make(chan struct{}, 1)
	c, err := imapclient.DialInsecure(addr, &imapclient.Options{
		UnilateralDataHandler: &imapclient.UnilateralDataHandler{
			Mailbox: func(data *imapclient.UnilateralDataMailbox) {
				if data.NumMessages != nil {
					select {
					case arrived <- struct{}{}:
					default:
					}
				}
			},
		},
	})
	if err != nil {
		t.Fatalf("imap dial %s: %v", addr, err)
	}
	defer c.Close()
	if err := c.Login(user, pass).Wait(); err != nil {
		t.Fatalf("imap login %s: %v", user, err)
	}
	if _, err := c.Select(mailbox, &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
		t.Fatalf("imap select %s: %v", mailbox, err)
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		data, err := c.UIDSearch(&imap.SearchCriteria{Header: []imap.SearchCriteriaHeaderField{{Key: key, Value: value}}}, nil).Wait()
		if err != nil {
			t.Fatalf("imap search: %v", err)
		}
		if n := len(data.AllUIDs()); n > 0 {
			return n
		}
		idle, err := c.Idle()
		if err != nil {
			t.Fatalf("imap idle: %v", err)
		}
		select {
		case <-arrived:
		case <-deadline.C:
			idle.Close()
			t.Fatalf("no message with %s %q in %s's %s within %s", key, value, user, mailbox, timeout)
		}
		if err := idle.Close(); err != nil {
			t.Fatalf("imap idle: %v", err)
		}
		if err := idle.Wait(); err != nil {
			t.Fatalf("imap idle: %v", err)
		}
	}
}
