package drafts

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"mailsift/internal/invite"
	"mailsift/internal/testserver/dovecot"
	"mailsift/internal/testserver/postfix"
	"mailsift/mailsrc/rfc822"
	"mailsift/model"
	"mailsift/store"
)

// inviteICS is a REQUEST from organizer to attendee.
func inviteICS(organizer, attendee model.Address) string {
	return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Test//Calendar//EN\r\nMETHOD:REQUEST\r\nBEGIN:VEVENT\r\n" +
		"UID:lunch-7@example.com\r\nSEQUENCE:3\r\nDTSTAMP:20261124T090000Z\r\nDTSTART:20261204T120000Z\r\nDTEND:20261204T130000Z\r\n" +
		"SUMMARY:Lunch – Café Müller\r\nORGANIZER;CN=" + organizer.Name + ":mailto:" + organizer.Email + "\r\n" +
		"ATTENDEE;PARTSTAT=NEEDS-ACTION;RSVP=TRUE;CN=" + attendee.Name + ":mailto:" + attendee.Email + "\r\n" +
		"END:VEVENT\r\nEND:VCALENDAR\r\n"
}

// replyDraft stores an invitation from organizer to attendee and drafts
// the attendee's acceptance through NewITIPDraft.
func replyDraft(t *testing.T, e *Engine, st *store.Store, organizer, attendee model.Address) (*Draft, int64) {
	t.Helper()
	ctx := context.Background()
	inv := msg("invite-7@example.com", "Invitation: Lunch", organizer, []model.Address{attendee}, nil, time.Now().Add(-time.Hour), "Lunch on Thursday?")
	if err := st.PutMessages(ctx, []*model.Message{inv}); err != nil {
		t.Fatal(err)
	}
	tid, _ := st.ThreadIDForMessage(ctx, inv.MessageID)
	ins, err := invite.Parse([]byte(inviteICS(organizer, attendee)))
	if err != nil {
		t.Fatal(err)
	}
	method, ics, err := invite.Build(ins[0], attendee.Email, invite.Answer{PartStat: invite.PartAccepted}, time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	d, err := e.NewITIPDraft(ctx, ITIPAnswer{ThreadID: tid, Invitation: inv, To: organizer, Subject: "Accepted: Lunch",
		Body: "Accepted: Lunch, 2026-12-04 12:00 UTC.", Method: method, UID: ins[0].UID, PartStat: invite.PartAccepted, ICS: string(ics)})
	if err != nil {
		t.Fatal(err)
	}
	return d, tid
}

// checkITIP asserts the RFC 6047/5546 shape of a sent answer and returns
// the parsed calendar object.
func checkITIP(t *testing.T, raw []byte, organizer, attendee model.Address) *invite.Invite {
	t.Helper()
	m, err := rfc822.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.To) != 1 || !strings.EqualFold(m.To[0].Email, organizer.Email) {
		t.Errorf("To = %v, want only the organizer", m.To)
	}
	if !strings.Contains(string(raw), "Content-Type: multipart/alternative;") ||
		!strings.Contains(string(raw), "Content-Type: text/calendar; charset=utf-8; method=REPLY\r\n") {
		t.Errorf("message lacks the iMIP parts:\n%s", raw)
	}
	var part string
	for _, a := range m.Attachments {
		if a.ContentType == "text/calendar" {
			part = a.Part
		}
	}
	if part == "" {
		t.Fatalf("no text/calendar part in %+v", m.Attachments)
	}
	_, data, err := rfc822.AttachmentContent(raw, part)
	if err != nil {
		t.Fatal(err)
	}
	ins, err := invite.Parse(data)
	if err != nil {
		t.Fatalf("calendar part: %v\n%s", err, data)
	}
	in := ins[0]
	// RFC 5546 3.2.3: METHOD:REPLY with ORGANIZER, the ATTENDEE with its
	// PARTSTAT, UID, SEQUENCE and DTSTAMP.
	if in.Method != "REPLY" || in.UID != "lunch-7@example.com" || in.Sequence != 3 || in.DTStamp.IsZero() ||
		in.Organizer.Email != organizer.Email {
		t.Errorf("REPLY = %+v", in)
	}
	a, ok := in.Attendee(attendee.Email)
	if !ok || a.PartStat != "ACCEPTED" || len(in.Attendees) != 1 {
		t.Errorf("REPLY attendees = %+v", in.Attendees)
	}
	for _, line := range strings.Split(string(raw), "\r\n") {
		if len(line) > 998 {
			t.Errorf("line over 998 octets")
		}
		for _, c := range []byte(line) {
			if c >= 0x80 {
				t.Fatalf("8-bit byte in the message: %q", line)
			}
		}
	}
	return in
}

