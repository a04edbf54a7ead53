package imap

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"mailsift/internal/gcbatch"
	"mailsift/internal/testserver/dovecot"
	"mailsift/mailsrc"
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
	return corpusDovecotCopies(b, 1)
}

// corpusDovecotCopies is corpusDovecot with every folder holding the
// corpus copies times over; each copy after the first gets fresh
// Message-IDs (a larger mailbox, not duplicates).
func corpusDovecotCopies(b *testing.B, copies int) (*testServer, int) {
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
			name, info, _ := strings.Cut(filepath.Base(f), ":2,")
			for c := range copies {
				data := raw
				if c > 0 {
					data = freshMessageID(raw, c)
				}
				file := fmt.Sprintf("%s.c%d:2,%s", name, c, info)
				if err := os.WriteFile(filepath.Join(dst, "cur", file), data, 0o644); err != nil {
					b.Fatal(err)
				}
				n++
			}
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

// freshMessageID gives copy c of raw its own Message-ID (and makes its
// bytes differ), so the store counts it as another message.
func freshMessageID(raw []byte, c int) []byte {
	tag := fmt.Sprintf("copy%d.", c)
	for _, h := range []string{"\nMessage-ID: <", "\nMessage-Id: <", "\nMessage-id: <", "\nMESSAGE-ID: <"} {
		if i := bytes.Index(raw, []byte(h)); i >= 0 {
			j := i + len(h)
			return append(append(append([]byte{}, raw[:j]...), tag...), raw[j:]...)
		}
	}
	return append([]byte(fmt.Sprintf("Message-ID: <%sno-id@mailsift.bench>\r\n", tag)), raw...)
}

// BenchmarkDovecotLargeFirstSync: a large mailbox's first sync, the corpus
// ten times over (60,460 messages, 330 MB) from a local Dovecot into a
// fresh store. The whole-message pass stops after the newest batches (the
// rest would take longer than Config.WholeBudget), the rest is listed as
// envelopes, then the bodies follow. It reports when every message was
// listed (listed-s), the whole sync (ns/op) and the process's peak RSS
// during the sync (peak-rss-MB; Linux).
func BenchmarkDovecotLargeFirstSync(b *testing.B) {
	ts, n := corpusDovecotCopies(b, 10)
	if err := ts.source(b, nil).Sync(context.Background(), newFakeSink(), nil); err != nil {
		b.Fatal(err) // warm Dovecot's index
	}
	defer gcbatch.Enter()()
	var listedAt time.Duration
	for b.Loop() {
		debug.FreeOSMemory()                                  // the warm-up's garbage
		os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // reset the peak RSS
		st := openStore(b)
		src := ts.source(b, nil)
		start := time.Now()
		listedAt = 0
		listed := map[string]int{}
		total := 0
		var mu sync.Mutex
		progress := func(p mailsrc.Progress) {
			if p.Phase != "messages" && p.Phase != "envelopes" {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			total += p.Done - listed[p.Mailbox+"/"+p.Phase]
			listed[p.Mailbox+"/"+p.Phase] = p.Done
			if total >= n && listedAt == 0 {
				listedAt = time.Since(start)
			}
		}
		if err := src.Sync(context.Background(), st, progress); err != nil {
			b.Fatal(err)
		}
		src.Close()
		st.Close()
	}
	b.ReportMetric(listedAt.Seconds(), "listed-s")
	if raw, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(raw), "\n") {
			if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
				var kb float64
				fmt.Sscanf(strings.TrimSpace(v), "%f", &kb)
				b.ReportMetric(kb/1024, "peak-rss-MB")
			}
		}
	}
	b.ReportMetric(float64(n), "msgs/op")
}
