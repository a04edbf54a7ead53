package maildir

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"mailsift/mailsrc"
	"mailsift/model"
)

func mkMaildir(t testing.TB, dir string) {
	t.Helper()
	for _, sub := range []string{"cur", "new", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			t.Fatal(err)
		}
	}
}

func writeMsg(t testing.TB, path, subject string) {
	t.Helper()
	raw := fmt.Sprintf("From: Alice <alice@example.com>\nTo: bob@example.com\nSubject: %s\nDate: Mon, 3 Nov 2025 10:00:00 +0000\nMessage-ID: <%s@example.com>\n\nBody of %s.\n", subject, strings.ReplaceAll(subject, " ", "-"), subject)
	if err := os.WriteFile(path, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
}

// testTree builds a root that is itself a maildir (INBOX) with a Maildir++
// subfolder and mbsync-style plain subfolders.
func testTree(t *testing.T) string {
	root := t.TempDir()
	mkMaildir(t, root)
	mkMaildir(t, filepath.Join(root, ".Sent"))
	mkMaildir(t, filepath.Join(root, ".Lists.Go"))
	mkMaildir(t, filepath.Join(root, "Archive", "2024"))
	mkMaildir(t, filepath.Join(root, "Junk"))
	writeMsg(t, filepath.Join(root, "new", "1000.a.host"), "new mail")
	writeMsg(t, filepath.Join(root, "cur", "1001.b.host:2,S"), "seen mail")
	writeMsg(t, filepath.Join(root, "cur", "1002.c.host:2,FRS"), "flagged replied")
	writeMsg(t, filepath.Join(root, ".Sent", "cur", "1003.d.host:2,S"), "sent one")
	writeMsg(t, filepath.Join(root, ".Lists.Go", "cur", "1004.e.host:2,"), "list mail")
	writeMsg(t, filepath.Join(root, "Archive", "2024", "cur", "1005.f.host:2,DT"), "old draft")
	writeMsg(t, filepath.Join(root, "Junk", "new", "1006.g.host"), "spam")
	// Not mail: empty file and a dotfile.
	if err := os.WriteFile(filepath.Join(root, "cur", "1007.h.host:2,"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "cur", ".hidden"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestSyncLayoutsFlagsAndFailures(t *testing.T) {
	ctx := context.Background()
	root := testTree(t)
	src := New("acct", root, nil)
	sink := newMemSink()
	var phases []string
	if err := src.Sync(ctx, sink, func(p mailsrc.Progress) { phases = append(phases, p.Phase) }); err != nil {
		t.Fatalf("Sync() = %v", err)
	}
	wantRoles := map[string]model.Role{
		"INBOX": model.RoleInbox, "Sent": model.RoleSent, "Lists/Go": model.RoleNone,
		"Archive/2024": model.RoleArchive, "Junk": model.RoleJunk,
	}
	if len(sink.Mailboxes) != len(wantRoles) {
		t.Errorf("mailboxes = %v, want %v", sink.Mailboxes, wantRoles)
	}
	for name, role := range wantRoles {
		if mb, ok := sink.Mailboxes[name]; !ok || mb.Role != role {
			t.Errorf("mailbox %q = %+v (present %v), want role %q", name, mb, ok, role)
		}
	}
	counts := sink.Count()
	wantCounts := map[string]int{"INBOX": 3, "Sent": 1, "Lists/Go": 1, "Archive/2024": 1, "Junk": 1}
	for name, n := range wantCounts {
		if counts[name] != n {
			t.Errorf("messages in %q = %d, want %d", name, counts[name], n)
		}
	}
	st := src.Stats()
	if st.Failed != 1 || st.Parsed != 7 || st.Moved != 2 {
		t.Errorf("Stats() = %+v, want Failed 1 (the empty file), Parsed 7, Moved 2", st)
	}
	// new/ files moved to cur/ with ":2,".
	if _, err := os.Stat(filepath.Join(root, "cur", "1000.a.host:2,")); err != nil {
		t.Errorf("new mail not moved to cur: %v", err)
	}
	loc := func(mb, key string) model.Location { return model.Location{Account: "acct", Mailbox: mb, Key: key} }
	checks := map[model.Location]model.Flags{
		loc("INBOX", "1000.a.host"):        {},
		loc("INBOX", "1001.b.host"):        {Seen: true},
		loc("INBOX", "1002.c.host"):        {Seen: true, Answered: true, Flagged: true},
		loc("Archive/2024", "1005.f.host"): {Draft: true, Deleted: true},
	}
	for l, want := range checks {
		m := sink.Msgs[l]
		if m == nil {
			t.Errorf("message %+v missing", l)
			continue
		}
		if !sameFlags(m.Flags, want) || !m.HasBody {
			t.Errorf("message %+v flags = %+v, want %+v", l, m.Flags, want)
		}
	}
	if m := sink.Msgs[loc("INBOX", "1001.b.host")]; m == nil || m.Subject != "seen mail" || m.Text != "Body of seen mail." {
		t.Errorf("parsed message = %+v", m)
	}
	if len(phases) == 0 || phases[0] != "list" || phases[len(phases)-1] != "done" {
		t.Errorf("progress phases = %v", phases)
	}

	// Second sync: nothing new; flag change and deletion are picked up.
	puts := sink.Puts
	if err := os.Rename(filepath.Join(root, "cur", "1001.b.host:2,S"), filepath.Join(root, "cur", "1001.b.host:2,FS")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, ".Sent", "cur", "1003.d.host:2,S")); err != nil {
		t.Fatal(err)
	}
	if err := src.Sync(ctx, sink, nil); err != nil {
		t.Fatalf("second Sync() = %v", err)
	}
	// The unparseable file is retried (it is not in the sink); nothing else.
	if sink.Puts != puts {
		t.Errorf("second sync put %d messages, want 0", sink.Puts-puts)
	}
	if f := sink.Flags[loc("INBOX", "1001.b.host")]; !f.Flagged || !f.Seen {
		t.Errorf("flags after rename = %+v, want Seen+Flagged", f)
	}
	if _, ok := sink.Msgs[loc("Sent", "1003.d.host")]; ok || sink.Removed != 1 {
		t.Errorf("deleted file still stored (removed %d)", sink.Removed)
	}
}

func TestPushFlags(t *testing.T) {
	ctx := context.Background()
	root := testTree(t)
	src := New("acct", root, nil)
	if err := src.Sync(ctx, newMemSink(), nil); err != nil {
		t.Fatal(err)
	}
	l := model.Location{Account: "acct", Mailbox: "INBOX", Key: "1000.a.host"}
	err := src.PushFlags(ctx, []model.FlagChange{
		{Loc: l, Flag: model.FlagSeen, Set: true},
		{Loc: l, Flag: model.FlagFlagged, Set: true},
		{Loc: l, Flag: model.FlagAnswered, Set: true},
		{Loc: l, Flag: model.FlagAnswered, Set: false},
		{Loc: l, Flag: "$Forwarded", Set: true},
	})
	if err != nil {
		t.Fatalf("PushFlags() = %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "cur", "1000.a.host:2,FS")); err != nil {
		t.Errorf("file not renamed to sorted flags FS: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "cur", "1000.a.host:2,")); err == nil {
		t.Errorf("old file name still present")
	}
	err = src.PushFlags(ctx, []model.FlagChange{{Loc: model.Location{Mailbox: "INBOX", Key: "nope"}, Flag: model.FlagSeen, Set: true}})
	if err == nil || !strings.Contains(err.Error(), `message "nope" not found`) {
		t.Errorf("PushFlags(missing) = %v", err)
	}
	err = src.PushFlags(ctx, []model.FlagChange{{Loc: model.Location{Mailbox: "Nope", Key: "x"}, Flag: model.FlagSeen, Set: true}})
	if err == nil || !strings.Contains(err.Error(), `no mailbox "Nope"`) {
		t.Errorf("PushFlags(missing mailbox) = %v", err)
	}
}

func TestWatchNoticesNewMail(t *testing.T) {
	root := testTree(t)
	ticks := make(chan time.Time)
	src := New("acct", root, nil)
	src.ticks = ticks
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		done <- src.Watch(ctx, func() {
			select {
			case got <- struct{}{}:
			default:
			}
		})
	}()
	// tick returns once Watch has taken the tick: it had compared at the
	// tick before, and the one before that.
	tick := func() {
		t.Helper()
		select {
		case ticks <- time.Now():
		case err := <-done:
			t.Fatalf("Watch() returned %v before cancel", err)
		case <-time.After(10 * time.Second):
			t.Fatal("Watch does not take ticks")
		}
	}
	tick() // Watch has its first signature
	tick()
	select {
	case <-got:
		t.Fatal("Watch reported a change before anything changed")
	default:
	}
	// Directory mtimes have coarse resolution on some file systems: bump it.
	writeMsg(t, filepath.Join(root, "Junk", "new", "2000.z.host"), "more spam")
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(root, "Junk", "new"), future, future); err != nil {
		t.Fatal(err)
	}
	tick()
	tick()
	select {
	case <-got:
	default:
		t.Fatal("Watch did not report new mail")
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Watch() = %v, want nil after cancel", err)
	}
}

func TestBadRoot(t *testing.T) {
	err := New("acct", filepath.Join(t.TempDir(), "missing"), nil).Sync(context.Background(), newMemSink(), nil)
	if err == nil || !strings.Contains(err.Error(), "maildir: open root") {
		t.Errorf("Sync(missing root) = %v", err)
	}
}

// TestMaildirWithoutNewOrTmp checks that a maildir copied without its
// empty new/ and tmp/ (git keeps no empty directory) is still read, and
// that a root holding no maildir at all is an error saying what a
// maildir is, not an empty mailbox.
func TestMaildirWithoutNewOrTmp(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "cur"), 0o700); err != nil {
		t.Fatal(err)
	}
	msg := "From: a@example.org\r\nTo: b@example.org\r\nSubject: kept\r\nMessage-ID: <kept@example.org>\r\n\r\nbody\r\n"
	if err := os.WriteFile(filepath.Join(root, "cur", "1.host:2,S"), []byte(msg), 0o600); err != nil {
		t.Fatal(err)
	}
	sink := newMemSink()
	if err := New("acct", root, nil).Sync(context.Background(), sink, nil); err != nil {
		t.Fatalf("Sync(cur/ only) = %v", err)
	}
	if len(sink.Msgs) != 1 {
		t.Errorf("cur/ only: %d messages synced, want 1", len(sink.Msgs))
	}
	empty := t.TempDir()
	if err := os.Mkdir(filepath.Join(empty, "notes"), 0o700); err != nil {
		t.Fatal(err)
	}
	err := New("acct", empty, nil).Sync(context.Background(), newMemSink(), nil)
	if err == nil || !strings.Contains(err.Error(), "no maildir under") || !strings.Contains(err.Error(), "cur/ and new/") {
		t.Errorf("Sync(root without a maildir) = %v, want an error naming what a maildir is", err)
	}
}

func TestGuessRole(t *testing.T) {
	tests := map[string]model.Role{
		"INBOX": model.RoleInbox, "Sent Items": model.RoleSent, "[Gmail]/Sent Mail": model.RoleSent,
		"Drafts": model.RoleDrafts, "Spam": model.RoleJunk, "Deleted Items": model.RoleTrash,
		"Archive": model.RoleArchive, "Archive/2023": model.RoleArchive, "Projects": model.RoleNone,
	}
	for name, want := range tests {
		if got := GuessRole(name); got != want {
			t.Errorf("GuessRole(%q) = %q, want %q", name, got, want)
		}
	}
}

// corpusDir is where scripts/fetch-corpus.sh puts the SpamAssassin corpus.
func corpusDir(t testing.TB) string {
	dir := filepath.Join("..", "..", "testdata", "corpus", "maildir")
	if _, err := os.Stat(filepath.Join(dir, "spam-1", ".complete")); err != nil {
		if os.Getenv("MAILSIFT_REQUIRE_CORPUS") == "1" {
			t.Fatalf("corpus not fetched: run scripts/fetch-corpus.sh (MAILSIFT_REQUIRE_CORPUS=1)")
		}
		t.Skip("corpus not fetched: run scripts/fetch-corpus.sh")
	}
	return dir
}

func TestCorpusIngest(t *testing.T) {
	dir := corpusDir(t)
	src := New("corpus", dir, nil)
	sink := newMemSink()
	if err := src.Sync(context.Background(), sink, nil); err != nil {
		t.Fatalf("Sync(corpus) = %v", err)
	}
	st := src.Stats()
	if st.Failed != 0 {
		t.Errorf("corpus: %d messages failed to parse", st.Failed)
	}
	want := map[string]int{"spam-1": 500, "spam-2": 1396, "easy-ham-1": 2500, "easy-ham-2": 1400, "hard-ham-1": 250}
	got := sink.Count()
	for name, n := range want {
		if got[name] != n {
			t.Errorf("corpus folder %q: %d messages, want %d", name, got[name], n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("corpus folders = %v, want %v", got, want)
	}
	// Every message must yield a sender and some text; count degradations.
	kinds := map[string]int{}
	noBody, noFrom := 0, 0
	for _, m := range sink.Msgs {
		if m.From.Email == "" && m.From.Name == "" {
			noFrom++
		}
		if strings.TrimSpace(m.Body()) == "" && len(m.Attachments) == 0 {
			noBody++
		}
		for _, p := range m.Problems {
			kinds[problemKind(p)]++
		}
	}
	keys := make([]string, 0, len(kinds))
	for k := range kinds {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t.Logf("corpus: %d parsed, %d degraded, %d failed", st.Parsed, st.Degraded, st.Failed)
	for _, k := range keys {
		t.Logf("  %5d  %s", kinds[k], k)
	}
	t.Logf("corpus: %d without From, %d without any body", noFrom, noBody)
	if noFrom > 0 {
		t.Errorf("corpus: %d messages lost their From", noFrom)
	}
}

// problemKind strips part numbers and quoted values from a problem so
// similar problems are counted together.
func problemKind(p string) string {
	if i := strings.Index(p, ": "); i >= 0 && strings.HasPrefix(p, "part ") {
		p = p[i+2:]
	}
	if i := strings.IndexByte(p, '"'); i >= 0 {
		if j := strings.IndexByte(p[i+1:], '"'); j >= 0 {
			p = p[:i] + "…" + p[i+j+2:]
		}
	}
	return p
}

func BenchmarkCorpusSync(b *testing.B) {
	dir := corpusDir(b)
	n := 0
	for b.Loop() {
		sink := newMemSink()
		if err := New("corpus", dir, nil).Sync(context.Background(), sink, nil); err != nil {
			b.Fatal(err)
		}
		n += len(sink.Msgs)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "msg/s")
}

// BenchmarkMaildirImport measures a first sync of 2,000 typical messages
// (the parse fixtures, repeated) into an in-memory sink.
func BenchmarkMaildirImport(b *testing.B) {
	root := b.TempDir()
	mkMaildir(b, root)
	fixtures, err := filepath.Glob(filepath.Join("..", "rfc822", "testdata", "*.eml"))
	if err != nil || len(fixtures) == 0 {
		b.Fatalf("no fixtures: %v", err)
	}
	var raws [][]byte
	for _, f := range fixtures {
		raw, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		raws = append(raws, raw)
	}
	const total = 2000
	for i := range total {
		name := fmt.Sprintf("%d.M%dP1.bench:2,S", 1700000000+i, i)
		if err := os.WriteFile(filepath.Join(root, "cur", name), raws[i%len(raws)], 0o600); err != nil {
			b.Fatal(err)
		}
	}
	n := 0
	for b.Loop() {
		sink := newMemSink()
		if err := New("bench", root, nil).Sync(context.Background(), sink, nil); err != nil {
			b.Fatal(err)
		}
		if len(sink.Msgs) != total {
			b.Fatalf("imported %d, want %d", len(sink.Msgs), total)
		}
		n += total
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "msg/s")
}

// TestProgressPerMailbox: one pipeline imports every folder, with
// batches spanning folders, yet progress stays per mailbox: each
// mailbox's last "bodies" event reports all its files of its own total,
// Done never exceeds Total and never goes down.
func TestProgressPerMailbox(t *testing.T) {
	root := t.TempDir()
	mkMaildir(t, root)
	mkMaildir(t, filepath.Join(root, ".Lists"))
	want := map[string]int{"INBOX": 7, "Lists": 5}
	for i := range want["INBOX"] {
		writeMsg(t, filepath.Join(root, "cur", fmt.Sprintf("%d.in.host:2,", 1000+i)), fmt.Sprintf("inbox %d", i))
	}
	for i := range want["Lists"] {
		writeMsg(t, filepath.Join(root, ".Lists", "cur", fmt.Sprintf("%d.li.host:2,", 2000+i)), fmt.Sprintf("list %d", i))
	}
	last := map[string]mailsrc.Progress{}
	src := New("acct", root, &Options{BatchSize: 3})
	err := src.Sync(context.Background(), newMemSink(), func(p mailsrc.Progress) {
		if p.Phase != "bodies" {
			return
		}
		if p.Done > p.Total {
			t.Errorf("%s: done %d > total %d", p.Mailbox, p.Done, p.Total)
		}
		if prev, ok := last[p.Mailbox]; ok && p.Done < prev.Done {
			t.Errorf("%s: done went down from %d to %d", p.Mailbox, prev.Done, p.Done)
		}
		last[p.Mailbox] = p
	})
	if err != nil {
		t.Fatal(err)
	}
	for mb, n := range want {
		if p := last[mb]; p.Done != n || p.Total != n {
			t.Errorf("%s: last progress %d/%d, want %d/%d", mb, p.Done, p.Total, n, n)
		}
	}
}

// TestBatchesBoundedByBytes: a batch ends at MaxBatchBytes of raw
// messages as well as at BatchSize messages, and nothing is lost.
func TestBatchesBoundedByBytes(t *testing.T) {
	root := t.TempDir()
	mkMaildir(t, root)
	const n = 20
	for i := range n {
		writeMsg(t, filepath.Join(root, "cur", fmt.Sprintf("%d.big.host:2,", 3000+i)), fmt.Sprintf("big %d", i))
	}
	raw, err := os.ReadFile(filepath.Join(root, "cur", "3000.big.host:2,"))
	if err != nil {
		t.Fatal(err)
	}
	sink := newMemSink()
	// Room for three messages of this size per batch.
	src := New("acct", root, &Options{BatchSize: 500, MaxBatchBytes: 3 * len(raw), Workers: 1})
	if err := src.Sync(context.Background(), sink, nil); err != nil {
		t.Fatal(err)
	}
	if len(sink.Msgs) != n {
		t.Fatalf("stored %d messages, want %d", len(sink.Msgs), n)
	}
	for i, b := range sink.Batches {
		if b > 3 {
			t.Errorf("batch %d holds %d messages, more than MaxBatchBytes allows (3)", i, b)
		}
	}
	if len(sink.Batches) < n/3 {
		t.Errorf("%d batches for %d messages, want at least %d", len(sink.Batches), n, n/3)
	}
}

// TestReadRaw: the store keeps no copy of a Maildir message's bytes, so
// ReadRaw reads its file, found by its unique name after another program
// changed its flags (renamed it), and says clearly when it is gone.
func TestReadRaw(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	mkMaildir(t, root)
	name := filepath.Join(root, "cur", "4000.raw.host:2,")
	writeMsg(t, name, "raw bytes")
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	src := New("acct", root, nil)
	sink := newMemSink()
	if err := src.Sync(ctx, sink, nil); err != nil {
		t.Fatal(err)
	}
	loc := model.Location{Account: "acct", Mailbox: "INBOX", Key: "4000.raw.host"}
	m := sink.Msgs[loc]
	if m == nil {
		t.Fatalf("message not synced; have %v", sink.Msgs)
	}
	if len(m.Raw) != 0 || m.ContentHash == "" || m.Size != int64(len(want)) {
		t.Errorf("synced message: raw %d bytes, hash %q, size %d; want no raw copy, a hash and size %d",
			len(m.Raw), m.ContentHash, m.Size, len(want))
	}
	// Another client marks it seen: the file is renamed.
	if err := os.Rename(name, filepath.Join(root, "cur", "4000.raw.host:2,S")); err != nil {
		t.Fatal(err)
	}
	got, err := src.ReadRaw(ctx, loc)
	if err != nil || string(got) != string(want) {
		t.Fatalf("ReadRaw = %q, %v; want the file's bytes", got, err)
	}
	if _, err := src.ReadRaw(ctx, model.Location{Account: "other", Mailbox: "INBOX", Key: loc.Key}); err == nil {
		t.Error("ReadRaw of another account's location succeeded")
	}
	if err := os.Remove(filepath.Join(root, "cur", "4000.raw.host:2,S")); err != nil {
		t.Fatal(err)
	}
	if _, err := src.ReadRaw(ctx, loc); err == nil || !strings.Contains(err.Error(), "no longer in folder") {
		t.Errorf("ReadRaw of a deleted file = %v, want an error saying it is gone", err)
	}
}
