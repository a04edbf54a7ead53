package imap

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"

	"mailsift/mailsrc"
	"mailsift/model"
)

// scenario is one behaviour checked against every server kind.
type scenario struct {
	name string
	run  func(t *testing.T, ts *testServer)
}

// runSuite runs every scenario against a fresh server from newServer.
func runSuite(t *testing.T, newServer newServerFunc) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			sc.run(t, newServer(t))
		})
	}
}

func TestMemServerSuite(t *testing.T) { runSuite(t, newMemServer) }

func mustSync(t *testing.T, s *Source, sink mailsrc.Sink) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Sync(ctx, sink, nil); err != nil {
		t.Fatalf("Sync() = %v", err)
	}
}

var scenarios = []scenario{
	{"first sync", func(t *testing.T, ts *testServer) { scenarioFirstSync(t, ts, true) }},
	{"first sync, envelopes first", func(t *testing.T, ts *testServer) { scenarioFirstSync(t, ts, false) }},
	{"slow first sync", scenarioWholeFallback},
	{"new mail", func(t *testing.T, ts *testServer) {
		a := ts.admin(t)
		for i := range 3 {
			a.append("INBOX", testMessage(i, "old"))
		}
		sink := newFakeSink()
		src := ts.source(t, nil)
		mustSync(t, src, sink)
		n1 := a.append("INBOX", testMessage(10, "new one"))
		n2 := a.append("INBOX", testMessage(11, "new two"))
		mustSync(t, src, sink)
		inbox := sink.inBox("acct", "INBOX")
		if len(inbox) != 5 {
			t.Fatalf("INBOX has %d messages, want 5", len(inbox))
		}
		if len(sink.bodyPuts) != 5 {
			t.Errorf("%d messages stored with a body, want 5", len(sink.bodyPuts))
		}
		for l, n := range sink.bodyPuts {
			if n != 1 || sink.envPuts[l] > 0 {
				t.Errorf("%v stored %d times whole and %d as an envelope, want once whole (only new mail fetched)", l, n, sink.envPuts[l])
			}
		}
		for _, u := range []imap.UID{n1, n2} {
			if m := inbox[uint32(u)]; m == nil || !m.HasBody || !strings.HasPrefix(m.Subject, "new") {
				t.Errorf("new message %d = %+v", u, m)
			}
		}
	}},
	{"flag changes from server", func(t *testing.T, ts *testServer) {
		a := ts.admin(t)
		u1 := a.append("INBOX", testMessage(1, "one"))
		u2 := a.append("INBOX", testMessage(2, "two"), imap.FlagFlagged, imap.FlagSeen)
		sink := newFakeSink()
		src := ts.source(t, nil)
		mustSync(t, src, sink)
		a.store("INBOX", u1, imap.StoreFlagsAdd, imap.FlagSeen, imap.FlagAnswered)
		a.store("INBOX", u2, imap.StoreFlagsDel, imap.FlagFlagged)
		mustSync(t, src, sink)
		inbox := sink.inBox("acct", "INBOX")
		if f := inbox[uint32(u1)].Flags; !f.Seen || !f.Answered {
			t.Errorf("message 1 flags = %+v, want seen+answered", f)
		}
		if f := inbox[uint32(u2)].Flags; f.Flagged || !f.Seen {
			t.Errorf("message 2 flags = %+v, want seen, not flagged", f)
		}
	}},
	{"push flags", func(t *testing.T, ts *testServer) {
		a := ts.admin(t)
		a.create("Archive")
		u1 := a.append("INBOX", testMessage(1, "one"))
		u2 := a.append("INBOX", testMessage(2, "two"), imap.FlagSeen)
		u3 := a.append("Archive", testMessage(3, "three"))
		src := ts.source(t, nil)
		l := func(box string, u imap.UID) model.Location { return loc("acct", box, u) }
		err := src.PushFlags(context.Background(), []model.FlagChange{
			{Loc: l("INBOX", u1), Flag: model.FlagFlagged, Set: true},
			{Loc: l("INBOX", u1), Flag: model.FlagSeen, Set: true},
			{Loc: l("INBOX", u2), Flag: model.FlagSeen, Set: false},
			{Loc: l("Archive", u3), Flag: "$Junk", Set: true},
		})
		if err != nil {
			t.Fatalf("PushFlags() = %v", err)
		}
		if fl := a.flags("INBOX", u1); !hasFlag(fl, imap.FlagFlagged) || !hasFlag(fl, imap.FlagSeen) {
			t.Errorf("server flags of 1 = %v, want \\Flagged \\Seen", fl)
		}
		if fl := a.flags("INBOX", u2); hasFlag(fl, imap.FlagSeen) {
			t.Errorf("server flags of 2 = %v, want no \\Seen", fl)
		}
		if fl := a.flags("Archive", u3); !hasFlag(fl, "$Junk") {
			t.Errorf("server flags of 3 = %v, want $Junk", fl)
		}
		err = src.PushFlags(context.Background(), []model.FlagChange{{Loc: l("Gone", 1), Flag: model.FlagSeen, Set: true}})
		if err == nil || !strings.Contains(err.Error(), `"Gone"`) {
			t.Errorf("PushFlags to missing mailbox = %v, want error naming it", err)
		}
	}},
	{"expunge", func(t *testing.T, ts *testServer) {
		a := ts.admin(t)
		u1 := a.append("INBOX", testMessage(1, "one"))
		u2 := a.append("INBOX", testMessage(2, "two"))
		sink := newFakeSink()
		src := ts.source(t, nil)
		mustSync(t, src, sink)
		a.expunge("INBOX", u1)
		mustSync(t, src, sink)
		inbox := sink.inBox("acct", "INBOX")
		if _, ok := inbox[uint32(u1)]; ok || len(inbox) != 1 || inbox[uint32(u2)] == nil {
			t.Errorf("after expunge sink has %d messages (u1 present %v), want only %d", len(inbox), ok, u2)
		}
	}},
	{"uidvalidity reset", func(t *testing.T, ts *testServer) {
		a := ts.admin(t)
		a.create("Work")
		a.append("Work", testMessage(1, "work one"))
		a.append("Work", testMessage(2, "work two"))
		sink := newFakeSink()
		src := ts.source(t, nil)
		mustSync(t, src, sink)
		before, _ := sink.mailbox("acct", "Work")
		a.delete("Work")
		a.create("Work")
		u := a.append("Work", testMessage(3, "work three"))
		mustSync(t, src, sink)
		after, _ := sink.mailbox("acct", "Work")
		if before.State.UIDValidity == after.State.UIDValidity {
			t.Fatalf("server kept UIDVALIDITY %d after delete+create", after.State.UIDValidity)
		}
		work := sink.inBox("acct", "Work")
		if sink.resets != 1 || len(work) != 1 || work[uint32(u)] == nil || work[uint32(u)].Subject != "work three" {
			t.Errorf("after reset: resets=%d work=%v, want exactly the new message", sink.resets, work)
		}
	}},
	{"dropped connection mid-sync", func(t *testing.T, ts *testServer) { scenarioDroppedConnection(t, ts, true) }},
	{"dropped connection, envelopes first", func(t *testing.T, ts *testServer) { scenarioDroppedConnection(t, ts, false) }},
	{"wrong password", func(t *testing.T, ts *testServer) {
		var calls atomic.Int64
		src := ts.source(t, func(c *Config) {
			c.Password = func(context.Context) (string, error) { calls.Add(1); return "wrong-password-123", nil }
		})
		before := int64(0)
		if ts.logins != nil {
			before = ts.logins.Load()
		}
		err := src.Sync(context.Background(), newFakeSink(), nil)
		if err == nil || !errors.Is(err, ErrAuthFailed) {
			t.Fatalf("Sync() = %v, want ErrAuthFailed", err)
		}
		msg := err.Error()
		if !strings.Contains(msg, "login to") || !strings.Contains(msg, "as "+ts.user+" failed") || !strings.Contains(msg, "check password_cmd") {
			t.Errorf("error %q does not say what failed and how to fix it", msg)
		}
		if strings.Contains(msg, "wrong-password-123") {
			t.Errorf("error %q leaks the password", msg)
		}
		// Watch must give up at once instead of retrying.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := src.Watch(ctx, func() {}); !errors.Is(err, ErrAuthFailed) {
			t.Errorf("Watch() = %v, want ErrAuthFailed", err)
		}
		if calls.Load() != 2 {
			t.Errorf("password asked %d times for one Sync and one Watch, want 2", calls.Load())
		}
		if ts.logins != nil {
			if got := ts.logins.Load() - before; got != 2 {
				t.Errorf("server saw %d login attempts, want 2 (one each)", got)
			}
		}
	}},
	{"context cancellation", func(t *testing.T, ts *testServer) {
		a := ts.admin(t)
		for i := range 20 {
			a.append("INBOX", testMessage(i, "slow"))
		}
		d := &cutDialer{limit: 3000, stall: true}
		src := ts.source(t, func(c *Config) { c.Dial = d.dial; c.BatchSize = 5 })
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { errc <- src.Sync(ctx, newFakeSink(), nil) }()
		select {
		case <-d.stalledC(): // the sync hangs on the stalled connection
		case err := <-errc:
			t.Fatalf("Sync() = %v before the connection stalled", err)
		case <-time.After(10 * time.Second):
			t.Fatal("the connection did not stall within 10s")
		}
		cancel()
		select {
		case err := <-errc:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Sync() after cancel = %v, want context.Canceled", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Sync() did not return within 5s of cancellation")
		}
	}},
	{"idle notification", func(t *testing.T, ts *testServer) {
		src := ts.source(t, nil)
		a := ts.admin(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		changed := make(chan struct{}, 10)
		done := make(chan error, 1)
		go func() { done <- src.Watch(ctx, func() { changed <- struct{}{} }) }()
		deadline := time.After(15 * time.Second)
		tick := time.NewTicker(300 * time.Millisecond)
		defer tick.Stop()
		i := 0
	loop:
		for {
			select {
			case <-changed:
				break loop
			case <-tick.C:
				a.append("INBOX", testMessage(i, "ping"))
				i++
			case err := <-done:
				t.Fatalf("Watch() returned early: %v", err)
			case <-deadline:
				t.Fatal("changed() not called within 15s of appending mail")
			}
		}
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Watch() = %v, want context.Canceled", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Watch() did not return after cancel")
		}
	}},
	{"append and find by message-id", func(t *testing.T, ts *testServer) {
		a := ts.admin(t)
		a.create("Sent")
		src := ts.source(t, nil)
		raw := []byte(strings.ReplaceAll(testMessage(7, "sent by mailsift"), "\n", "\n"))
		uid, err := src.Append(context.Background(), "Sent", []model.Flag{model.FlagSeen}, time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC), raw)
		if err != nil {
			t.Fatalf("Append() = %v", err)
		}
		if uid == 0 {
			t.Errorf("Append() uid = 0, want the UIDPLUS uid")
		} else if fl := a.flags("Sent", imap.UID(uid)); !hasFlag(fl, imap.FlagSeen) {
			t.Errorf("appended flags = %v, want \\Seen", fl)
		}
		found, err := src.FindByMessageID(context.Background(), "Sent", "msg-7-sent-by-mailsift@example.com")
		if err != nil || !found {
			t.Errorf("FindByMessageID(existing) = %v, %v; want true", found, err)
		}
		found, err = src.FindByMessageID(context.Background(), "Sent", "<nope@example.com>")
		if err != nil || found {
			t.Errorf("FindByMessageID(missing) = %v, %v; want false", found, err)
		}
		if uid != 0 {
			if err := src.DeleteMessage(context.Background(), "Sent", uid); err != nil {
				t.Fatalf("DeleteMessage(%d) = %v", uid, err)
			}
			found, err = src.FindByMessageID(context.Background(), "Sent", "msg-7-sent-by-mailsift@example.com")
			if err != nil || found {
				t.Errorf("FindByMessageID after DeleteMessage = %v, %v; want false (expunged)", found, err)
			}
		}
	}},
	{"read a message's raw bytes on demand", func(t *testing.T, ts *testServer) {
		// The store keeps no raw copy of a message without attachments;
		// ReadRaw fetches it from the server when a feature needs it.
		a := ts.admin(t)
		raw := testMessage(8, "fetched on demand")
		u := a.append("INBOX", raw)
		src := ts.source(t, nil)
		got, err := src.ReadRaw(context.Background(), loc("acct", "INBOX", u))
		if err != nil || string(got) != raw {
			t.Fatalf("ReadRaw = %q, %v; want the message as appended", got, err)
		}
		if hasFlag(a.flags("INBOX", u), imap.FlagSeen) {
			t.Errorf("ReadRaw marked message %d \\Seen on the server", u)
		}
		if _, err := src.ReadRaw(context.Background(), loc("other", "INBOX", u)); err == nil {
			t.Error("ReadRaw of another account's location succeeded")
		}
		a.expunge("INBOX", u)
		if _, err := src.ReadRaw(context.Background(), loc("acct", "INBOX", u)); err == nil || !strings.Contains(err.Error(), "no longer in") {
			t.Errorf("ReadRaw of an expunged message = %v, want an error saying it is gone", err)
		}
	}},
	{"non-ASCII mailbox names", func(t *testing.T, ts *testServer) {
		a := ts.admin(t)
		a.create("Entwürfe")
		a.create("Projekte/Résumé 日本")
		u := a.append("Entwürfe", testMessage(1, "draft"))
		v := a.append("Projekte/Résumé 日本", testMessage(2, "cv"))
		sink := newFakeSink()
		src := ts.source(t, nil)
		mustSync(t, src, sink)
		if mb, ok := sink.mailbox("acct", "Entwürfe"); !ok || mb.Role != model.RoleDrafts {
			t.Errorf("mailbox Entwürfe = %+v, %v; want decoded name, role drafts", mb, ok)
		}
		if m := sink.inBox("acct", "Projekte/Résumé 日本")[uint32(v)]; m == nil || m.Subject != "cv" {
			t.Errorf("message in Projekte/Résumé 日本 = %+v", m)
		}
		if err := src.PushFlags(context.Background(), []model.FlagChange{{Loc: loc("acct", "Entwürfe", u), Flag: model.FlagSeen, Set: true}}); err != nil {
			t.Fatalf("PushFlags() = %v", err)
		}
		if fl := a.flags("Entwürfe", u); !hasFlag(fl, imap.FlagSeen) {
			t.Errorf("flags in Entwürfe = %v, want \\Seen", fl)
		}
	}},
	{"mailbox deleted on the server", scenarioMailboxDeleted},
	{"mailbox renamed on the server", scenarioMailboxRenamed},
	{"message moved between folders", scenarioMessageMoved},
	{"copies in two folders fetched once", scenarioCopiesFetchedOnce},
}

