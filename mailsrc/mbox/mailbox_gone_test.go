package mbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"mailsift/internal/storecheck"
	"mailsift/store"
)

// TestFileRemovedIsForgotten: an mbox file removed from the directory is
// forgotten by the next sync (its messages stay where another file holds
// a copy); a missing single-file mbox is an error that forgets nothing.
func TestFileRemovedIsForgotten(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "inbox.mbox"))
	if err != nil {
		t.Fatal(err)
	}
	old := "From x@example.com Mon Nov  3 10:00:00 2025\nFrom: X <x@example.com>\nTo: bob@example.com\n" +
		"Subject: Platypus minutes\nDate: Mon, 3 Nov 2025 10:00:00 +0000\nMessage-ID: <platypus@example.com>\n\nPlatypus body.\n"
	for name, content := range map[string]string{"INBOX": string(data), "Archive": string(data), "Old": old} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "mail.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	src := New("acct", dir)
	if err := src.Sync(ctx, st, nil); err != nil {
		t.Fatalf("Sync() = %v", err)
	}
	if got := storecheck.MailboxNames(t, st, "acct"); got != "Archive,INBOX,Old" {
		t.Fatalf("mailboxes after first sync = %s", got)
	}
	first, err := st.ThreadIDForMessage(ctx, "first@example.com")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"Archive", "Old"} {
		if err := os.Remove(filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	if err := src.Sync(ctx, st, nil); err != nil {
		t.Fatalf("second Sync() = %v", err)
	}
	if got := storecheck.MailboxNames(t, st, "acct"); got != "INBOX" {
		t.Errorf("mailboxes after removing Archive and Old = %s, want INBOX", got)
	}
	if got, err := st.ThreadIDForMessage(ctx, "first@example.com"); err != nil || got != first {
		t.Errorf("message also in INBOX: thread %d, %v; want %d", got, err, first)
	}
	if _, err := st.ThreadIDForMessage(ctx, "platypus@example.com"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("message only in Old: ThreadIDForMessage = %v, want ErrNotFound", err)
	}

	// A single mbox file that disappears is an error, not an empty account.
	file := filepath.Join(t.TempDir(), "mbox")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	one := New("acct", file)
	if err := one.Sync(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if err := one.Sync(ctx, st, nil); err == nil {
		t.Errorf("Sync() of a missing mbox file = nil, want an error")
	}
	if got := storecheck.MailboxNames(t, st, "acct"); got != "INBOX" {
		t.Errorf("mailboxes after a failed sync = %s, want INBOX kept", got)
	}
}
