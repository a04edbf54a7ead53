package ui

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2/imapclient"

	"mailsift/internal/testserver/dovecot"
	"mailsift/internal/testserver/postfix"
)

// TestTmuxSendEndToEnd drives the real binary in tmux against a private
// Dovecot (IMAP, LMTP) and Postfix: open a thread, r, s, y, and the reply
// is in the recipient's INBOX once and in the sender's Sent once.
//
// Sending goes through Postfix's sendmail into the private instance
// (sendmail = "sendmail -C DIR"): the test Postfix offers no AUTH, and a
// configured smtp+insecure account always logs in with the IMAP user.
func TestTmuxSendEndToEnd(t *testing.T) {
	tmux := requireTmux(t)
	if postfix.Binary() == "" {
		postfix.Unavailable(t, "postfix is not installed")
	}
	if dovecot.Binary() == "" {
		dovecot.Unavailable(t, "dovecot is not installed")
	}
	sendmail, err := exec.LookPath("sendmail")
	if err != nil {
		postfix.Unavailable(t, "postfix's sendmail is not installed")
	}
	users := map[string]string{"alice": "alice-pw", "bob": "bob-pw"}
	dv := dovecot.Start(t, &dovecot.Options{LMTP: true, Users: users, ExtraConfig: postfix.DovecotExtraConfig(postfix.DovecotVersion())})
	pf := postfix.Start(t, postfix.Options{Domain: "mailsift.test", LMTPAddr: dv.LMTPAddr})

	// alice has Sent and a message from bob in her INBOX.
	c, err := imapclient.DialInsecure(dv.Addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Login("alice", "alice-pw").Wait(); err != nil {
		t.Fatal(err)
	}
	for _, mb := range []string{"Sent", "Drafts"} {
		if err := c.Create(mb, nil).Wait(); err != nil {
			t.Fatalf("create %s: %v", mb, err)
		}
	}
	orig := "From: Bob <bob@mailsift.test>\r\nTo: Alice <alice@mailsift.test>\r\nSubject: Lunch on Friday?\r\n" +
		"Date: " + time.Now().Add(-time.Hour).Format(time.RFC1123Z) + "\r\nMessage-ID: <orig-e2e@mailsift.test>\r\n\r\n" +
		"Are you free for lunch on Friday?\r\n"
	imapAppend(t, c, "INBOX", orig)
	c.Close()

	dir := t.TempDir()
	bin := buildMailsift(t, dir)
	host, port, _ := net.SplitHostPort(dv.Addr)
	cfgPath := filepath.Join(dir, "config.toml")
	cfg := fmt.Sprintf(`[principal]
name = "Alice"
email = "alice@mailsift.test"

[[account]]
name = "alice"
source = "imap+insecure://alice@%s:%s"
sendmail = "%s -C %s"

[triage]
offline = true

[drafts]
undo_seconds = 1
`, host, port, sendmail, pf.Dir)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}

	script := "env -u NO_COLOR MAILSIFT_PASSWORD=alice-pw XDG_CONFIG_HOME=" + filepath.Join(dir, "cfg") +
		" OLLAMA_HOST=http://127.0.0.1:9 EDITOR=true " + bin + " --config " + cfgPath + " --data-dir " + filepath.Join(dir, "data") +
		"; sleep 60"
	p := newTmuxPane(t, tmux, "mailsift-send-"+filepath.Base(dir), 120, 45, script)
	waitFor := func(what string, subs ...string) string {
		t.Helper()
		return p.waitFor(what, tmuxWait, hasAll(subs...), func() string { return "\npostfix log:\n" + pf.Log() })
	}
	keys := p.keys

	waitFor("the synced message", "Lunch on Friday?")
	keys("/")
	waitFor("search prompt", "type to search")
	keys("-l", "Friday")
	waitFor("search results", "results for Friday")
	keys("Enter")
	// "Bucket:" is the thread view's header: the search results show the
	// message's text too, and a key sent while they are still on screen
	// goes to them.
	waitFor("the thread", "Bucket:", "Are you free for lunch on Friday?")
	keys("r")
	waitFor("the draft review", "Draft reply", "Bob <bob@mailsift.test>", "Subject: Re: Lunch on Friday?")
	keys("s")
	waitFor("the confirm screen", "send this message", "RCPT TO bob@mailsift.test", "Subject:  Re: Lunch on Friday?")
	keys("Tab")
	waitFor("the exact bytes", "send this message", "│ Subject: Re: Lunch on Friday?")
	keys("y")
	waitFor("the sent note", "sent <")
	// The outbox holds one item, sent after one attempt: nothing will send
	// it again, so the copies counted below are all there will be.
	keys("O")
	waitFor("the outbox", "Outbox (1)", "> sent ", "· 1 attempt")

	inbox := dovecot.WaitHeader(t, dv.Addr, "bob", "bob-pw", "INBOX", "Subject", "Re: Lunch on Friday?", tmuxWait)
	sent := dovecot.WaitHeader(t, dv.Addr, "alice", "alice-pw", "Sent", "Subject", "Re: Lunch on Friday?", tmuxWait)
	if inbox != 1 || sent != 1 {
		t.Fatalf("bob's INBOX has %d copies, alice's Sent %d; want 1 and 1\nscreen:\n%s\npostfix log:\n%s", inbox, sent, p.capture(), pf.Log())
	}

	// A new message: c, bob completed from the address book, a subject
	// and a body, ctrl+s to the confirm screen, y.
	keys("Escape")
	waitFor("the thread again", "Bucket:", "Are you free for lunch on Friday?")
	keys("c")
	waitFor("the compose screen", "New message", "To:")
	keys("-l", "bo")
	waitFor("the completion", "▸ Bob <bob@mailsift.test>")
	keys("Enter", "Tab", "Tab", "Tab")
	keys("-l", "Agenda for Friday")
	keys("Tab", "Tab")
	keys("-l", "Lunch at 12:30, then the review.")
	keys("C-s")
	waitFor("the confirm screen of the new message", "send this message", "Subject:  Agenda for Friday", "RCPT TO bob@mailsift.test")
	keys("y")
	if n := dovecot.WaitHeader(t, dv.Addr, "bob", "bob-pw", "INBOX", "Subject", "Agenda for Friday", tmuxWait); n != 1 {
		t.Fatalf("bob's INBOX has %d copies of the new message, want 1\nscreen:\n%s\npostfix log:\n%s", n, p.capture(), pf.Log())
	}
	if n := dovecot.WaitHeader(t, dv.Addr, "alice", "alice-pw", "Sent", "Subject", "Agenda for Friday", tmuxWait); n != 1 {
		t.Fatalf("alice's Sent has %d copies of the new message, want 1", n)
	}
	keys("q")
}
