package maildir

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"mailsift/internal/storecheck"
	"mailsift/internal/testproc"
	"mailsift/mailsrc"
	"mailsift/model"
	"mailsift/store"
)

// faultMessages, faultThreadLen: the generated maildir holds faultMessages
// messages in threads of faultThreadLen (each replying to the previous).
const (
	faultMessages  = 300
	faultThreadLen = 3
	faultBatch     = 40 // the helper's BatchSize: several commits per sync
)

// faultMaildir writes the generated maildir (INBOX and a Sent folder) and
// returns its root and every Message-ID with its thread number.
func faultMaildir(t *testing.T) (string, map[string]int) {
	t.Helper()
	root := t.TempDir()
	mkMaildir(t, root)
	mkMaildir(t, filepath.Join(root, ".Sent"))
	ids := map[string]int{}
	body := strings.Repeat("The quarterly figures are attached below, please review them. ", 20)
	for i := range faultMessages {
		th := i / faultThreadLen
		id := fmt.Sprintf("fault-%04d@example.com", i)
		ids[id] = th
		var refs string
		if i%faultThreadLen > 0 {
			refs = fmt.Sprintf("In-Reply-To: <fault-%04d@example.com>\nReferences: <fault-%04d@example.com>\n", i-1, i-1)
		}
		date := time.Date(2025, 11, 3, 10, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
		raw := fmt.Sprintf("From: Sender %d <s%d@example.com>\nTo: alice@example.com\nSubject: Report %d\nDate: %s\nMessage-ID: <%s>\n%s\n%s\nmessage %d\n",
			th, th, th, date.Format(time.RFC1123Z), id, refs, body, i)
		dir := root
		if i%10 == 9 {
			dir = filepath.Join(root, ".Sent")
		}
		name := fmt.Sprintf("%d.%04d.host:2,", 1700000000+i, i)
		if i%2 == 0 {
			name += "S"
		}
		if err := os.WriteFile(filepath.Join(dir, "cur", name), []byte(raw), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root, ids
}

// TestSyncFaultHelperProcess is not a test: it is the child process of
// TestSyncKill9 and TestSyncDiskFull. It syncs MAILSIFT_MAILDIR into the
// store MAILSIFT_DB and then, as MAILSIFT_FAULT says:
//   - "progress:N": kills itself with SIGKILL once N messages are stored;
//   - "commit:K": kills itself while batch K's transaction is being
//     written to the WAL (the first write to it after the batch began);
//   - "fsize:BYTES": runs with RLIMIT_FSIZE set to BYTES and SIGXFSZ
//     ignored, so writes past it fail with EFBIG, and prints the sync's
//     error on stderr, exiting 1.
func TestSyncFaultHelperProcess(t *testing.T) {
	mode := os.Getenv("MAILSIFT_FAULT")
	if mode == "" {
		t.Skip("helper process for TestSyncKill9 and TestSyncDiskFull")
	}
	kind, arg, _ := strings.Cut(mode, ":")
	n, _ := strconv.Atoi(arg)
	if kind == "fsize" {
		signal.Ignore(syscall.SIGXFSZ)
		lim := syscall.Rlimit{Cur: uint64(n), Max: uint64(n)}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
			fmt.Fprintln(os.Stderr, "setrlimit:", err)
			os.Exit(2)
		}
	}
	ctx := context.Background()
	path := os.Getenv("MAILSIFT_DB")
	st, err := store.Open(ctx, path, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		os.Exit(2)
	}
	var sink mailsrc.Sink = st
	progress := func(mailsrc.Progress) {}
	switch kind {
	case "progress":
		// Done is cumulative per mailbox: keep the latest of each.
		latest := map[string]int{}
		progress = func(p mailsrc.Progress) {
			if p.Phase != "bodies" {
				return
			}
			latest[p.Mailbox] = p.Done
			sum := 0
			for _, d := range latest {
				sum += d
			}
			if sum >= n {
				die()
			}
		}
	case "commit":
		sink = &commitKiller{Store: st, wal: path + "-wal", at: n}
	}
	src := New("acct", os.Getenv("MAILSIFT_MAILDIR"), &Options{BatchSize: faultBatch, Workers: 2})
	err = src.Sync(ctx, sink, progress)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		st.Close()
		os.Exit(1)
	}
	st.Close()
	os.Exit(0)
}

// die ends the process at once, as kill -9 does.
func die() {
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // never go on past the kill
}

// commitKiller is a store whose K-th PutMessages is killed while SQLite
// writes the batch: a goroutine watches the WAL file and sends SIGKILL
// the moment it changes, which is while the transaction spills or commits
// its pages. If the call returns first, the process dies right after it.
type commitKiller struct {
	*store.Store
	wal   string
	at    int
	calls int
}

func (c *commitKiller) PutMessages(ctx context.Context, msgs []*model.Message) error {
	c.calls++
	if c.calls != c.at {
		return c.Store.PutMessages(ctx, msgs)
	}
	before, _ := os.Stat(c.wal)
	go func() {
		for {
			now, err := os.Stat(c.wal)
			if err == nil && (before == nil || now.Size() != before.Size() || !now.ModTime().Equal(before.ModTime())) {
				die()
			}
		}
	}()
	c.Store.PutMessages(ctx, msgs)
	die()
	return nil
}

// runSyncHelper runs the helper with MAILSIFT_FAULT=mode on the store at
// path and returns its process state and stderr.
func runSyncHelper(t *testing.T, path, root, mode string) (*os.ProcessState, string) {
	t.Helper()
	return testproc.Run(t, "TestSyncFaultHelperProcess", "MAILSIFT_FAULT="+mode, "MAILSIFT_DB="+path, "MAILSIFT_MAILDIR="+root)
}

// newFaultStore creates the store at a new path and closes it, so the
// child opens an existing store (as after the first run).
func newFaultStore(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mailsift.db")
	st, err := store.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	return path
}

// storedMessageIDs returns how many stored messages carry each Message-ID.
func storedMessageIDs(t *testing.T, path string) map[string]int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT message_id FROM messages`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]int{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		got[id]++
	}
	return got
}

// checkRecovered reopens the store after the fault and checks it is
// healthy; a second sync must then leave exactly the source's messages,
// each once, each generated thread in one stored thread, every file
// located.
func checkRecovered(t *testing.T, path, root string, want map[string]int) {
	t.Helper()
	ctx := context.Background()
	before := storedMessageIDs(t, path)
	st, err := store.Open(ctx, path, nil)
	if err != nil {
		t.Fatalf("reopen after the fault: %v", err)
	}
	defer st.Close()
	storecheck.Healthy(t, st)
	for id, n := range before {
		if _, ok := want[id]; !ok || n != 1 {
			t.Errorf("after the fault: %q stored %d times (in the source: %v)", id, n, ok)
		}
	}
	if err := New("acct", root, &Options{BatchSize: faultBatch}).Sync(ctx, st, nil); err != nil {
		t.Fatalf("second Sync() = %v", err)
	}
	storecheck.Healthy(t, st)
	got := storedMessageIDs(t, path)
	if len(got) != len(want) {
		t.Errorf("after the second sync: %d distinct Message-IDs stored, want %d", len(got), len(want))
	}
	thread := map[int]int64{}
	for id, th := range want {
		if got[id] != 1 {
			t.Errorf("after the second sync: %q stored %d times, want once", id, got[id])
			continue
		}
		tid, err := st.ThreadIDForMessage(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if prev, ok := thread[th]; ok && prev != tid {
			t.Errorf("generated thread %d split across stored threads %d and %d", th, prev, tid)
		}
		thread[th] = tid
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			t.Errorf("after the second sync: %q stored but not in the source", id)
		}
	}
	n := 0
	for _, mb := range []string{"INBOX", "Sent"} {
		locs, err := st.Locations(ctx, "acct", mb)
		if err != nil {
			t.Fatal(err)
		}
		n += len(locs)
	}
	if n != faultMessages {
		t.Errorf("after the second sync: %d locations, want %d", n, faultMessages)
	}
}

// TestSyncKill9 kills a sync with SIGKILL at several points (after the
// first batch, mid-sync between batches, and during a batch's write to the
// WAL, where it lands inside the commit). After each, the reopened store
// passes the integrity checks and a second sync leaves exactly the
// source's messages, once each, threads intact.
func TestSyncKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	root, want := faultMaildir(t)
	for _, mode := range []string{"progress:1", "progress:150", "commit:1", "commit:4"} {
		t.Run(mode, func(t *testing.T) {
			path := newFaultStore(t)
			ps, stderr := runSyncHelper(t, path, root, mode)
			if !testproc.KilledBySIGKILL(ps) {
				t.Fatalf("helper ended with %v (%s), want killed by SIGKILL", ps, stderr)
			}
			got := len(storedMessageIDs(t, path))
			t.Logf("%d messages stored when killed", got)
			if got >= faultMessages {
				t.Errorf("the kill came after the sync: %d messages stored", got)
			}
			if kind, arg, _ := strings.Cut(mode, ":"); kind == "progress" {
				if n, _ := strconv.Atoi(arg); got < n {
					t.Errorf("killed after %d messages were reported stored, but only %d are", n, got)
				}
			}
			checkRecovered(t, path, root, want)
		})
	}
}

// TestSyncDiskFull runs a sync whose store cannot grow past a limit
// (RLIMIT_FSIZE; a write past it fails as on a full disk). The sync stops
// with an error saying the disk is full, without a panic or a hang; with
// room again, the store is healthy and a second sync completes with
// exactly the source's messages.
func TestSyncDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	root, want := faultMaildir(t)
	path := newFaultStore(t)
	ps, stderr := runSyncHelper(t, path, root, "fsize:"+strconv.Itoa(256<<10))
	if ps.ExitCode() != 1 {
		t.Fatalf("helper exit = %v, want 1 (the sync's error); stderr:\n%s", ps, stderr)
	}
	t.Logf("the sync's error: %s", stderr)
	if strings.Contains(stderr, "panic") {
		t.Errorf("sync panicked: %s", stderr)
	}
	if !strings.Contains(stderr, "disk is full") {
		t.Errorf("sync error = %q, want it to say the disk is full", strings.TrimSpace(stderr))
	}
	if got := len(storedMessageIDs(t, path)); got >= faultMessages {
		t.Errorf("the limit did not stop the sync: %d messages stored", got)
	}
	checkRecovered(t, path, root, want)
}
