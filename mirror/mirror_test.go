package mirror

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"mailsift/config"
	"mailsift/mailsrc"
	"mailsift/model"
	"mailsift/store"
)

func writeMaildirMsg(t *testing.T, dir, name, body string) {
	t.Helper()
	for _, sub := range []string{"cur", "new", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "cur", name), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "m.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestSyncPushesQueuedFlags checks the whole loop on a real store and a real
// Maildir: sync imports, a flag set in mailsift is queued, and the next Sync
// writes it into the Maildir file name and empties the queue.
func TestSyncPushesQueuedFlags(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeMaildirMsg(t, root, "1700000000.1.host:2,", "From: Bob <bob@example.com>\nTo: alex@example.com\nSubject: Hello\nMessage-ID: <m1@example.com>\nDate: Mon, 16 Nov 2026 09:00:00 +0000\n\nHi Alex\n")
	acct := &config.Account{Name: "local", Src: config.Source{Scheme: "maildir", Path: root}}
	src, err := Open(acct, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	st := openStore(t)
	if err := st.EnsureAccount(ctx, "local", "maildir://"+root); err != nil {
		t.Fatal(err)
	}
	if err := Sync(ctx, st, "local", src, nil); err != nil {
		t.Fatal(err)
	}
	locs, err := st.Locations(ctx, "local", "INBOX")
	if err != nil || len(locs) != 1 {
		t.Fatalf("Locations = %v, %v; want one location", locs, err)
	}
	var loc model.Location
	for l, f := range locs {
		loc = l
		if f.Seen {
			t.Fatalf("message seen before any change: %+v", f)
		}
	}
	if err := st.QueueFlagChange(ctx, loc, model.FlagSeen, true); err != nil {
		t.Fatal(err)
	}
	if err := Sync(ctx, st, "local", src, nil); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(root, "cur", "*"))
	if len(names) != 1 || !strings.HasSuffix(names[0], ":2,S") {
		t.Fatalf("maildir files after push = %v, want one ending in :2,S", names)
	}
	pending, err := st.PendingFlagChanges(ctx, "local", 0)
	if err != nil || len(pending) != 0 {
		t.Fatalf("pending after push = %v, %v; want none", pending, err)
	}
	locs, _ = st.Locations(ctx, "local", "INBOX")
	if !locs[loc].Seen {
		t.Fatalf("store lost the seen flag after resync: %+v", locs)
	}
}

// TestReadOnlySourceAcksQueue checks that flags on a read-only source (demo)
// stay local and do not pile up in the queue.
func TestReadOnlySourceAcksQueue(t *testing.T) {
	ctx := context.Background()
	acct := &config.Account{Name: "demo", Src: config.Source{Scheme: "demo"}}
	src, err := Open(acct, Options{Now: func() time.Time { return time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	st := openStore(t)
	_ = st.EnsureAccount(ctx, "demo", "demo://")
	if err := Sync(ctx, st, "demo", src, nil); err != nil {
		t.Fatal(err)
	}
	locs, _ := st.Locations(ctx, "demo", "INBOX")
	if len(locs) < 50 {
		t.Fatalf("demo sync stored %d inbox locations, want the demo mailbox", len(locs))
	}
	for l := range locs {
		if err := st.QueueFlagChange(ctx, l, model.FlagSeen, true); err != nil {
			t.Fatal(err)
		}
		break
	}
	if err := PushFlags(ctx, st, "demo", src); err != nil {
		t.Fatal(err)
	}
	if p, _ := st.PendingFlagChanges(ctx, "demo", 0); len(p) != 0 {
		t.Fatalf("queue not drained for a read-only source: %d left", len(p))
	}
}

func TestOpenRefusesUnknownSchemeAndRemoteSkipVerify(t *testing.T) {
	if _, err := Open(&config.Account{Name: "x", Src: config.Source{Scheme: "pop3"}}, Options{}); err == nil || !strings.Contains(err.Error(), "pop3") {
		t.Fatalf("Open(pop3) err = %v, want an error naming the scheme", err)
	}
	acct := &config.Account{Name: "x", TLSInsecureSkipVerify: true, Src: config.Source{Scheme: "imaps", Host: "mail.example.com", Port: 993}}
	if _, err := Open(acct, Options{}); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("Open(skip-verify remote) err = %v, want refusal", err)
	}
}

func TestBackoffGrowsWithJitterAndCaps(t *testing.T) {
	d := time.Duration(0)
	seen := map[time.Duration]bool{}
	for i := 0; i < 20; i++ {
		d = nextBackoff(d)
		if d > 5*time.Minute*3/2 {
			t.Fatalf("backoff %v above the cap plus jitter", d)
		}
		seen[d] = true
	}
	if d < 5*time.Minute {
		t.Fatalf("backoff after 20 failures = %v, want the 5m cap", d)
	}
	if len(seen) < 10 {
		t.Fatalf("backoff shows no jitter: %v", seen)
	}
	_ = errors.New
}

// TestRunPushesOnPoke checks the TUI path: while Run watches, a poke on
// push writes a queued flag change to the source without waiting for the
// next sync pass.
func TestRunPushesOnPoke(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	root := t.TempDir()
	writeMaildirMsg(t, root, "1700000000.2.host:2,", "From: Bob <bob@example.com>\nTo: alex@example.com\nSubject: Poke\nMessage-ID: <m2@example.com>\nDate: Mon, 16 Nov 2026 09:00:00 +0000\n\nHi\n")
	acct := &config.Account{Name: "local", Src: config.Source{Scheme: "maildir", Path: root}}
	src, err := Open(acct, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	st := openStore(t)
	_ = st.EnsureAccount(ctx, "local", "maildir://"+root)
	push := make(chan struct{}, 1)
	events := make(chan Event, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(ctx, st, "local", src, time.Hour, push, events)
	}()
	// Wait for the first pass and the watch to start.
	deadline := time.After(10 * time.Second)
	for watching := false; !watching; {
		select {
		case ev := <-events:
			if ev.Err != nil {
				t.Fatal(ev.Err)
			}
			watching = ev.Watching
		case <-deadline:
			t.Fatal("Run never started watching")
		}
	}
	locs, _ := st.Locations(ctx, "local", "INBOX")
	for l := range locs {
		if err := st.QueueFlagChange(ctx, l, model.FlagFlagged, true); err != nil {
			t.Fatal(err)
		}
	}
	push <- struct{}{}
	for {
		names, _ := filepath.Glob(filepath.Join(root, "cur", "*"))
		if len(names) == 1 && strings.HasSuffix(names[0], ":2,F") {
			break
		}
		select {
		case <-deadline:
			t.Fatalf("flag not pushed after a poke; files %v", names)
		case ev := <-events:
			if ev.Err != nil {
				t.Fatal(ev.Err)
			}
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	<-done
}

// gcProbe records the collector's GOGC while its source syncs.
type gcProbe struct {
	mailsrc.Source
	pct int
}

func (p *gcProbe) Sync(ctx context.Context, sink mailsrc.Sink, progress func(mailsrc.Progress)) error {
	p.pct = debug.SetGCPercent(100)
	debug.SetGCPercent(p.pct)
	return p.Source.Sync(ctx, sink, progress)
}

// TestSyncKeepsProcessGC: a sync run by the engine (the TUI's background
// loop among others) leaves the process's GC settings as they are; only the
// headless sync command switches to batch settings.
func TestSyncKeepsProcessGC(t *testing.T) {
	root := t.TempDir()
	writeMaildirMsg(t, root, "1700000000.1.host:2,", "From: a@example.com\nSubject: x\nMessage-ID: <gc@example.com>\n\nbody\n")
	src, err := Open(&config.Account{Name: "local", Src: config.Source{Scheme: "maildir", Path: root}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	before := debug.SetGCPercent(100)
	debug.SetGCPercent(before)
	probe := &gcProbe{Source: src}
	if err := Sync(context.Background(), openStore(t), "local", probe, nil); err != nil {
		t.Fatal(err)
	}
	if probe.pct != before {
		t.Errorf("GOGC during the sync = %d, want the process's own %d", probe.pct, before)
	}
	after := debug.SetGCPercent(100)
	debug.SetGCPercent(after)
	if after != before {
		t.Errorf("GOGC after the sync = %d, want %d back", after, before)
	}
}
