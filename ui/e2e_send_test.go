package ui

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"mailsift/internal/testserver/dovecot"
	"mailsift/internal/testserver/postfix"
)

// imapSubjectCount logs in as user and counts the messages in mailbox
// whose Subject contains subject (-1 when the mailbox cannot be selected).
func imapSubjectCount(t *testing.T, addr, user, pass, mailbox, subject string) int {
	t.Helper()
	c, err := imapclient.DialInsecure(addr, nil)
	if err != nil {
		t.Fatalf("imap dial %s: %v", addr, err)
	}
	defer c.Close()
	if err := c.Login(user, pass).Wait(); err != nil {
		t.Fatalf("imap login %s: %v", user, err)
	}
	if _, err := c.Select(mailbox, &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
		return -1
	}
	data, err := c.UIDSearch(&imap.SearchCriteria{Header: []imap.SearchCriteriaHeaderField{{Key: "Subject", Value: subject}}}, nil).Wait()
	if err != nil {
		t.Fatalf("imap search: %v", err)
	}
	return len(data.AllUIDs())
}

// TestTmuxSendEndToEnd drives the real binary in tmux against a private
// Dovecot (IMAP, LMTP) and Postfix: open a thread, r, s, y, and the reply
// is in the recipient's INBOX once and in the sender's Sent once.
//
// Sending goes through Postfix's sendmail into the private instance
// (sendmail = "sendmail -C DIR"): the test Postfix offers no AUTH, and a
// configured smtp+insecure account always logs in with the IMAP user.
func TestTmuxSendEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		postfix.Unavailable(t, "tmux is not installed (apt-get install tmux)")
	}
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
	app := c.Append("INBOX", int64(len(orig)), nil)
	if _, err := app.Write([]byte(orig)); err != nil {
		t.Fatal(err)
	}
	if err := app.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Wait(); err != nil {
		t.Fatal(err)
	}
	c.Close()

	dir := t.TempDir()
	bin := filepath.Join(dir, "mailsift")
	build := exec.Command("go", "build", "-o", bin, "mailsift")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
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

	session := "mailsift-send-" + filepath.Base(dir)
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(tmux, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	script := "env -u NO_COLOR MAILSIFT_PASSWORD=alice-pw XDG_CONFIG_HOME=" + filepath.Join(dir, "cfg") +
		" OLLAMA_HOST=http://127.0.0.1:9 EDITOR=true " + bin + " --config " + cfgPath + " --data-dir " + filepath.Join(dir, "data") +
		"; sleep 60"
	run("new-session", "-d", "-s", session, "-x", "120", "-y", "45", script)
	t.Cleanup(func() { exec.Command(tmux, "kill-session", "-t", session).Run() })
	capture := func() string { return run("capture-pane", "-p", "-t", session) }
	waitFor := func(what string, subs ...string) string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		var screen string
		for time.Now().Before(deadline) {
			screen = capture()
			ok := true
			for _, s := range subs {
				ok = ok && strings.Contains(screen, s)
			}
			if ok {
				return screen
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("timed out waiting for %s; screen:\n%s\npostfix log:\n%s", what, screen, pf.Log())
		return ""
	}
	keys := func(ks ...string) { run(append([]string{"send-keys", "-t", session}, ks...)...) }

	waitFor("the synced message", "Lunch on Friday?")
	keys("/")
	waitFor("search prompt", "type to search")
	keys("-l", "Friday")
	waitFor("search results", "results for Friday")
	keys("Enter")
	waitFor("the thread", "Are you free for lunch on Friday?")
	keys("r")
	waitFor("the draft review", "Draft reply", "Bob <bob@mailsift.test>", "Subject: Re: Lunch on Friday?")
	keys("s")
	waitFor("the confirm screen", "send this message", "RCPT TO bob@mailsift.test", "│ Subject: Re: Lunch on Friday?")
	keys("y")
	waitFor("the sent note", "sent <")

	deadline := time.Now().Add(30 * time.Second)
	inbox, sent := 0, 0
	for time.Now().Before(deadline) {
		inbox = imapSubjectCount(t, dv.Addr, "bob", "bob-pw", "INBOX", "Re: Lunch on Friday?")
		sent = imapSubjectCount(t, dv.Addr, "alice", "alice-pw", "Sent", "Re: Lunch on Friday?")
		if inbox > 0 && sent > 0 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(2 * time.Second) // a second copy would arrive in this time
	inbox = imapSubjectCount(t, dv.Addr, "bob", "bob-pw", "INBOX", "Re: Lunch on Friday?")
	sent = imapSubjectCount(t, dv.Addr, "alice", "alice-pw", "Sent", "Re: Lunch on Friday?")
	if inbox != 1 || sent != 1 {
		t.Fatalf("bob's INBOX has %d copies, alice's Sent %d; want 1 and 1\nscreen:\n%s\npostfix log:\n%s", inbox, sent, capture(), pf.Log())
	}
	keys("q")
}
