package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"mailsift/mirror"
)

// TestArchiveSender: after unsubscribing, every inbox thread from the
// sender (any case of the address) is archived, on the Maildir too, and
// other senders' threads stay.
func TestArchiveSender(t *testing.T) {
	ctx := context.Background()
	m := &maildirServer{root: t.TempDir()}
	for _, sub := range []string{"cur", "new", "tmp"} {
		if err := os.MkdirAll(filepath.Join(m.root, sub), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 4; i++ {
		raw := actionMessage(i)
		if i == 3 { // a second thread from sender 1, in another case
			raw = fmt.Sprintf("From: News <S1@Example.com>\nTo: alex@example.com\nSubject: issue %d\n"+
				"Date: Sun, 01 Nov 2026 10:00:00 +0000\nMessage-ID: <act-%d@example.com>\n\nBody.\n", i, i)
		}
		name := fmt.Sprintf("17000000%02d.M%dP1.host:2,", i, i)
		if err := os.WriteFile(filepath.Join(m.root, "cur", name), []byte(raw), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	a, st := actionsApp(t)
	src := m.source(t)
	if err := mirror.Sync(ctx, st, "acct", src, nil); err != nil {
		t.Fatal(err)
	}
	x := a.Actions(nil)
	n, err := x.ArchiveSender(ctx, "s1@example.com")
	if err != nil || n != 2 {
		t.Fatalf("ArchiveSender = %d, %v; want 2 threads", n, err)
	}
	if got := inboxCount(t, st); got != 2 {
		t.Errorf("inbox holds %d threads, want the other senders' 2", got)
	}
	if err := mirror.Replay(ctx, st, "acct", src); err != nil {
		t.Fatalf("Replay: %v", err)
	}
	checkOnce(t, m, []string{"INBOX", "Archive"}, map[int]string{1: "Archive", 3: "Archive", 2: "INBOX", 4: "INBOX"})
	if n, err := x.ArchiveSender(ctx, "nobody@example.com"); err != nil || n != 0 {
		t.Errorf("ArchiveSender(unknown) = %d, %v; want 0, nil", n, err)
	}
}

// TestSpamMarkTeachesTriage: the spam key's verdict reaches triage's
// learning as a correction for the thread's sender, and undoing the
// action takes the correction back.
func TestSpamMarkTeachesTriage(t *testing.T) {
	ctx := context.Background()
	m := &maildirServer{root: t.TempDir()}
	for _, sub := range []string{"cur", "new", "tmp"} {
		if err := os.MkdirAll(filepath.Join(m.root, sub), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 2; i++ {
		name := fmt.Sprintf("17000000%02d.M%dP1.host:2,", i, i)
		if err := os.WriteFile(filepath.Join(m.root, "cur", name), []byte(actionMessage(i)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	a, st := actionsApp(t)
	if err := mirror.Sync(ctx, st, "acct", m.source(t), nil); err != nil {
		t.Fatal(err)
	}
	x := a.Actions(nil)
	id := threadByMessage(t, st, 1)
	marks := func() []bool {
		var out []bool
		for _, c := range a.Learning().Learner.Corrections() {
			if c.Sender == "s1@example.com" && c.Spam != nil {
				out = append(out, *c.Spam)
			}
		}
		return out
	}
	if _, err := x.Spam(ctx, []int64{id}, true); err != nil {
		t.Fatal(err)
	}
	if got := marks(); len(got) != 1 || !got[0] {
		t.Fatalf("after the spam key, learning holds %v for s1@example.com, want one spam mark", got)
	}
	if _, err := x.Undo(ctx); err != nil {
		t.Fatal(err)
	}
	if got := marks(); len(got) != 0 {
		t.Fatalf("after undo, learning still holds %v for s1@example.com", got)
	}
}
