package drafts

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"mailsift/store"
)

// pausedOutboxHelper is the child process of TestTwoProcessesSendOnce: it
// does what `mailsift outbox send` does (settle interrupted sends, then
// handle the due items once), but at MAILSIFT_PAUSE_STEP it writes
// "paused" to file descriptor 3 and waits until the parent closes the
// pipe on file descriptor 4. It exits 0 when it handled one item.
func pausedOutboxHelper(t *testing.T) {
	st := openStore(t, os.Getenv("MAILSIFT_DB"))
	port, _ := strconv.Atoi(os.Getenv("MAILSIFT_SMTP_PORT"))
	step := Step(os.Getenv("MAILSIFT_PAUSE_STEP"))
	paused, release := os.NewFile(3, "paused"), os.NewFile(4, "release")
	pause := func(_ context.Context, s Step) error {
		if s == step {
			fmt.Fprintln(paused, "paused")
			io.Copy(io.Discard, release) // returns at EOF: the parent let go
		}
		return nil
	}
	tr := &SMTP{Host: "127.0.0.1", Port: port, TLS: SMTPInsecure, Timeout: 30 * time.Second}
	e := newEngine(st, tr, dirMailbox{os.Getenv("MAILSIFT_SENT_DIR")}, func(o *Options) { o.Hook = pause })
	ctx := context.Background()
	code := 0
	if _, err := st.RecoverInterrupted(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "recover:", err)
		code = 4
	} else if n, err := e.ProcessDue(ctx); err != nil || n != 1 {
		fmt.Fprintf(os.Stderr, "process due: handled %d, %v\n", n, err)
		code = 5
	}
	st.Close()
	os.Exit(code)
}

// TestTwoProcessesSendOnce runs two mailsift processes on one store and
// one SMTP server: a child starts sending the confirmed message and pauses
// right after its send began; meanwhile this process does what a second
// `mailsift outbox send` or a second TUI does at start (settle interrupted
// sends, then handle due items). If this process sends too, the child is
// let go right after the server accepted this process's copy and before it
// is recorded, the widest window for a second send. The server must
// receive exactly one copy and the item must end sent after one attempt.
func TestTwoProcessesSendOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	ctx := context.Background()
	dir := t.TempDir()
	st, path := newStore(t)
	tid, _ := seedThread(t, st)
	sent := dirMailbox{dir}
	be := &smtpBackend{}
	srv := startSMTP(t, be, "plain")

	pausedR, pausedW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pausedR.Close()
	releaseR, releaseW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release := func() { once.Do(func() { releaseW.Close() }) }
	defer release()
	exited := make(chan struct{})
	waitExit := func() error {
		select {
		case <-exited:
			return nil
		case <-time.After(60 * time.Second):
			return fmt.Errorf("the paused process did not end within a minute of its release")
		}
	}
	var hookErr error
	e := newEngine(st, srv.transport("plain"), sent, func(o *Options) {
		o.Hook = func(_ context.Context, s Step) error {
			if s == StepAfterReply {
				release()
				hookErr = waitExit()
			}
			return nil
		}
	})
	d, _, item := confirmedReply(t, e, st, tid)

	cmd := exec.Command(os.Args[0], "-test.run=^TestOutboxHelperProcess$")
	cmd.Env = append(os.Environ(), "MAILSIFT_OUTBOX_HELPER=1", "MAILSIFT_DB="+path,
		"MAILSIFT_SMTP_PORT="+strconv.Itoa(srv.port), "MAILSIFT_SENT_DIR="+dir, "MAILSIFT_PAUSE_STEP="+string(StepBeforeConnect))
	cmd.ExtraFiles = []*os.File{pausedW, releaseR}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pausedW.Close()
	releaseR.Close()
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	defer func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
			<-exited
		}
	}()
	if line, _ := bufio.NewReader(pausedR).ReadString('\n'); line != "paused\n" {
		release()
		if err := waitExit(); err != nil {
			t.Fatalf("the child did not pause at %s: %v", StepBeforeConnect, err)
		}
		t.Fatalf("the child did not pause at %s (%v): %s", StepBeforeConnect, waitErr, stderr.String())
	}

	// The second process, while the first is inside its send.
	_, recErr := st.RecoverInterrupted(ctx)
	_, procErr := e.ProcessDue(ctx)
	release()
	if err := waitExit(); err != nil {
		t.Fatal(err)
	}
	if hookErr != nil {
		t.Fatal(hookErr)
	}
	for _, err := range []error{recErr, procErr} {
		if err != nil && !errors.Is(err, store.ErrOutboxBusy) {
			t.Errorf("second process: %v; want nil or store.ErrOutboxBusy", err)
		}
	}
	if waitErr != nil {
		t.Errorf("the paused process ended with %v: %s", waitErr, stderr.String())
	}
	it, err := st.OutboxItem(ctx, item.ID)
	if err != nil {
		t.Fatal(err)
	}
	delivered := countContaining(be.messages(), item.MessageID)
	if delivered != 1 || it.State != store.OutboxSent || it.Attempts != 1 || sent.count("Sent", item.MessageID) != 1 {
		t.Errorf("server received %d copies; item %s after %d attempt(s) (%s), %d Sent copies; want 1 copy, sent after 1 attempt, 1 Sent copy",
			delivered, it.State, it.Attempts, it.LastError, sent.count("Sent", item.MessageID))
	}
	if got, err := st.Draft(ctx, d.ID); err != nil || got.State != store.DraftSent {
		t.Errorf("draft after the send: %+v, %v; want sent", got, err)
	}
}

// TestRunRefusesWhenAnotherProcessSends checks that the outbox of a second
// process (a second TUI) does not start while another holds the store's
// outbox: Run returns store.ErrOutboxBusy at once and sends nothing; once
// the other ends, Run sends.
func TestRunRefusesWhenAnotherProcessSends(t *testing.T) {
	ctx := context.Background()
	st, path := newStore(t)
	tid, _ := seedThread(t, st)
	srv := startSMTP(t, &smtpBackend{}, "plain")
	e := newEngine(st, srv.transport("plain"), nil, nil)
	_, _, item := confirmedReply(t, e, st, tid)

	other := openStore(t, path) // another open file: flock sees another owner
	release, err := other.HoldOutbox()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(ctx); !errors.Is(err, store.ErrOutboxBusy) {
		t.Fatalf("Run while another process holds the outbox = %v, want store.ErrOutboxBusy", err)
	}
	if n, err := e.ProcessDue(ctx); n != 0 || !errors.Is(err, store.ErrOutboxBusy) {
		t.Fatalf("ProcessDue while another process holds the outbox = %d, %v; want 0, store.ErrOutboxBusy", n, err)
	}
	if it, _ := st.OutboxItem(ctx, item.ID); it.State != store.OutboxQueued || it.Attempts != 0 || len(srv.be.messages()) != 0 {
		t.Fatalf("item after the refused runs: %s, %d attempts, %d delivered; want queued, untouched", it.State, it.Attempts, len(srv.be.messages()))
	}
	release()
	it := runUntilSettled(t, e, st, item.ID)
	if it.State != store.OutboxSent || countContaining(srv.be.messages(), item.MessageID) != 1 {
		t.Errorf("after the other process let go: %s, %d delivered; want sent once", it.State, countContaining(srv.be.messages(), item.MessageID))
	}
}
