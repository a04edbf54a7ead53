package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"mailsift/mailsrc/maildir"
)

// copyTree copies a directory tree (the maildir source moves files from
// new/ to cur/, so it must not run on the checked-in corpus).
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatalf("copy corpus: %v", err)
	}
}

// TestCorpusIngestThreads ingests the real mailing-list corpus (fetched by
// scripts/fetch-corpus.sh) through the maildir source and checks that
// replies were threaded with the messages they answer.
func TestCorpusIngestThreads(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus ingest skipped in -short mode")
	}
	src := filepath.Join("..", "testdata", "corpus", "maildir")
	if _, err := os.Stat(filepath.Join(src, "easy-ham-1")); err != nil {
		t.Skip("corpus absent: run scripts/fetch-corpus.sh to fetch testdata/corpus/maildir")
	}
	root := t.TempDir()
	for _, name := range []string{"easy-ham-1", "easy-ham-2"} {
		copyTree(t, filepath.Join(src, name), filepath.Join(root, name))
	}
	ctx := context.Background()
	s := openTest(t)
	md := maildir.New("corpus", root, nil)
	if err := md.Sync(ctx, s, nil); err != nil {
		t.Fatalf("maildir sync: %v", err)
	}
	st := md.Stats()
	msgs := countRows(t, s, "SELECT count(*) FROM messages")
	if msgs < 3000 {
		t.Fatalf("stored %d messages (stats %+v), want the whole corpus", msgs, st)
	}
	// Every reply whose parent is in the corpus shares its thread.
	linked := countRows(t, s, `SELECT count(*) FROM messages c JOIN messages p
		ON p.message_id = json_extract(c.in_reply_to_json, '$[0]')`)
	split := countRows(t, s, `SELECT count(*) FROM messages c JOIN messages p
		ON p.message_id = json_extract(c.in_reply_to_json, '$[0]') WHERE c.thread_id <> p.thread_id`)
	multi := countRows(t, s, "SELECT count(*) FROM threads WHERE count >= 3")
	t.Logf("%d messages, %d replies with parent present, %d threads of 3+", msgs, linked, multi)
	if linked < 100 {
		t.Errorf("only %d replies found their parent: mailing-list threading is not working", linked)
	}
	if split != 0 {
		t.Errorf("%d replies are in a different thread than their parent", split)
	}
	if multi < 50 {
		t.Errorf("only %d threads of 3+ messages", multi)
	}
	// Search works on real text.
	hits, err := s.Search(ctx, "spamassassin", 20)
	if err != nil || len(hits) == 0 {
		t.Errorf("Search(spamassassin) = %d hits, %v", len(hits), err)
	}
}