func TestITIPReplyMessage(t *testing.T) {
	st, _ := newStore(t)
	e := New(st, Options{Principal: alice, Accounts: []Account{{From: alice, Transport: &NoSend{Reason: "test"}}}})
	d, _ := replyDraft(t, e, st, bob, alice)
	a, err := e.Approve(context.Background(), d.ID, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	in := checkITIP(t, []byte(a.What.Message), bob, alice)
	// The non-ASCII summary survives quoted-printable.
	if in.Summary != "Lunch – Café Müller" {
		t.Errorf("summary = %q", in.Summary)
	}
	if !strings.Contains(a.What.Message, "In-Reply-To: <invite-7@example.com>") {
		t.Error("answer not threaded to the invitation")
	}
	if len(a.What.Recipients) != 1 || a.What.Recipients[0] != bob.Email {
		t.Errorf("envelope recipients = %v", a.What.Recipients)
	}
	// A plain reply of the same engine is untouched.
	if _, err := BuildITIPMessage(d, time.Now(), "x@y", "REQUEST", "BEGIN:VCALENDAR"); err == nil {
		t.Error("a REQUEST was built as an answer")
	}
	if _, err := BuildITIPMessage(d, time.Now(), "x@y", "REPLY", "not ical"); err == nil {
		t.Error("a non-iCalendar object was attached")
	}
}

// TestITIPPostfixDovecotOnce sends an acceptance through a private
// Postfix delivering to Dovecot over LMTP and finds it exactly once in
// the organizer's INBOX, as an RFC 5546 REPLY.
func TestITIPPostfixDovecotOnce(t *testing.T) {
	if postfix.Binary() == "" {
		postfix.Unavailable(t, "postfix is not installed")
	}
	if dovecot.Binary() == "" {
		dovecot.Unavailable(t, "dovecot is not installed")
	}
	ctx := context.Background()
	users := map[string]string{"alice": "alice-pw", "bob": "bob-pw"}
	dv := dovecot.Start(t, &dovecot.Options{LMTP: true, Users: users, ExtraConfig: postfix.DovecotExtraConfig(postfix.DovecotVersion())})
	pf := postfix.Start(t, postfix.Options{Domain: "mailsift.test", LMTPAddr: dv.LMTPAddr})

	me := model.Address{Name: "Alice", Email: "alice@mailsift.test"}
	org := model.Address{Name: "Bob", Email: "bob@mailsift.test"}
	st, err := store.Open(ctx, t.TempDir()+"/m.db", &store.Options{Principal: me})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e := New(st, Options{Principal: me, PollInterval: 50 * time.Millisecond,
		Accounts: []Account{{From: me, Transport: &SMTP{Host: pf.Host, Port: pf.Port, TLS: SMTPInsecure, Timeout: 10 * time.Second}}}})
	d, _ := replyDraft(t, e, st, org, me)
	_, item := approveConfirm(t, e, d.ID)
	it := runUntilSettled(t, e, st, item.ID)
	if it.State != store.OutboxSent {
		t.Fatalf("outbox item = %s (%s)", it.State, it.LastError)
	}
	waitDelivered(t, dv.Addr, "bob", "bob-pw", item.MessageID, 20*time.Second)
	if n, err := e.ProcessDue(ctx); n != 0 || err != nil {
		t.Fatalf("second outbox pass handled %d item(s), %v", n, err)
	}
	if n := imapCount(t, dv.Addr, "bob", "bob-pw", "INBOX", item.MessageID); n != 1 {
		t.Fatalf("organizer's INBOX has %d copies, want 1\n%s", n, pf.Log())
	}
	raw := fetchRaw(t, dv.Addr, "bob", "bob-pw", item.MessageID)
	checkITIP(t, raw, org, me)
}

// fetchRaw returns the raw message with messageID from user's INBOX.
func fetchRaw(t *testing.T, addr, user, pass, messageID string) []byte {
	t.Helper()
	c, err := imapclient.DialInsecure(addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Login(user, pass).Wait(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Select("INBOX", &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
		t.Fatal(err)
	}
	data, err := c.UIDSearch(&imap.SearchCriteria{Header: []imap.SearchCriteriaHeaderField{{Key: "Message-ID", Value: messageID}}}, nil).Wait()
	if err != nil || len(data.AllUIDs()) != 1 {
		t.Fatalf("search: %v", err)
	}
	msgs, err := c.Fetch(imap.UIDSetNum(data.AllUIDs()...), &imap.FetchOptions{BodySection: []*imap.FetchItemBodySection{{Peek: true}}}).Collect()
	if err != nil || len(msgs) != 1 {
		t.Fatalf("fetch: %v", err)
	}
	for _, b := range msgs[0].BodySection {
		return b.Bytes
	}
	t.Fatal("no body section")
	return nil
}
