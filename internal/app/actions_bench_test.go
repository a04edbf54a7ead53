package app

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"

	"mailsift/internal/testserver/dovecot"
	"mailsift/mirror"
	"mailsift/store"
)

// BenchmarkArchive1000Dovecot archives 1,000 selected threads against a
// local Dovecot: the store write (every thread leaves the inbox, 1,000
// moves queued, one undo entry) and the replay that moves them on the
// server (one UID MOVE into Archive). Target: 2 s in all. Each iteration
// is undone (untimed) so the next starts from the same inbox. Run with
// -benchtime=2x.
func BenchmarkArchive1000Dovecot(b *testing.B) {
	const n = 1000
	d := dovecot.Start(b, &dovecot.Options{Users: map[string]string{actUser: actPass}})
	srv := newIMAPServer(b, d.Addr)
	for i := range n {
		srv.append(b, "INBOX", actionMessage(i))
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "m.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	src := srv.source(b)
	if err := mirror.Sync(ctx, st, "acct", src, nil); err != nil {
		b.Fatal(err)
	}
	ids, err := st.SectionThreadIDs(ctx, store.SectionUntriaged)
	if err != nil || len(ids) != n {
		b.Fatalf("%d threads in the inbox, want %d (%v)", len(ids), n, err)
	}
	x := &Actions{st: st, now: time.Now}
	var storeTime, serverTime time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if _, err := x.Archive(ctx, ids); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := mirror.Replay(ctx, st, "acct", src); err != nil {
			b.Fatal(err)
		}
		storeTime += t1.Sub(t0)
		serverTime += time.Since(t1)
		b.StopTimer()
		if sel, err := srv.c.Select("Archive", &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil || sel.NumMessages != n {
			b.Fatalf("Archive holds %v messages after the replay (%v), want %d", sel, err, n)
		}
		if _, err := x.Undo(ctx); err != nil {
			b.Fatal(err)
		}
		if err := mirror.Replay(ctx, st, "acct", src); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(storeTime.Milliseconds())/float64(b.N), "store-ms/op")
	b.ReportMetric(float64(serverTime.Milliseconds())/float64(b.N), "server-ms/op")
	if got := srv.count(b, "Archive", "act-1@example.com"); got != 0 {
		b.Errorf("after the last undo message 1 is %d times in Archive, want 0", got)
	}
}
