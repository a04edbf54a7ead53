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
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Login(user, pass).Wait(); err != nil {
		t.Fatalf("login %s: %v", user, err)
	}
	if _, err := c.Select("INBOX", &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
		t.Fatal(err)
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		data, err := c.UIDSearch(&imap.SearchCriteria{Header: []imap.SearchCriteriaHeaderField{{Key: "Message-ID", Value: messageID}}}, nil).Wait()
		if err != nil {
			t.Fatal(err)
		}
		if len(data.AllUIDs()) > 0 {
			return
		}
		idle, err := c.Idle()
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-arrived:
		case <-deadline.C:
			idle.Close()
			t.Fatalf("<%s> not delivered to %s's INBOX within %s", messageID, user, timeout)
		}
		if err := idle.Close(); err != nil {
			t.Fatal(err)
		}
		if err := idle.Wait(); err != nil {
			t.Fatal(err)
		}
	}
}