// scenarioFirstSync: a first sync stores envelopes, bodies, flags and
// roles; whole: in one pass (the default on a fast server), else
// envelopes first (Config.WholeBudget < 0).
func scenarioFirstSync(t *testing.T, ts *testServer, whole bool) {
	a := ts.admin(t)
	a.create("Sent")
	u1 := a.append("INBOX", readFixture(t, "attachment.eml"))
	u2 := a.append("INBOX", readFixture(t, "latin1.eml"), imap.FlagSeen)
	u3 := a.append("INBOX", testMessage(3, "weekly news"), imap.FlagFlagged, "$Label1")
	s1 := a.append("Sent", testMessage(4, "my reply"), imap.FlagSeen)

	sink := newFakeSink()
	var phases []string
	src := ts.source(t, func(c *Config) {
		if !whole {
			c.WholeBudget = -1
		}
	})
	if err := src.Sync(context.Background(), sink, func(p mailsrc.Progress) {
		if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
			phases = append(phases, p.Phase)
		}
	}); err != nil {
		t.Fatalf("Sync() = %v", err)
	}
	inbox := sink.inBox("acct", "INBOX")
	if len(inbox) != 3 {
		t.Fatalf("INBOX has %d messages in sink, want 3", len(inbox))
	}
	m1 := inbox[uint32(u1)]
	if m1 == nil || !m1.HasBody || m1.Subject != "Quarterly report attached" || m1.MessageID != "report-1@example.com" {
		t.Fatalf("message 1 = %+v, want body and envelope of attachment.eml", m1)
	}
	if !strings.Contains(m1.Text, "report is attached") || len(m1.Attachments) != 1 || m1.Attachments[0].Filename != "report.pdf" {
		t.Errorf("message 1 body %q attachments %+v", m1.Text, m1.Attachments)
	}
	if m1.Flags.Seen {
		t.Errorf("message 1 is \\Seen in sink; want unseen")
	}
	m2 := inbox[uint32(u2)]
	if m2 == nil || m2.Subject != "Grüße aus Köln" || !m2.Flags.Seen || m2.From.Name != "Jörg Müller" {
		t.Errorf("message 2 = %+v, want decoded Latin-1 subject, \\Seen", m2)
	}
	if m2 != nil && (len(m2.InReplyTo) != 1 || m2.InReplyTo[0] != "report-1@example.com") {
		t.Errorf("message 2 In-Reply-To = %v", m2.InReplyTo)
	}
	m3 := inbox[uint32(u3)]
	if m3 == nil || !m3.Flags.Flagged || m3.Flags.Seen || len(m3.Flags.Keywords) != 1 || !strings.EqualFold(m3.Flags.Keywords[0], "$Label1") {
		t.Errorf("message 3 flags = %+v", m3)
	}
	if m3 != nil && m3.Header("List-Id") != "<news.example.com>" {
		t.Errorf("message 3 List-Id = %q", m3.Header("List-Id"))
	}
	sent := sink.inBox("acct", "Sent")
	if sent[uint32(s1)] == nil || !sent[uint32(s1)].HasBody {
		t.Errorf("Sent message missing: %v", sent)
	}
	if mb, ok := sink.mailbox("acct", "Sent"); !ok || mb.Role != model.RoleSent {
		t.Errorf("Sent mailbox = %+v, want role sent", mb)
	}
	if mb, _ := sink.mailbox("acct", "INBOX"); mb.Role != model.RoleInbox || mb.State.UIDValidity == 0 || mb.State.UIDNext <= uint32(u3) {
		t.Errorf("INBOX mailbox = %+v, want role inbox and state", mb)
	}
	if whole {
		// One pass: every message stored once, whole.
		if n := len(sink.envPuts); n != 0 {
			t.Errorf("%d envelope puts, want none (messages fetched whole)", n)
		}
		for l, n := range sink.bodyPuts {
			if n != 1 {
				t.Errorf("%v stored %d times, want once", l, n)
			}
		}
	} else if len(sink.bodyFirst) != 0 {
		t.Errorf("bodies stored before envelopes for %v", sink.bodyFirst)
	}
	want := []string{"list", "flags", "envelopes"}
	if whole {
		want = []string{"list", "flags", "messages"}
	}
	if len(phases) < 3 || strings.Join(phases[:3], ",") != strings.Join(want, ",") {
		t.Errorf("phases = %v, want to start with %v", phases, want)
	}
	// Fetching must not have set \Seen on the server (BODY.PEEK).
	if fl := a.flags("INBOX", u1); hasFlag(fl, imap.FlagSeen) {
		t.Errorf("server flags of message 1 after sync = %v, want no \\Seen", fl)
	}
}

