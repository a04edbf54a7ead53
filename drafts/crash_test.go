package drafts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"mailsift/store"
)

var errCrash = errors.New("simulated crash")

// runUntilSettled restarts the outbox (a new engine on the same store, as
// after a crash) and runs it until the item is sent or waits for the user.
func runUntilSettled(t *testing.T, e *Engine, st *store.Store, id int64) *store.OutboxItem {
	t.Helper()
	events := make(chan Event)
	e.opt.Events = events
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	defer func() { cancel(); <-done }()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		it, err := st.OutboxItem(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if (it.State == store.OutboxSent && it.AppendState != store.AppendPending) ||
			(it.State == store.OutboxUnknown && it.NextAttemptAt.IsZero()) {
			return it
		}
		// Every state change the engine makes is published after it is
		// stored: look again after the next one.
		select {
		case <-events:
		case err := <-done:
			t.Fatalf("outbox stopped (%v) before item %d settled: %+v", err, id, it)
		case <-deadline.C:
			t.Fatalf("outbox item did not settle: %+v", it)
		}
	}
}

// TestCrashAtEachStep stops the outbox at each step of the send path (a
// hook returning an error ends Run there and nothing more is recorded, as
// if the process died), restarts it on the same store, and checks that
// exactly one copy was delivered and no draft was lost.
func TestCrashAtEachStep(t *testing.T) {
	type tc struct {
		step        Step
		serverSaves bool // Gmail-like: the server files sent mail itself
		wantState   store.OutboxState
		wantSent    int // copies in the Sent folder
	}
	var cases []tc
	for _, s := range []Step{StepBeforeConnect, StepAfterMailFrom, "after-data-before-reply", StepAfterReply} {
		cases = append(cases, tc{s, true, store.OutboxSent, 1})
	}
	cases = append(cases,
		tc{StepBeforeConnect, false, store.OutboxSent, 1},
		tc{StepAfterMailFrom, false, store.OutboxSent, 1},
		tc{StepDuringAppend, false, store.OutboxSent, 1},
		// The server took the message but no reply was recorded and the
		// Sent folder cannot tell: at most once means waiting for the user.
		tc{"after-data-before-reply", false, store.OutboxUnknown, 0},
		tc{StepAfterReply, false, store.OutboxUnknown, 0},
	)
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/server-files-sent=%v", c.step, c.serverSaves), func(t *testing.T) {
			ctx := context.Background()
			st, _ := newStore(t)
			tid, _ := seedThread(t, st)
			mb := newMemMailbox()
			runCtx, crash := context.WithCancel(ctx)
			defer crash()
			be := &smtpBackend{}
			crashed := false
			be.onData = func(conn *smtp.Conn) error {
				if c.serverSaves {
					msgs := be.messages()
					mb.Append(ctx, "Sent", nil, time.Now(), msgs[len(msgs)-1].Data)
				}
				if c.step == "after-data-before-reply" && !crashed {
					crashed = true
					crash()
					// The client gives up when its context ends: wait until
					// it hung up before dropping our side, so no reply
					// reaches it.
					conn.Conn().SetReadDeadline(time.Now().Add(10 * time.Second))
					io.Copy(io.Discard, conn.Conn())
					drop(conn)
				}
				return nil
			}
			srv := startSMTP(t, be, "plain")
			tr := srv.transport("plain")
			tr.Hook = func(_ context.Context, s Step) error {
				if s == c.step {
					return &abortError{step: s, err: errCrash}
				}
				return nil
			}
			mod := func(o *Options) { o.Accounts[0].ServerSavesSent = c.serverSaves }
			e := newEngine(st, tr, mb, func(o *Options) {
				mod(o)
				o.Hook = func(_ context.Context, s Step) error {
					if s == c.step {
						return errCrash
					}
					return nil
				}
			})
			d, _, item := confirmedReply(t, e, st, tid)
			err := e.Run(runCtx)
			if !errors.Is(err, errCrash) && !errors.Is(err, context.Canceled) {
				t.Fatalf("Run = %v, want the simulated crash", err)
			}
			// Restart without hooks.
			tr2 := srv.transport("plain")
			e2 := newEngine(st, tr2, mb, mod)
			it := runUntilSettled(t, e2, st, item.ID)
			delivered := countContaining(be.messages(), item.MessageID)
			if delivered != 1 || it.State != c.wantState || mb.count("Sent", item.MessageID) != c.wantSent {
				t.Errorf("after restart: delivered %d, state %s (%s), Sent copies %d; want 1, %s, %d",
					delivered, it.State, it.LastError, mb.count("Sent", item.MessageID), c.wantState, c.wantSent)
			}
			got, err := st.Draft(ctx, d.ID)
			if err != nil || got.Body != d.Body {
				t.Errorf("draft lost: %v %q", err, got.Body)
			}
		})
	}
}

