package drafts

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"mailsift/internal/storecheck"
	"mailsift/internal/testproc"
	"mailsift/store"
)

// faultReport is the file a helper appends "key value" lines to; plain
// writes reach the page cache at once, so they survive the helper's kill.
type faultReport struct{ f *os.File }

func openReport(path string) faultReport {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	return faultReport{f}
}

func (r faultReport) say(key, value string) { fmt.Fprintf(r.f, "%s %s\n", key, value) }

// readReport returns the last value of each key in a helper's report.
func readReport(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("helper report: %v", err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), " ")
		out[k] = v
	}
	return out
}

// selfKill ends the process at once, as kill -9 does.
func selfKill() {
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}

// killOnWrite sends SIGKILL the moment the file at path changes (size or
// modification time), i.e. while SQLite writes a transaction to the WAL.
func killOnWrite(path string) {
	before, _ := os.Stat(path)
	go func() {
		for {
			now, err := os.Stat(path)
			if err == nil && (before == nil || now.Size() != before.Size() || !now.ModTime().Equal(before.ModTime())) {
				selfKill()
			}
		}
	}()
}

const autosaves = 5

func editBody(i int) string {
	return fmt.Sprintf("Hi Bob,\n\nThe report is fine (edit %d).\n\nAlice", i)
}

// TestEditKillHelperProcess is not a test: it is the child process of
// TestEditKill9. It drafts a reply to thread MAILSIFT_THREAD in the store
// MAILSIFT_DB, autosaves autosaves edits, reporting each, and is killed
// with SIGKILL after the last (MAILSIFT_FAULT=after) or while the last is
// being written (MAILSIFT_FAULT=during).
func TestEditKillHelperProcess(t *testing.T) {
	mode := os.Getenv("MAILSIFT_FAULT")
	if mode == "" {
		t.Skip("helper process for TestEditKill9")
	}
	ctx := context.Background()
	path := os.Getenv("MAILSIFT_DB")
	st, err := store.Open(ctx, path, &store.Options{Principal: alice})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	rep := openReport(os.Getenv("MAILSIFT_REPORT"))
	tid, _ := strconv.ParseInt(os.Getenv("MAILSIFT_THREAD"), 10, 64)
	e := newEngine(st, nil, nil, nil)
	d, err := e.NewDraft(ctx, tid, false, "")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	rep.say("draft", d.ID)
	for i := 1; i <= autosaves; i++ {
		d.Body = editBody(i)
		if i == autosaves && mode == "during" {
			killOnWrite(path + "-wal")
		}
		if err := e.SaveDraft(ctx, d); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		rep.say("saved", strconv.Itoa(i))
	}
	selfKill()
}

