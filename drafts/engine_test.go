package drafts

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"mailsift/model"
	"mailsift/store"
)

func newEngine(st *store.Store, tr Transport, mb Mailbox, mod func(*Options)) *Engine {
	o := Options{Principal: alice, Policy: Policy{Signature: "Alice"},
		Accounts:     []Account{{Name: "", From: alice, Transport: tr, Mailbox: mb}},
		PollInterval: 20 * time.Millisecond, Backoff: Backoff{Base: time.Hour, Max: 2 * time.Hour, Factor: 2, MaxAttempts: 3}}
	if mod != nil {
		mod(&o)
	}
	return New(st, o)
}

func TestSendExactBytesOverSMTP(t *testing.T) {
	for _, mode := range []string{"plain", "starttls", "implicit"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			st, _ := newStore(t)
			tid, _ := seedThread(t, st)
			srv := startSMTP(t, &smtpBackend{user: "alice", pass: "pw-123"}, mode)
			mb := newMemMailbox()
			var retriaged []int64
			e := newEngine(st, srv.transport(mode), mb, func(o *Options) {
				o.Retriage = func(_ context.Context, id int64) { retriaged = append(retriaged, id) }
			})
			_, a, item := confirmedReply(t, e, st, tid)
			if _, err := e.ProcessDue(ctx); err != nil {
				t.Fatal(err)
			}
			got := srv.be.messages()
			if len(got) != 1 {
				t.Fatalf("server received %d messages, want 1", len(got))
			}
			m := got[0]
			if string(m.Data) != a.What.Message {
				t.Errorf("bytes received differ from the approved message:\n%s\nwant\n%s", m.Data, a.What.Message)
			}
			if strings.Contains(strings.ToLower(string(m.Data)), "\nbcc:") || strings.Contains(string(m.Data), "archive@example.com") {
				t.Errorf("Bcc leaked into the headers:\n%s", m.Data)
			}
			if strings.Join(m.To, ",") != "bob@example.com,archive@example.com" || m.From != "alice@example.com" {
				t.Errorf("envelope = %s → %v", m.From, m.To)
			}
			for _, h := range []string{"In-Reply-To: <m2@example.com>\r\n", "References: <m1@example.com> <m2@example.com>\r\n",
				"Subject: Re: Quarterly report\r\n", "Message-ID: <" + item.MessageID + ">\r\n"} {
				if !strings.Contains(string(m.Data), h) {
					t.Errorf("missing %q in\n%s", h, m.Data)
				}
			}
			if m.User != "alice" || m.TLS != (mode != "plain") {
				t.Errorf("auth user %q tls %v", m.User, m.TLS)
			}
			it, _ := st.OutboxItem(ctx, item.ID)
			if it.State != store.OutboxSent || it.AppendState != store.AppendDone || mb.count("Sent", item.MessageID) != 1 {
				t.Errorf("after send: state %s append %q sent copies %d", it.State, it.AppendState, mb.count("Sent", item.MessageID))
			}
			if len(retriaged) != 1 || retriaged[0] != tid {
				t.Errorf("retriage calls = %v, want [%d]", retriaged, tid)
			}
			// \Answered queued on the original.
			pend, _ := st.PendingFlagChanges(ctx, "acct", 0)
			answered := false
			for _, p := range pend {
				if p.Change.Flag == model.FlagAnswered && p.Change.Set && p.Change.Loc.Key == "m2@example.com" {
					answered = true
				}
			}
			if !answered {
				t.Errorf("no \\Answered queued on the original: %+v", pend)
			}
			// One trace for the whole reply, in order.
			evs, _ := st.AuditEvents(ctx, it.TraceID, 0)
			var types []string
			for _, ev := range evs {
				types = append(types, ev.Type)
			}
			want := "draft.created,draft.edited,approval.requested,approval.approved,outbox.queued,tool_call.attempted,tool_call.succeeded,sent.appended"
			if strings.Join(types, ",") != want {
				t.Errorf("audit trail = %v\nwant %s", types, want)
			}
		})
	}
}

