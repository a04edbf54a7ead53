package drafts

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mailsift/internal/testserver/dovecot"
	"mailsift/internal/testserver/postfix"
	"mailsift/mailsrc/rfc822"
	"mailsift/model"
	"mailsift/store"
)

// composeEngine is an engine over a fresh store with one account whose
// transport counts sends.
func composeEngine(t *testing.T) (*Engine, *store.Store) {
	t.Helper()
	st, _ := newStore(t)
	e := New(st, Options{Principal: alice, Accounts: []Account{{From: alice, Transport: &NoSend{Reason: "test"}}}})
	return e, st
}

func TestComposeWithAttachmentBuildsMultipart(t *testing.T) {
	ctx := context.Background()
	e, st := composeEngine(t)
	d, err := e.NewMessage(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if d.ThreadID != 0 || d.Source != SourceCompose || d.From.Email != alice.Email {
		t.Fatalf("new message = %+v", d)
	}
	d.To, err = ParseAddresses("To", "Bob Builder <bob@example.com>")
	if err != nil {
		t.Fatal(err)
	}
	d.Bcc, _ = ParseAddresses("Bcc", "archive@example.com")
	d.Subject = "Quarterly figures – “final”"
	d.Body = "Hi Bob,\n\nthe figures are attached.\n\nAlice"
	if err := e.SaveNewMessage(ctx, d); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "Zahlen Q3 – final.csv")
	data := []byte("region,revenue\nnorth,100\n")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "logo.bin")
	binData := bytes.Repeat([]byte{0, 1, 2, 0xff, '\r', '\n'}, 100)
	if err := os.WriteFile(bin, binData, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, bin} {
		if _, err := e.AttachFile(ctx, d.ID, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SaveNewMessage(ctx, d); err != nil {
		t.Fatal(err)
	}
	for _, f := range d.RiskFlags {
		if f == RiskAttachmentMissing {
			t.Fatalf("risk flag %q on a message with attachments", f)
		}
	}
	a, err := e.Approve(ctx, d.ID, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	raw := a.What.Message
	for i := 0; i < len(raw); i++ {
		if raw[i] >= 0x80 {
			t.Fatalf("message is not 7-bit at %d: %q", i, raw[max(0, i-20):i+20])
		}
	}
	if strings.Contains(raw, "archive@example.com") {
		t.Fatal("the Bcc address is in the message")
	}
	if got := strings.Join(a.What.Recipients, ","); got != "bob@example.com,archive@example.com" {
		t.Fatalf("envelope recipients = %s", got)
	}
	m, err := rfc822.Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if m.Subject != d.Subject || !strings.Contains(m.Text, "the figures are attached.") {
		t.Fatalf("parsed back: subject %q text %q", m.Subject, m.Text)
	}
	if len(m.Attachments) != 2 || m.Attachments[0].Filename != "Zahlen Q3 – final.csv" || m.Attachments[1].Filename != "logo.bin" {
		t.Fatalf("attachments = %+v", m.Attachments)
	}
	for i, want := range [][]byte{data, binData} {
		_, got, err := rfc822.AttachmentContent([]byte(raw), m.Attachments[i].Part)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("attachment %d round trip: %v, %d bytes want %d", i, err, len(got), len(want))
		}
	}
	// Attaching again expires the pending approval: it no longer
	// describes the draft.
	if _, err := e.AttachFile(ctx, d.ID, path); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Approval(ctx, a.ID); got.Status != store.ApprovalExpired {
		t.Fatalf("approval after a new attachment is %s, want expired", got.Status)
	}
}

func TestAttachFileRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	e, st := composeEngine(t)
	d, err := e.NewMessage(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	big := filepath.Join(dir, "big.iso")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxAttachmentBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	bad := filepath.Join(dir, "caf\xe9.txt")
	if err := os.WriteFile(bad, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "nope.pdf"), "no such file; check the path"},
		{"directory", dir, "is a directory"},
		{"huge", big, "share a link to it instead"},
		{"non-UTF-8 name", bad, "not valid UTF-8"},
		{"empty", "  ", "type the path of a file"},
		{"device", "/dev/null", "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.AttachFile(ctx, d.ID, tc.path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("AttachFile(%q) = %v, want an error containing %q", tc.path, err, tc.want)
			}
		})
	}
	if atts, _ := st.DraftAttachments(ctx, d.ID); len(atts) != 0 {
		t.Fatalf("refused files left %d attachment(s)", len(atts))
	}
}