// TestOutboxHelperProcess is not a test: it is the child process of
// TestKill9AtEachStep, running the outbox until it is killed, and of
// TestTwoProcessesSendOnce (MAILSIFT_PAUSE_STEP set), pausing in the send
// path until the parent releases it.
func TestOutboxHelperProcess(t *testing.T) {
	if os.Getenv("MAILSIFT_OUTBOX_HELPER") != "1" {
		t.Skip("helper process for TestKill9AtEachStep and TestTwoProcessesSendOnce")
	}
	if os.Getenv("MAILSIFT_PAUSE_STEP") != "" {
		pausedOutboxHelper(t)
	}
	st := openStore(t, os.Getenv("MAILSIFT_DB"))
	port, _ := strconv.Atoi(os.Getenv("MAILSIFT_SMTP_PORT"))
	step := Step(os.Getenv("MAILSIFT_KILL_STEP"))
	kill := func(_ context.Context, s Step) error {
		if s == step {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal ends the process; never go on past the step
		}
		return nil
	}
	tr := &SMTP{Host: "127.0.0.1", Port: port, TLS: SMTPInsecure, Timeout: 5 * time.Second, Hook: kill}
	e := newEngine(st, tr, dirMailbox{os.Getenv("MAILSIFT_SENT_DIR")}, func(o *Options) { o.Hook = kill })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	e.Run(ctx)
	os.Exit(3) // never reached when the kill works
}

// TestKill9AtEachStep runs the outbox in a child process (this test binary)
// against a go-smtp server in this process and kills it with SIGKILL at
// each step of the send path: from inside (before connect, after the reply
// before recording, during APPEND) or from the server (after MAIL FROM,
// after the end of DATA before the reply). The outbox then restarts here
// on the same store: exactly one copy is delivered every time and the draft
// is intact.
func TestKill9AtEachStep(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	cases := []struct {
		step      Step
		wantState store.OutboxState
		wantSent  int
	}{
		{StepBeforeConnect, store.OutboxSent, 1},
		{StepAfterMailFrom, store.OutboxSent, 1},
		{"after-data-before-reply", store.OutboxUnknown, 0},
		{StepAfterReply, store.OutboxUnknown, 0},
		{StepDuringAppend, store.OutboxSent, 1},
	}
	for _, c := range cases {
		t.Run(string(c.step), func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			st, path := newStore(t)
			tid, _ := seedThread(t, st)
			sent := dirMailbox{dir}
			be := &smtpBackend{}
			var cmd *exec.Cmd
			exited := make(chan struct{})
			proc := make(chan *os.Process, 1)
			killChild := func() {
				p := <-proc
				proc <- p
				p.Kill() // SIGKILL
				<-exited
			}
			be.onMail = func(*smtp.Conn) {
				if c.step == StepAfterMailFrom {
					killChild()
				}
			}
			be.onData = func(conn *smtp.Conn) error {
				if c.step == "after-data-before-reply" {
					killChild()
				}
				return nil
			}
			srv := startSMTP(t, be, "plain")
			e := newEngine(st, srv.transport("plain"), sent, nil)
			d, _, item := confirmedReply(t, e, st, tid)

			cmd = exec.Command(os.Args[0], "-test.run=^TestOutboxHelperProcess$")
			cmd.Env = append(os.Environ(), "MAILSIFT_OUTBOX_HELPER=1", "MAILSIFT_DB="+path,
				"MAILSIFT_SMTP_PORT="+strconv.Itoa(srv.port), "MAILSIFT_SENT_DIR="+dir, "MAILSIFT_KILL_STEP="+string(c.step))
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			proc <- cmd.Process
			var waitErr error
			go func() { waitErr = cmd.Wait(); close(exited) }()
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-exited
				t.Fatal("helper did not die")
			}
			ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("helper ended with %v, want killed by SIGKILL", waitErr)
			}
			e2 := newEngine(st, srv.transport("plain"), sent, nil)
			it := runUntilSettled(t, e2, st, item.ID)
			delivered := countContaining(be.messages(), item.MessageID)
			if delivered != 1 || it.State != c.wantState || sent.count("Sent", item.MessageID) != c.wantSent {
				t.Errorf("after kill -9 and restart: delivered %d, state %s (%s), Sent copies %d; want 1, %s, %d",
					delivered, it.State, it.LastError, sent.count("Sent", item.MessageID), c.wantState, c.wantSent)
			}
			got, err := st.Draft(ctx, d.ID)
			if err != nil || got.Body != d.Body {
				t.Errorf("draft lost: %v", err)
			}
		})
	}
}