// TestEditKill9 kills the process editing a draft with SIGKILL right after
// an autosave and in the middle of one. After a restart the draft is open
// and holds the last autosaved text (or, killed mid-save, the one before
// it: never a mix, never lost).
func TestEditKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	for _, mode := range []string{"after", "during"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			st, path := newStore(t)
			tid, _ := seedThread(t, st)
			reportPath := filepath.Join(t.TempDir(), "report")
			ps, stderr := testproc.Run(t, "TestEditKillHelperProcess", "MAILSIFT_FAULT="+mode, "MAILSIFT_DB="+path,
				"MAILSIFT_REPORT="+reportPath, "MAILSIFT_THREAD="+strconv.FormatInt(tid, 10))
			if !testproc.KilledBySIGKILL(ps) {
				t.Fatalf("helper ended with %v, want killed by SIGKILL; stderr:\n%s", ps, stderr)
			}
			rep := readReport(t, reportPath)
			saved, _ := strconv.Atoi(rep["saved"])
			st.Close()
			st2 := openStore(t, path)
			storecheck.Healthy(t, st2)
			d, err := st2.Draft(ctx, rep["draft"])
			if err != nil {
				t.Fatalf("draft %q after the kill: %v", rep["draft"], err)
			}
			// Killed during the last autosave, the helper may or may not
			// have seen it return (a draft's commit is a few writes, over
			// before the signal lands): the store holds the last save it
			// reported, or the one it was making.
			want := []string{editBody(saved)}
			switch {
			case mode == "during" && saved == autosaves-1:
				want = append(want, editBody(autosaves))
			case saved != autosaves:
				t.Fatalf("the helper reported %d autosaves, want %d", saved, autosaves)
			}
			t.Logf("killed after %d autosaves reported", saved)
			if d.State != store.DraftOpen || !contains(want, d.Body) {
				t.Errorf("after the kill: draft %s, body %q; want open, body one of %q", d.State, d.Body, want)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestSendDiskFullHelperProcess is not a test: it is the child process of
// TestSendDiskFull. It runs one outbox pass over the store MAILSIFT_DB
// with the SMTP server on MAILSIFT_SMTP_PORT, and at MAILSIFT_FULL_STEP
// ("start": before the pass; a Step: at that step of the send) limits the
// size of the files it writes (RLIMIT_FSIZE, SIGXFSZ ignored) so that the
// store cannot grow, as on a full disk. It prints the pass's error on
// stderr and exits 1.
func TestSendDiskFullHelperProcess(t *testing.T) {
	step := os.Getenv("MAILSIFT_FULL_STEP")
	if step == "" {
		t.Skip("helper process for TestSendDiskFull")
	}
	ctx := context.Background()
	st, err := store.Open(ctx, os.Getenv("MAILSIFT_DB"), &store.Options{Principal: alice})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// A limit below the WAL's size: every commit appends to the WAL past
	// it (the store is open, its shared-memory file already sized).
	fill := func() {
		signal.Ignore(syscall.SIGXFSZ)
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 64, Max: 64}); err != nil {
			fmt.Fprintln(os.Stderr, "setrlimit:", err)
			os.Exit(2)
		}
	}
	hook := func(_ context.Context, s Step) error {
		if string(s) == step {
			fill()
		}
		return nil
	}
	port, _ := strconv.Atoi(os.Getenv("MAILSIFT_SMTP_PORT"))
	tr := &SMTP{Host: "127.0.0.1", Port: port, TLS: SMTPInsecure, Timeout: 5 * time.Second, Hook: hook}
	serverSaves := os.Getenv("MAILSIFT_SERVER_SAVES") == "1"
	e := newEngine(st, tr, dirMailbox{os.Getenv("MAILSIFT_SENT_DIR")}, func(o *Options) {
		o.Hook = hook
		o.Accounts[0].ServerSavesSent = serverSaves
	})
	if step == "start" {
		fill()
	}
	if _, err := e.ProcessDue(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// TestSendDiskFull runs the outbox in a child process whose store cannot
// grow (RLIMIT_FSIZE) from before the send starts, or from the moment the
// server accepted the message, so that recording the send fails. The
// child reports an error saying the disk is full and exits (no panic, no
// hang); after a restart with room again, the store is healthy, the
// message was delivered exactly once and the draft is intact. When the
// send itself could not be recorded, the Sent folder decides: found there
// (a server that files sent mail) it is sent; not found it waits for the
// user rather than risk a second copy.
func TestSendDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	cases := []struct {
		step        string
		serverSaves bool
		wantState   store.OutboxState
		wantSent    int
	}{
		{"start", false, store.OutboxSent, 1},
		{string(StepAfterReply), true, store.OutboxSent, 1},
		{string(StepAfterReply), false, store.OutboxUnknown, 0},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/server-files-sent=%v", c.step, c.serverSaves), func(t *testing.T) {
			ctx := context.Background()
			sentDir := t.TempDir()
			sent := dirMailbox{sentDir}
			path := filepath.Join(t.TempDir(), "mailsift.db")
			st, err := store.Open(ctx, path, &store.Options{Principal: alice})
			if err != nil {
				t.Fatal(err)
			}
			tid, _ := seedThread(t, st)
			be := &smtpBackend{}
			if c.serverSaves {
				be.onData = func(*smtp.Conn) error {
					msgs := be.messages()
					sent.Append(ctx, "Sent", nil, time.Now(), msgs[len(msgs)-1].Data)
					return nil
				}
			}
			srv := startSMTP(t, be, "plain")
			mod := func(o *Options) { o.Accounts[0].ServerSavesSent = c.serverSaves }
			d, _, item := confirmedReply(t, newEngine(st, srv.transport("plain"), sent, mod), st, tid)
			st.Close()

			saves := "0"
			if c.serverSaves {
				saves = "1"
			}
			ps, stderr := testproc.Run(t, "TestSendDiskFullHelperProcess", "MAILSIFT_FULL_STEP="+c.step, "MAILSIFT_DB="+path,
				"MAILSIFT_SMTP_PORT="+strconv.Itoa(srv.port), "MAILSIFT_SENT_DIR="+sentDir, "MAILSIFT_SERVER_SAVES="+saves)
			if ps.ExitCode() != 1 {
				t.Fatalf("helper exit = %v, want 1 (the pass's error); stderr:\n%s", ps, stderr)
			}
			t.Logf("the outbox's error: %s", strings.TrimSpace(stderr))
			if strings.Contains(stderr, "panic") || !strings.Contains(stderr, "disk is full") {
				t.Errorf("outbox error = %q, want it to say the disk is full", strings.TrimSpace(stderr))
			}
			wantBefore := 0
			if c.step != "start" {
				wantBefore = 1
			}
			if n := countContaining(be.messages(), item.MessageID); n != wantBefore {
				t.Fatalf("before the restart the server had %d copies, want %d", n, wantBefore)
			}

			st2 := openStore(t, path)
			storecheck.Healthy(t, st2)
			it := runUntilSettled(t, newEngine(st2, srv.transport("plain"), sent, mod), st2, item.ID)
			delivered := countContaining(be.messages(), item.MessageID)
			if delivered != 1 || it.State != c.wantState || sent.count("Sent", item.MessageID) != c.wantSent {
				t.Errorf("after restart: delivered %d, state %s (%s), Sent copies %d; want 1, %s, %d",
					delivered, it.State, it.LastError, sent.count("Sent", item.MessageID), c.wantState, c.wantSent)
			}
			got, err := st2.Draft(ctx, d.ID)
			if err != nil || got.Body != d.Body {
				t.Errorf("draft lost: %v", err)
			}
		})
	}
}