func TestParseAddressesNamesTheBadOne(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"bob@example.com, dana@", `"dana@" is not a mail address`},
		{"Bob <bob@exa mple.com>", "not a mail address"},
		{"josé@example.com", "not printable ASCII"},
	} {
		if _, err := ParseAddresses("To", tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseAddresses(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
	as, err := ParseAddresses("To", `"Builder, Bob" <bob@example.com>, dana@example.org,`)
	if err != nil || len(as) != 2 || as[0].Name != "Builder, Bob" || as[1].Email != "dana@example.org" {
		t.Fatalf("ParseAddresses = %+v, %v", as, err)
	}
}

// withAttachmentRaw is a message with a text body and one PDF.
const withAttachmentRaw = "From: Bob Builder <bob@example.com>\r\nTo: alice@example.com\r\nSubject: Contract\r\n" +
	"Date: Mon, 02 Mar 2026 09:00:00 +0000\r\nMessage-ID: <contract@example.com>\r\nMIME-Version: 1.0\r\n" +
	"Content-Type: multipart/mixed; boundary=b1\r\n\r\n--b1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" +
	"Please sign the contract.\x1b]52;c;ZXZpbA==\x07\u202e\r\n--b1\r\nContent-Type: application/pdf; name=contract.pdf\r\n" +
	"Content-Disposition: attachment; filename=contract.pdf\r\nContent-Transfer-Encoding: base64\r\n\r\n" +
	"JVBERi0xLjQKJcfs\r\n--b1--\r\n"

func TestForwardInlineKeepsAttachments(t *testing.T) {
	ctx := context.Background()
	e, _ := composeEngine(t)
	d, problems, err := e.Forward(ctx, []byte(withAttachmentRaw), false, "")
	if err != nil {
		t.Fatal(err)
	}
	if d.Subject != "Fwd: Contract" || len(d.To) != 0 || d.ThreadID != 0 || len(problems) != 1 || !strings.Contains(problems[0], "escape or bidi") {
		t.Fatalf("forward draft = %+v problems %v", d, problems)
	}
	for _, want := range []string{"---------- Forwarded message ----------", "From: Bob Builder <bob@example.com>", "Subject: Contract", "Please sign the contract."} {
		if !strings.Contains(d.Body, want) {
			t.Fatalf("forward body lacks %q:\n%s", want, d.Body)
		}
	}
	if strings.ContainsAny(d.Body, "\x1b\x07\u202e") {
		t.Fatalf("the forwarded text keeps terminal escapes or bidi controls: %q", d.Body)
	}
	d.To = []model.Address{carol}
	if err := e.SaveNewMessage(ctx, d); err != nil {
		t.Fatal(err)
	}
	a, err := e.Approve(ctx, d.ID, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	m, err := rfc822.Parse([]byte(a.What.Message))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Attachments) != 1 || m.Attachments[0].Filename != "contract.pdf" || m.Attachments[0].ContentType != "application/pdf" {
		t.Fatalf("forwarded attachments = %+v", m.Attachments)
	}
	_, data, err := rfc822.AttachmentContent([]byte(a.What.Message), m.Attachments[0].Part)
	if err != nil || string(data) != "%PDF-1.4\n%\xc7\xec" {
		t.Fatalf("attachment content = %q, %v", data, err)
	}
}

func TestForwardAsAttachmentKeepsEveryByte(t *testing.T) {
	ctx := context.Background()
	e, _ := composeEngine(t)
	// Broken MIME: a multipart without its closing boundary and a bad
	// base64 part; 8-bit bytes in a header.
	broken := "From: M\xfcller <m@example.de>\r\nSubject: kaputt\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/mixed; boundary=zz\r\n\r\n--zz\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!notbase64\r\n"
	d, _, err := e.Forward(ctx, []byte(broken), true, "")
	if err != nil {
		t.Fatal(err)
	}
	d.To = []model.Address{carol}
	d.Body = "FYI"
	if err := e.SaveNewMessage(ctx, d); err != nil {
		t.Fatal(err)
	}
	a, err := e.Approve(ctx, d.ID, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	data, ct := forwardedPart(t, a.What.Message)
	if ct != "message/rfc822" || string(data) != broken {
		t.Fatalf("forwarded part (%s) changed:\n%q\nwant\n%q", ct, data, broken)
	}
	// Inline, the same message is forwarded with what could be read, and
	// says what was lost.
	inline, problems, err := e.Forward(ctx, []byte(broken), false, "")
	if err != nil {
		t.Fatal(err)
	}
	if inline.Subject != "Fwd: kaputt" || len(problems) == 0 {
		t.Fatalf("inline forward of broken MIME: %+v, problems %v (want the parse problems named)", inline, problems)
	}
	// A message that is not mail at all cannot be forwarded inline, and
	// the error says to forward it as an attachment.
	if _, _, err := e.Forward(ctx, []byte("   "), false, ""); err == nil || !strings.Contains(err.Error(), "forward it as an attachment (F)") {
		t.Fatalf("inline forward of a non-message: %v", err)
	}
}

// TestComposeNewMessagePostfixDovecot composes a new message with a Bcc
// and an attachment, confirms it, and finds it exactly once in each
// recipient's INBOX behind a real Postfix delivering to Dovecot.
func TestComposeNewMessagePostfixDovecot(t *testing.T) {
	if postfix.Binary() == "" {
		postfix.Unavailable(t, "postfix is not installed")
	}
	if dovecot.Binary() == "" {
		dovecot.Unavailable(t, "dovecot is not installed")
	}
	ctx := context.Background()
	users := map[string]string{"alice": "alice-pw", "bob": "bob-pw", "carol": "carol-pw"}
	dv := dovecot.Start(t, &dovecot.Options{LMTP: true, Users: users, ExtraConfig: postfix.DovecotExtraConfig(postfix.DovecotVersion())})
	pf := postfix.Start(t, postfix.Options{Domain: "mailsift.test", LMTPAddr: dv.LMTPAddr})
	me := model.Address{Name: "Alice", Email: "alice@mailsift.test"}
	st, err := store.Open(ctx, t.TempDir()+"/m.db", &store.Options{Principal: me})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e := New(st, Options{Principal: me, PollInterval: 50 * time.Millisecond,
		Accounts: []Account{{From: me, Transport: &SMTP{Host: pf.Host, Port: pf.Port, TLS: SMTPInsecure, Timeout: 10 * time.Second}}}})
	d, err := e.NewMessage(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	d.To, _ = ParseAddresses("To", "Bob <bob@mailsift.test>")
	d.Bcc, _ = ParseAddresses("Bcc", "carol@mailsift.test")
	d.Subject = "Plan für Freitag"
	d.Body = "Hi Bob,\n\nthe plan is attached.\n\nAlice"
	path := filepath.Join(t.TempDir(), "plan.txt")
	if err := os.WriteFile(path, []byte("1. lunch\n2. talk\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := e.AttachFile(ctx, d.ID, path); err != nil {
		t.Fatal(err)
	}
	if err := e.SaveNewMessage(ctx, d); err != nil {
		t.Fatal(err)
	}
	_, item := approveConfirm(t, e, d.ID)
	it := runUntilSettled(t, e, st, item.ID)
	if it.State != store.OutboxSent {
		t.Fatalf("outbox item = %s (%s)", it.State, it.LastError)
	}
	waitDelivered(t, dv.Addr, "bob", "bob-pw", item.MessageID, 20*time.Second)
	waitDelivered(t, dv.Addr, "carol", "carol-pw", item.MessageID, 20*time.Second)
	if n, err := e.ProcessDue(ctx); n != 0 || err != nil {
		t.Fatalf("second outbox pass handled %d item(s), %v; want none", n, err)
	}
	for _, u := range []string{"bob", "carol"} {
		if n := imapCount(t, dv.Addr, u, users[u], "INBOX", item.MessageID); n != 1 {
			t.Fatalf("%s's INBOX has %d copies, want 1\npostfix log:\n%s", u, n, pf.Log())
		}
	}
}

// forwardedPart returns the decoded body and media type of the last part
// of a multipart/mixed message (stdlib MIME reader, not mailsift's).
func forwardedPart(t *testing.T, raw string) ([]byte, string) {
	t.Helper()
	msg, err := mail.ReadMessage(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	_, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	r := multipart.NewReader(msg.Body, params["boundary"])
	var data []byte
	var ct string
	for {
		p, err := r.NextRawPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(p)
		ct, _, _ = mime.ParseMediaType(p.Header.Get("Content-Type"))
		if p.Header.Get("Content-Transfer-Encoding") == "base64" {
			body, err = base64.StdEncoding.DecodeString(strings.NewReplacer("\r", "", "\n", "").Replace(string(body)))
			if err != nil {
				t.Fatal(err)
			}
		}
		data = body
	}
	return data, ct
}

// TestNewMessageLeavesThroughTheChosenAccount: with two accounts, each
// with its own SMTP server and From, a new message and a forward moved to
// the second account (as the compose screen does) leave through that
// account's server with its From in the header and the envelope, and
// nothing goes through the first's.
func TestNewMessageLeavesThroughTheChosenAccount(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	work := startSMTP(t, &smtpBackend{user: "work", pass: "pw-work"}, "plain")
	home := startSMTP(t, &smtpBackend{user: "home", pass: "pw-home"}, "plain")
	homeFrom := model.Address{Name: "Alice at Home", Email: "alice@home.example"}
	e := New(st, Options{Principal: alice, Accounts: []Account{
		{Name: "work", From: alice, Transport: work.transport("plain")},
		{Name: "home", From: homeFrom, Transport: home.transport("plain")},
	}})
	if got := e.AccountFrom("home"); got != homeFrom {
		t.Fatalf("AccountFrom(home) = %v, want %v", got, homeFrom)
	}
	if got := e.AccountFrom(""); got != alice {
		t.Fatalf("AccountFrom(\"\") = %v, want the first account's %v", got, alice)
	}
	newMsg, err := e.NewMessage(ctx, "work")
	if err != nil {
		t.Fatal(err)
	}
	fwd, _, err := e.Forward(ctx, []byte("From: Carol <carol@example.net>\r\nTo: alice@home.example\r\nSubject: Plans\r\nMessage-ID: <plans@example.net>\r\n\r\nSee you Sunday.\r\n"), false, "home")
	if err != nil {
		t.Fatal(err)
	}
	if fwd.Account != "home" || fwd.From != homeFrom {
		t.Fatalf("forward for home = account %q from %v", fwd.Account, fwd.From)
	}
	// The compose screen's account choice: account and From change together.
	newMsg.Account, newMsg.From = "home", e.AccountFrom("home")
	for i, d := range []*Draft{newMsg, fwd} {
		d.To, _ = ParseAddresses("To", "dave@example.org")
		d.Subject, d.Body = fmt.Sprintf("Message %d", i), "Hello from home."
		if err := e.SaveNewMessage(ctx, d); err != nil {
			t.Fatal(err)
		}
		a, err := e.Approve(ctx, d.ID, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if a.What.Account != "home" || a.What.EnvelopeFrom != homeFrom.Email {
			t.Fatalf("approval of message %d: account %q envelope %q", i, a.What.Account, a.What.EnvelopeFrom)
		}
		if _, err := e.Confirm(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := e.ProcessDue(ctx); err != nil || n != 2 {
		t.Fatalf("ProcessDue = %d, %v; want both messages", n, err)
	}
	got := home.be.messages()
	if len(got) != 2 {
		t.Fatalf("home's server received %d messages, want 2", len(got))
	}
	for _, m := range got {
		if m.User != "home" || m.From != homeFrom.Email || !strings.Contains(string(m.Data), "\r\nFrom: \"Alice at Home\" <alice@home.example>\r\n") {
			t.Errorf("home's server got user %q envelope %q:\n%s", m.User, m.From, m.Data)
		}
	}
	if n := len(work.be.messages()); n != 0 {
		t.Errorf("work's server received %d messages; the home account's mail went through it", n)
	}
}