// scenarioWholeFallback: when whole messages arrive too slowly for the
// budget (a clock that advances a second per reading), the first sync
// keeps the newest batch it fetched whole and lists the rest as
// envelopes first, then fetches their bodies.
func scenarioWholeFallback(t *testing.T, ts *testServer) {
	a := ts.admin(t)
	var uids []imap.UID
	for i := range 25 {
		uids = append(uids, a.append("INBOX", testMessage(i, "slow link")))
	}
	src := ts.source(t, func(c *Config) { c.BodyBatchSize = 5 })
	var tick atomic.Int64
	base := time.Now()
	src.now = func() time.Time { return base.Add(time.Duration(tick.Add(1)) * time.Second) }
	sink := newFakeSink()
	var phases []string
	if err := src.Sync(context.Background(), sink, func(p mailsrc.Progress) {
		if p.Mailbox == "INBOX" && p.Phase != "flags" && (len(phases) == 0 || phases[len(phases)-1] != p.Phase) {
			phases = append(phases, p.Phase)
		}
	}); err != nil {
		t.Fatalf("Sync() = %v", err)
	}
	if want := "messages,envelopes,bodies"; strings.Join(phases, ",") != want {
		t.Errorf("INBOX phases = %v, want %s", phases, want)
	}
	inbox := sink.inBox("acct", "INBOX")
	if len(inbox) != len(uids) {
		t.Fatalf("INBOX has %d messages, want %d", len(inbox), len(uids))
	}
	for i, u := range uids {
		l := loc("acct", "INBOX", u)
		if m := inbox[uint32(u)]; m == nil || !m.HasBody {
			t.Errorf("message %d has no body after sync", u)
		}
		newest := i >= len(uids)-5
		switch {
		case newest && (sink.envPuts[l] != 0 || sink.bodyPuts[l] != 1):
			t.Errorf("newest message %d: %d envelope and %d body puts, want it fetched whole once", u, sink.envPuts[l], sink.bodyPuts[l])
		case !newest && (sink.envPuts[l] != 1 || sink.bodyPuts[l] != 1 || slices.Contains(sink.bodyFirst, l)):
			t.Errorf("older message %d: %d envelope and %d body puts, want its envelope first, then its body", u, sink.envPuts[l], sink.bodyPuts[l])
		}
	}
}

