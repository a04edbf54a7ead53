package ui

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"mailsift/internal/testserver/dovecot"
)

// TestTmuxActionsEndToEnd drives the real binary in tmux against a
// private Dovecot: archive five threads with e, undo one with u, snooze
// one with b enter, quit, then `mailsift sync` replays whatever is still
// queued; Dovecot's folders must then hold each message exactly once:
// four in Archive (created by the first move), three in INBOX (the
// snoozed one stays there: snoozing is the store's), none elsewhere.
func TestTmuxActionsEndToEnd(t *testing.T) {
	tmux := requireTmux(t)
	if dovecot.Binary() == "" {
		dovecot.Unavailable(t, "dovecot is not installed")
	}
	dv := dovecot.Start(t, &dovecot.Options{Users: map[string]string{"alice": "alice-pw"}})
	c, err := imapclient.DialInsecure(dv.Addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Login("alice", "alice-pw").Wait(); err != nil {
		t.Fatal(err)
	}
	const n = 7
	for i := 1; i <= n; i++ {
		raw := fmt.Sprintf("From: Sender %d <s%d@mailsift.test>\r\nTo: Alice <alice@mailsift.test>\r\nSubject: Topic number %d\r\n"+
			"Date: %s\r\nMessage-ID: <e2e-act-%d@mailsift.test>\r\n\r\nAbout topic %d.\r\n",
			i, i, i, time.Now().Add(-time.Duration(i)*time.Hour).Format(time.RFC1123Z), i, i)
		imapAppend(t, c, "INBOX", raw)
	}

	dir := t.TempDir()
	bin := buildMailsift(t, dir)
	host, port, _ := net.SplitHostPort(dv.Addr)
	cfgPath := filepath.Join(dir, "config.toml")
	cfg := fmt.Sprintf("[principal]\nname = \"Alice\"\nemail = \"alice@mailsift.test\"\n\n[[account]]\nname = \"alice\"\n"+
		"source = \"imap+insecure://alice@%s:%s\"\n\n[triage]\noffline = true\n", host, port)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := "env -u NO_COLOR MAILSIFT_PASSWORD=alice-pw XDG_CONFIG_HOME=" + filepath.Join(dir, "cfg") + " OLLAMA_HOST=http://127.0.0.1:9 "
	args := " --config " + cfgPath + " --data-dir " + filepath.Join(dir, "data")
	p := newTmuxPane(t, tmux, "mailsift-act-"+filepath.Base(dir), 120, 40, env+bin+args+"; sleep 60")
	waitFor := func(what string, subs ...string) string {
		t.Helper()
		return p.waitFor(what, tmuxWait, hasAll(subs...), nil)
	}
	waitFor("the synced messages", "Topic number 1", "Topic number 7")
	for i := 1; i <= 5; i++ {
		p.keys("e")
		waitFor(fmt.Sprintf("archive %d", i), "archived 1 thread")
		waitFor(fmt.Sprintf("%d threads left", n-i), fmt.Sprintf("%d threads", n-i))
	}
	p.keys("u")
	waitFor("the undo", "undone: archive 1 thread", fmt.Sprintf("%d threads", n-4))
	p.keys("b")
	waitFor("the snooze picker", "tomorrow morning")
	p.keys("Enter")
	waitFor("the snooze", "snoozed 1 thread", fmt.Sprintf("%d threads", n-5))
	p.keys("q")

	// Whatever the session had not replayed yet goes out now, once.
	sync := exec.Command("sh", "-c", env+bin+args+" sync")
	if out, err := sync.CombinedOutput(); err != nil {
		t.Fatalf("mailsift sync: %v\n%s", err, out)
	}
	where := map[string][]string{}
	for _, box := range []string{"INBOX", "Archive", "Trash", "Junk"} {
		if _, err := c.Select(box, &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
			continue
		}
		all, err := c.UIDSearch(&imap.SearchCriteria{}, nil).Wait()
		if err != nil {
			t.Fatalf("search %s: %v", box, err)
		}
		uids := all.AllUIDs()
		if len(uids) == 0 {
			continue
		}
		msgs, err := c.Fetch(imap.UIDSetNum(uids...), &imap.FetchOptions{Envelope: true}).Collect()
		if err != nil {
			t.Fatalf("fetch %s: %v", box, err)
		}
		for _, m := range msgs {
			where[box] = append(where[box], m.Envelope.MessageID)
		}
	}
	if len(where["Archive"]) != 4 || len(where["INBOX"]) != n-4 || len(where["Trash"])+len(where["Junk"]) != 0 {
		t.Fatalf("Dovecot holds %v; want 4 in Archive, %d in INBOX, none elsewhere", where, n-4)
	}
	seen := map[string]int{}
	for _, ids := range where {
		for _, id := range ids {
			seen[id]++
		}
	}
	for i := 1; i <= n; i++ {
		if id := fmt.Sprintf("e2e-act-%d@mailsift.test", i); seen[id] != 1 {
			t.Errorf("message %s is on the server %d times, want once (%v)", id, seen[id], where)
		}
	}
}
