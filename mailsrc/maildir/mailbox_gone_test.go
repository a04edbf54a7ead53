package maildir

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mailsift/internal/storecheck"
	"mailsift/model/contract"
	"mailsift/store"
)

// TestFolderRemovedIsForgotten: a maildir folder removed from disk is
// forgotten by the next sync (a message it shared with INBOX stays, with
// its triage); a folder renamed on disk comes back under its new name
// with its threads; a root left without any folder forgets nothing.
func TestFolderRemovedIsForgotten(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	mkMaildir(t, root)
	mkMaildir(t, filepath.Join(root, ".Projects"))
	mkMaildir(t, filepath.Join(root, "Lists", "Go"))
	writeMsg(t, filepath.Join(root, "cur", "1000.a.host:2,S"), "shared plan")
	writeMsg(t, filepath.Join(root, ".Projects", "cur", "1000.a.host:2,S"), "shared plan")
	writeMsg(t, filepath.Join(root, ".Projects", "cur", "1001.p.host:2,"), "quokka report")
	writeMsg(t, filepath.Join(root, "Lists", "Go", "cur", "1002.l.host:2,"), "generics news")

	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "mail.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var logs bytes.Buffer
	src := New("acct", root, &Options{Logger: slog.New(slog.NewTextHandler(&logs, nil)), Workers: 1})
	if err := src.Sync(ctx, st, nil); err != nil {
		t.Fatalf("Sync() = %v", err)
	}
	if got := storecheck.MailboxNames(t, st, "acct"); got != "INBOX,Lists/Go,Projects" {
		t.Fatalf("mailboxes after first sync = %s", got)
	}
	triage := func(mid, category string) int64 {
		t.Helper()
		id, err := st.ThreadIDForMessage(ctx, mid)
		if err != nil {
			t.Fatal(err)
		}
		h, err := st.ThreadContentHash(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.SaveTriage(ctx, store.TriageRecord{ThreadID: id, CacheKey: "k", ContentHash: h, Source: "deterministic",
			Result: contract.Result{Category: category}}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	checkTriage := func(mid string, want int64, category string) {
		t.Helper()
		id, err := st.ThreadIDForMessage(ctx, mid)
		if err != nil || id != want {
			t.Errorf("thread of %s = %d, %v; want %d", mid, id, err, want)
			return
		}
		sum, err := st.ThreadSummaryByID(ctx, id)
		if err != nil || sum.Triage == nil || sum.Triage.Result.Category != category {
			t.Errorf("thread of %s = %+v, %v; want triage %q kept", mid, sum, err, category)
		}
	}
	shared := triage("shared-plan@example.com", contract.CategoryActionable)
	list := triage("generics-news@example.com", contract.CategoryInformational)

	if err := os.RemoveAll(filepath.Join(root, ".Projects")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "Lists", "Go"), filepath.Join(root, "Lists", "Golang")); err != nil {
		t.Fatal(err)
	}
	if err := src.Sync(ctx, st, nil); err != nil {
		t.Fatalf("second Sync() = %v", err)
	}
	if got := storecheck.MailboxNames(t, st, "acct"); got != "INBOX,Lists/Golang" {
		t.Errorf("mailboxes after removing Projects and renaming Lists/Go = %s, want INBOX,Lists/Golang", got)
	}
	if _, err := st.ThreadIDForMessage(ctx, "quokka-report@example.com"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("message only in the removed folder: ThreadIDForMessage = %v, want ErrNotFound", err)
	}
	if hits, err := st.Search(ctx, "quokka", 10); err != nil || len(hits) != 0 {
		t.Errorf("Search(quokka) = %v, %v; want no hit", hits, err)
	}
	checkTriage("shared-plan@example.com", shared, contract.CategoryActionable)
	checkTriage("generics-news@example.com", list, contract.CategoryInformational)
	for _, name := range []string{"mailbox=Projects", "mailbox=Lists/Go"} {
		if !strings.Contains(logs.String(), name) || !strings.Contains(logs.String(), "level=INFO") {
			t.Errorf("no Info log with %s in:\n%s", name, logs.String())
		}
	}

	// Every folder gone but the root still there (an unmounted disk, a
	// wrong path): the sync says so and nothing is forgotten.
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(root, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	if err := src.Sync(ctx, st, nil); err == nil || !strings.Contains(err.Error(), "no maildir under") {
		t.Fatalf("Sync() of an empty root = %v, want an error saying no maildir is there", err)
	}
	if got := storecheck.MailboxNames(t, st, "acct"); got != "INBOX,Lists/Golang" {
		t.Errorf("mailboxes after a sync that found no folder = %s, want INBOX,Lists/Golang kept", got)
	}
}
