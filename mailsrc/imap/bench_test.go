package imap

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mailsift/internal/testserver/dovecot"
)

// fillServer appends n synthetic messages to INBOX.
func fillServer(b *testing.B, ts *testServer, n int) {
	a := ts.admin(b)
	for i := range n {
		a.append("INBOX", testMessage(i, "bench message"))
	}
}

func benchFirstSync(b *testing.B, ts *testServer, want int, warmUp bool) {
	if warmUp {
		// A real server has its index already; Dovecot builds it on the
		// first access, which is not what this measures.
		if err := ts.source(b, nil).Sync(context.Background(), newFakeSink(), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		sink := newFakeSink()
		src := ts.source(b, nil)
		if err := src.Sync(context.Background(), sink, nil); err != nil {
			b.Fatal(err)
		}
		src.Close()
		if n := sink.count(); n != want {
			b.Fatalf("synced %d messages, want %d", n, want)
		}
	}
	b.ReportMetric(float64(want), "msgs/op")
}

func benchNoopResync(b *testing.B, ts *testServer, want int) {
	sink := newFakeSink()
	src := ts.source(b, nil)
	if err := src.Sync(context.Background(), sink, nil); err != nil {
		b.Fatal(err)
	}
	if n := sink.count(); n != want {
		b.Fatalf("synced %d messages, want %d", n, want)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := src.Sync(context.Background(), sink, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFirstSync: envelopes then bodies of 6000 synthetic messages
// from imapmemserver into the in-memory sink, including parsing.
func BenchmarkFirstSync(b *testing.B) {
	ts := newMemServer(b)
	fillServer(b, ts, 6000)
	benchFirstSync(b, ts, 6000, false)
}

// BenchmarkNoopResync: a resync of 6000 unchanged messages on
// imapmemserver (no CONDSTORE there, so it rescans all flags).
func BenchmarkNoopResync(b *testing.B) {
	ts := newMemServer(b)
	fillServer(b, ts, 6000)
	benchNoopResync(b, ts, 6000)
}

// corpusDovecot starts Dovecot holding the SpamAssassin corpus Maildir
// (testdata/corpus/maildir, from scripts/fetch-corpus.sh), one folder
// per group. It returns the server and the number of messages.
func corpusDovecot(b *testing.B) (*testServer, int) {
	root := filepath.Join("..", "..", "testdata", "corpus", "maildir")
	groups, err := os.ReadDir(root)
	if err != nil {
		b.Skipf("corpus not present (%v); run scripts/fetch-corpus.sh", err)
	}
	s := dovecot.Start(b, &dovecot.Options{Users: map[string]string{testUser: testPass}})
	uid, gid := -1, -1
	if os.Geteuid() == 0 {
		st, err := os.Stat(s.MaildirPath)
		if err != nil {
			b.Fatal(err)
		}
		uid, gid = statOwner(st)
	}
	n := 0
	for _, g := range groups {
		if !g.IsDir() {
			continue
		}
		// Maildir++ layout: folder X lives in .X under the user's root.
		dst := filepath.Join(s.Maildir(testUser), "."+g.Name())
		for _, sub := range []string{"cur", "new", "tmp"} {
			if err := os.MkdirAll(filepath.Join(dst, sub), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		files, _ := filepath.Glob(filepath.Join(root, g.Name(), "cur", "*"))
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			name := filepath.Base(f)
			if !strings.Contains(name, ":2,") {
				name += ":2,"
			}
			if err := os.WriteFile(filepath.Join(dst, "cur", name), raw, 0o644); err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	if uid >= 0 {
		filepath.Walk(s.Maildir(testUser), func(p string, _ os.FileInfo, _ error) error {
			return os.Lchown(p, uid, gid)
		})
	}
	return &testServer{kind: "dovecot", addr: s.Addr, user: testUser, pass: testPass, condstore: true}, n
}

// BenchmarkDovecotCorpusFirstSync: the whole SpamAssassin corpus from a
// local Dovecot (index warmed up) into the in-memory sink, including
// parsing.
func BenchmarkDovecotCorpusFirstSync(b *testing.B) {
	ts, n := corpusDovecot(b)
	benchFirstSync(b, ts, n, true)
}

// BenchmarkDovecotCorpusNoopResync: a resync of the unchanged corpus
// from Dovecot (CONDSTORE: STATUS per folder, nothing selected).
func BenchmarkDovecotCorpusNoopResync(b *testing.B) {
	ts, n := corpusDovecot(b)
	benchNoopResync(b, ts, n)
}