// scenarioDroppedConnection: a connection cut at ever later points of a
// first sync (whole messages, or envelopes first) resumes on the next
// sync without duplicates or loss.
func scenarioDroppedConnection(t *testing.T, ts *testServer, whole bool) {
	a := ts.admin(t)
	const n = 40
	for i := range n {
		a.append("INBOX", testMessage(i, "bulk"))
	}
	sink := newFakeSink()
	var failures int
	for limit := int64(1500); ; limit *= 2 {
		d := &cutDialer{limit: limit}
		src := ts.source(t, func(c *Config) {
			c.Dial = d.dial
			c.BatchSize = 7
			c.BodyBatchSize = 5
			if !whole {
				c.WholeBudget = -1
			}
		})
		err := src.Sync(context.Background(), sink, nil)
		src.Close()
		if err == nil {
			break
		}
		failures++
		if limit > 1<<24 {
			t.Fatalf("sync never completed: %v", err)
		}
	}
	if failures < 2 {
		t.Errorf("connection was cut %d times, want several (test too weak)", failures)
	}
	inbox := sink.inBox("acct", "INBOX")
	ids := make(map[string]bool)
	for _, m := range inbox {
		if !m.HasBody {
			t.Errorf("message %d has no body after completed sync", m.Loc.UID)
		}
		if ids[m.MessageID] {
			t.Errorf("duplicate message %s", m.MessageID)
		}
		ids[m.MessageID] = true
	}
	if len(inbox) != n {
		t.Errorf("sink has %d messages, want %d", len(inbox), n)
	}
}
