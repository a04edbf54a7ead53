// Package storecheck holds test helpers that read a store the way the
// source tests (IMAP, Maildir, mbox) check it.
package storecheck

import (
	"context"
	"strings"
	"testing"

	"mailsift/store"
)

// MailboxNames returns the names of account's stored mailboxes, in the
// store's order, joined with commas; a read error fails the test.
func MailboxNames(t testing.TB, st *store.Store, account string) string {
	t.Helper()
	boxes, err := st.Mailboxes(context.Background(), account)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(boxes))
	for i, mb := range boxes {
		names[i] = mb.Name
	}
	return strings.Join(names, ",")
}