func TestSMTPErrors(t *testing.T) {
	ctx := context.Background()
	noCommit := func() error { return nil }
	tk := func(raw string) *store.SendTicket { return ticketFor(t, raw, "alice@example.com", "bob@example.com") }
	t.Run("wrong password is permanent and says so", func(t *testing.T) {
		srv := startSMTP(t, &smtpBackend{user: "alice", pass: "right"}, "plain")
		tr := srv.transport("plain")
		tr.Password = func(context.Context) (string, error) { return "wrong", nil }
		err := tr.Send(ctx, tk("Subject: x\r\n\r\nx\r\n"), noCommit)
		var perm *PermanentError
		if !errors.As(err, &perm) || !strings.Contains(err.Error(), "check the password") || strings.Contains(err.Error(), "wrong") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("STARTTLS required", func(t *testing.T) {
		srv := startSMTP(t, &smtpBackend{}, "plain")
		tr := srv.transport("starttls")
		err := tr.Send(ctx, tk("x\r\n"), noCommit)
		if !strings.Contains(fmt_(err), "does not offer STARTTLS") {
			t.Errorf("err = %v", err)
		}
		if len(srv.be.messages()) != 0 {
			t.Errorf("message sent without STARTTLS")
		}
	})
	t.Run("untrusted certificate refused", func(t *testing.T) {
		srv := startSMTP(t, &smtpBackend{}, "implicit")
		tr := srv.transport("implicit")
		tr.TLSConfig = nil
		if err := tr.Send(ctx, tk("x\r\n"), noCommit); err == nil || !strings.Contains(err.Error(), "certificate") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("insecure to a remote host refused", func(t *testing.T) {
		tr := &SMTP{Host: "smtp.example.com", Port: 25, TLS: SMTPInsecure}
		if err := tr.Send(ctx, tk("x\r\n"), noCommit); err == nil || !strings.Contains(err.Error(), "loopback") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("dead server is temporary", func(t *testing.T) {
		tr := &SMTP{Host: "127.0.0.1", Port: 1, TLS: SMTPInsecure, Timeout: time.Second}
		err := tr.Send(ctx, tk("x\r\n"), noCommit)
		var perm *PermanentError
		if err == nil || errors.As(err, &perm) || errors.Is(err, ErrOutcomeUnknown) {
			t.Errorf("err = %v, want temporary", err)
		}
	})
}

func TestTransportNeedsTicket(t *testing.T) {
	srv := startSMTP(t, &smtpBackend{}, "plain")
	for _, tr := range []Transport{srv.transport("plain"), &Sendmail{Command: "cat"}} {
		err := tr.Send(context.Background(), nil, func() error { return nil })
		var perm *PermanentError
		if !errors.As(err, &perm) || !strings.Contains(err.Error(), "approval") {
			t.Errorf("%s without a ticket = %v", tr.Name(), err)
		}
	}
	if len(srv.be.messages()) != 0 {
		t.Errorf("sent without a ticket")
	}
}

func fmt_(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestNothingSentWithoutApproval(t *testing.T) {
	ctx := context.Background()
	st, path := newStore(t)
	tid, _ := seedThread(t, st)
	srv := startSMTP(t, &smtpBackend{}, "plain")
	e := newEngine(st, srv.transport("plain"), nil, nil)

	// Approved in the UI but never confirmed: nothing is queued or sent.
	d, err := e.NewDraft(ctx, tid, false, "")
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.Approve(ctx, d.ID, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.ProcessDue(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Deny(ctx, a.ID, "key n pressed"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Confirm(ctx, a.ID); !errors.Is(err, store.ErrApprovalNotApproved) {
		t.Errorf("Confirm after deny = %v, want ErrApprovalNotApproved", err)
	}
	if n := len(srv.be.messages()); n != 0 {
		t.Fatalf("sent %d messages without a confirmed approval", n)
	}

	// Queued, then the approval is revoked / the bytes are tampered with
	// behind the engine's back: the gate refuses, the transport is not called.
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The store refuses to change a queued message...
	_, _, queued := confirmedReply(t, e, st, tid)
	if _, err := db.Exec(`UPDATE outbox SET raw = CAST('x' AS BLOB) WHERE id = ?`, queued.ID); err == nil || !strings.Contains(err.Error(), "fixed") {
		t.Errorf("changing queued bytes = %v, want refused", err)
	}
	if err := e.Cancel(ctx, queued.ID); err != nil {
		t.Fatal(err)
	}
	// ...and even with that trigger dropped, the gate checks the hash.
	if _, err := db.Exec(`DROP TRIGGER outbox_fixed`); err != nil {
		t.Fatal(err)
	}
	for _, tamper := range []string{
		`UPDATE approvals SET status = 'denied' WHERE id = ?`,
		`UPDATE outbox SET raw = CAST(replace(CAST(raw AS TEXT), 'bob@example.com', 'eve@evil.example') AS BLOB) WHERE approval_id = ?`,
	} {
		_, a, item := newConfirmed(t, e, tid)
		if _, err := db.Exec(tamper, a.ID); err != nil {
			t.Fatal(err)
		}
		e.ProcessDue(ctx)
		it, _ := st.OutboxItem(ctx, item.ID)
		if it.State != store.OutboxFailed || !strings.HasPrefix(it.LastError, "refused") {
			t.Errorf("tampered item: state %s error %q", it.State, it.LastError)
		}
	}
	if n := len(srv.be.messages()); n != 0 {
		t.Fatalf("sent %d messages past the approval gate", n)
	}
	srv.be.mu.Lock()
	sessions := srv.be.sessions
	srv.be.mu.Unlock()
	if sessions != 0 {
		t.Errorf("the transport connected %d times without a valid approval", sessions)
	}
}

func TestExpiredApprovalRefused(t *testing.T) {
	ctx := context.Background()
	// One clock for the store and the engine: the approval expires when
	// the clock passes its TTL, with no waiting.
	clk := &testClock{t: time.Now()}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "mailsift.db"), &store.Options{Principal: alice, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tid, _ := seedThread(t, st)
	srv := startSMTP(t, &smtpBackend{}, "plain")
	e := newEngine(st, srv.transport("plain"), nil, func(o *Options) { o.Now = clk.Now })
	d, _ := e.NewDraft(ctx, tid, false, "")
	a, err := e.Approve(ctx, d.ID, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	clk.Add(31 * time.Second)
	if _, err := e.Confirm(ctx, a.ID); !errors.Is(err, store.ErrApprovalExpired) {
		t.Fatalf("Confirm of expired approval = %v", err)
	}
	got, _ := st.Approval(ctx, a.ID)
	items, _ := st.OutboxItems(ctx)
	e.ProcessDue(ctx)
	if got.Status != store.ApprovalExpired || len(items) != 0 || len(srv.be.messages()) != 0 {
		t.Errorf("status %s, %d queued, %d sent", got.Status, len(items), len(srv.be.messages()))
	}
	// A fresh approval of the same (still open) draft works.
	a2, _ := e.Approve(ctx, d.ID, time.Minute)
	if _, err := e.Confirm(ctx, a2.ID); err != nil {
		t.Fatal(err)
	}
}

func TestIdempotentConfirm(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	tid, _ := seedThread(t, st)
	srv := startSMTP(t, &smtpBackend{}, "plain")
	e := newEngine(st, srv.transport("plain"), nil, nil)
	_, a, item := confirmedReply(t, e, st, tid)
	again, err := e.Confirm(ctx, a.ID)
	if err != nil || again.ID != item.ID || again.IdempotencyKey != store.IdempotencyKey(item.MessageID) {
		t.Fatalf("second Confirm = %+v, %v", again, err)
	}
	e.ProcessDue(ctx)
	e.ProcessDue(ctx)
	if _, err := e.Confirm(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	e.ProcessDue(ctx)
	items, _ := st.OutboxItems(ctx)
	if n := countContaining(srv.be.messages(), item.MessageID); n != 1 || len(items) != 1 {
		t.Errorf("delivered %d copies, %d outbox items; want 1 and 1", n, len(items))
	}
}

func TestUndoWindowCancel(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	tid, _ := seedThread(t, st)
	srv := startSMTP(t, &smtpBackend{}, "plain")
	clk := &testClock{t: time.Now()}
	events := make(chan Event, 16)
	e := newEngine(st, srv.transport("plain"), nil, func(o *Options) {
		o.UndoWindow = 10 * time.Second
		o.Now = clk.Now
		o.Events = events
	})
	d, _, item := confirmedReply(t, e, st, tid)
	if ev := <-events; ev.ID != item.ID || ev.State != store.OutboxQueued {
		t.Fatalf("event after Confirm = %+v, want item %d queued", ev, item.ID)
	}
	// Within the window nothing is due.
	clk.Add(9 * time.Second)
	if n, err := e.ProcessDue(ctx); n != 0 || err != nil {
		t.Fatalf("ProcessDue within the undo window = %d, %v; want nothing due", n, err)
	}
	if err := e.Cancel(ctx, item.ID); err != nil {
		t.Fatal(err)
	}
	if ev := <-events; ev.ID != item.ID || ev.State != store.OutboxCancelled {
		t.Fatalf("event after Cancel = %+v, want item %d cancelled", ev, item.ID)
	}
	clk.Add(time.Minute) // past the window
	if _, err := e.ProcessDue(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.be.messages()); n != 0 {
		t.Errorf("cancelled within the undo window but %d sent", n)
	}
	back, _ := st.Draft(ctx, d.ID)
	if back.State != store.DraftOpen || !strings.Contains(back.Body, "The report is fine") {
		t.Errorf("draft after cancel = %s %q", back.State, back.Body)
	}
	// Confirming again sends once the window has passed.
	a2, _ := e.Approve(ctx, d.ID, time.Minute)
	item2, err := e.Confirm(ctx, a2.ID)
	if err != nil {
		t.Fatal(err)
	}
	<-events
	if n, _ := e.ProcessDue(ctx); n != 0 || len(srv.be.messages()) != 0 {
		t.Fatalf("re-confirmed item went out before its window: %d processed, %d sent", n, len(srv.be.messages()))
	}
	clk.Add(11 * time.Second)
	if _, err := e.ProcessDue(ctx); err != nil {
		t.Fatal(err)
	}
	if ev := <-events; ev.ID != item2.ID || ev.State != store.OutboxSent {
		t.Errorf("event after the send = %+v, want item %d sent", ev, item2.ID)
	}
	if n := countContaining(srv.be.messages(), item2.MessageID); n != 1 {
		t.Errorf("after re-confirm delivered %d, want 1", n)
	}
}

func TestTemporaryAndPermanentFailures(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	tid, _ := seedThread(t, st)
	be := &smtpBackend{failData: &smtp.SMTPError{Code: 451, Message: "try later"}}
	srv := startSMTP(t, be, "plain")
	e := newEngine(st, srv.transport("plain"), nil, func(o *Options) { o.Rand = func() float64 { return 0.5 } })
	d, _, item := confirmedReply(t, e, st, tid)
	e.ProcessDue(ctx)
	it, _ := st.OutboxItem(ctx, item.ID)
	wait := time.Until(it.NextAttemptAt)
	if it.State != store.OutboxFailed || wait < 40*time.Minute || wait > 46*time.Minute || !strings.Contains(it.LastError, "451") {
		t.Fatalf("after 451: state %s next in %v error %q (want failed, ~45 min = 3/4 of 1 h)", it.State, wait, it.LastError)
	}
	// Not due: a pass sends nothing.
	e.ProcessDue(ctx)
	if it2, _ := st.OutboxItem(ctx, item.ID); it2.Attempts != 1 {
		t.Errorf("retried before due: %d attempts", it2.Attempts)
	}
	be.mu.Lock()
	be.failData = &smtp.SMTPError{Code: 550, Message: "no such user"}
	be.mu.Unlock()
	if err := e.Retry(ctx, item.ID); err != nil {
		t.Fatal(err)
	}
	e.ProcessDue(ctx)
	it, _ = st.OutboxItem(ctx, item.ID)
	dr, _ := st.Draft(ctx, d.ID)
	if it.State != store.OutboxFailed || !it.NextAttemptAt.IsZero() || dr.State != store.DraftOpen {
		t.Errorf("after 550: state %s next %v draft %s; want permanent failure and the draft reopened", it.State, it.NextAttemptAt, dr.State)
	}
}

func TestUnknownOutcomeCheckedInSent(t *testing.T) {
	ctx := context.Background()
	for _, serverSaves := range []bool{true, false} {
		name := map[bool]string{true: "server files Sent (found)", false: "not in Sent (waits for user)"}[serverSaves]
		t.Run(name, func(t *testing.T) {
			st, _ := newStore(t)
			tid, _ := seedThread(t, st)
			mb := newMemMailbox()
			be := &smtpBackend{}
			be.onData = func(c *smtp.Conn) error {
				if serverSaves {
					msgs := be.messages()
					mb.Append(ctx, "Sent", nil, time.Now(), msgs[len(msgs)-1].Data)
				}
				drop(c)
				return nil
			}
			srv := startSMTP(t, be, "plain")
			e := newEngine(st, srv.transport("plain"), mb, func(o *Options) { o.Accounts[0].ServerSavesSent = serverSaves })
			_, _, item := confirmedReply(t, e, st, tid)
			e.ProcessDue(ctx) // send: dropped after DATA → unknown
			it, _ := st.OutboxItem(ctx, item.ID)
			if it.State != store.OutboxUnknown {
				t.Fatalf("state after drop = %s (%s), want unknown", it.State, it.LastError)
			}
			be.mu.Lock()
			be.onData = nil
			be.mu.Unlock()
			e.ProcessDue(ctx) // check Sent
			e.ProcessDue(ctx)
			it, _ = st.OutboxItem(ctx, item.ID)
			delivered := countContaining(srv.be.messages(), item.MessageID)
			if serverSaves && (it.State != store.OutboxSent || delivered != 1) {
				t.Errorf("found in Sent: state %s delivered %d", it.State, delivered)
			}
			if !serverSaves && (it.State != store.OutboxUnknown || delivered != 1 || !it.NextAttemptAt.IsZero() || !strings.Contains(it.LastError, "outbox retry")) {
				t.Errorf("not found: state %s delivered %d next %v error %q", it.State, delivered, it.NextAttemptAt, it.LastError)
			}
			if !serverSaves {
				// The user decides to send again: one more copy, on purpose.
				if err := e.Retry(ctx, item.ID); err != nil {
					t.Fatal(err)
				}
				e.ProcessDue(ctx)
				e.ProcessDue(ctx)
				it, _ = st.OutboxItem(ctx, item.ID)
				if it.State != store.OutboxSent || countContaining(srv.be.messages(), item.MessageID) != 2 {
					t.Errorf("after explicit retry: %s, %d copies", it.State, countContaining(srv.be.messages(), item.MessageID))
				}
			}
		})
	}
}

func TestDraftsSurviveReopenAndServerCopy(t *testing.T) {
	ctx := context.Background()
	st, path := newStore(t)
	tid, _ := seedThread(t, st)
	mb := newMemMailbox()
	e := newEngine(st, &SMTP{Host: "127.0.0.1", Port: 1, TLS: SMTPInsecure}, mb, nil)
	d, err := e.NewDraft(ctx, tid, true, "")
	if err != nil {
		t.Fatal(err)
	}
	d.Body = "edited body, with the wire transfer details"
	if err := e.SaveDraft(ctx, d); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if err := e.PushServerDraft(ctx, d.ID); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	st2 := openStore(t, path)
	got, err := st2.Draft(ctx, d.ID)
	if err != nil || got.Body != d.Body || !got.ReplyAll || len(got.Cc) != 1 || got.Cc[0].Email != "carol@example.com" {
		t.Fatalf("reopened draft = %+v, %v", got, err)
	}
	hasMoney := false
	for _, f := range got.RiskFlags {
		hasMoney = hasMoney || f == RiskMoney
	}
	if !hasMoney {
		t.Errorf("risk flags not recomputed on save: %v", got.RiskFlags)
	}
	mb.mu.Lock()
	n := len(mb.folders["Drafts"])
	isDraft := n > 0 && strings.Contains(string(mb.folders["Drafts"][0]), "edited body")
	mb.mu.Unlock()
	if n != 1 || !isDraft || got.ServerMailbox != "Drafts" || got.ServerUID != 2 {
		t.Errorf("server Drafts copies = %d, recorded %q/%d", n, got.ServerMailbox, got.ServerUID)
	}
	e2 := newEngine(st2, nil, mb, nil)
	if err := e2.Discard(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	mb.mu.Lock()
	n = len(mb.folders["Drafts"])
	mb.mu.Unlock()
	if n != 0 {
		t.Errorf("discarded draft still has %d server copies", n)
	}
	if err := st2.SaveDraft(ctx, got); !errors.Is(err, store.ErrNotEditable) {
		t.Errorf("edit of discarded draft = %v", err)
	}
}

func TestAuditIsAppendOnly(t *testing.T) {
	ctx := context.Background()
	st, path := newStore(t)
	tid, _ := seedThread(t, st)
	e := newEngine(st, nil, nil, nil)
	if _, err := e.NewDraft(ctx, tid, false, ""); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE audit_events SET summary = 'x'`); err == nil || !strings.Contains(err.Error(), "append-only") {
		t.Errorf("update of audit log = %v", err)
	}
	if _, err := db.Exec(`DELETE FROM audit_events`); err == nil {
		t.Errorf("delete from audit log succeeded")
	}
	if _, err := db.Exec(`INSERT INTO tool_calls(id, created_at, trace_id, tool_name, action, request_hash, idempotency_key, status)
		VALUES('x', 0, 't', 'smtp', 'send_mail', 'h', '', 'attempted')`); err == nil {
		t.Errorf("tool call without idempotency key accepted")
	}
}
