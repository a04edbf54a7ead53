package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"mailsift/internal/testserver/dovecot"
	"mailsift/internal/testserver/postfix"
)

// pane is one tmux session; waits re-read the screen only when the pane
// printed something (pipe-pane into a FIFO), so no wait is a fixed delay.
type pane struct {
	t       *testing.T
	tmux    string
	name    string
	changed chan struct{}
}

// e2eWait bounds each wait of the end-to-end test for a screen or a
// delivery: the test waits on what it sees, so this is only how long a
// broken feature takes to fail, generous for the race detector on two
// busy cores.
const e2eWait = 2 * time.Minute

func startPane(t *testing.T, tmux, command string) *pane {
	t.Helper()
	var r [4]byte
	rand.Read(r[:])
	p := &pane{t: t, tmux: tmux, name: "i16m-" + hex.EncodeToString(r[:]), changed: make(chan struct{}, 1)}
	fifo := filepath.Join(t.TempDir(), "pane.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		buf := make([]byte, 32<<10)
		for {
			if _, err := f.Read(buf); err != nil {
				return
			}
			select {
			case p.changed <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() { f.Close() })
	p.tmuxDo("new-session", "-d", "-s", p.name, "-x", "160", "-y", "50", command)
	t.Cleanup(func() { exec.Command(tmux, "kill-session", "-t", p.name).Run() })
	p.tmuxDo("pipe-pane", "-t", p.name, "-o", "cat >> "+fifo)
	return p
}

func (p *pane) tmuxDo(args ...string) string {
	p.t.Helper()
	out, err := exec.Command(p.tmux, args...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (p *pane) keys(ks ...string) { p.tmuxDo(append([]string{"send-keys", "-t", p.name}, ks...)...) }

// waitFor returns the screen once it contains every sub; timeout is a
// bound for a failing test, not a delay.
func (p *pane) waitFor(timeout time.Duration, subs ...string) string {
	p.t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		screen := p.tmuxDo("capture-pane", "-p", "-t", p.name)
		ok := true
		for _, s := range subs {
			ok = ok && strings.Contains(screen, s)
		}
		if ok {
			return screen
		}
		select {
		case <-p.changed:
		case <-deadline.C:
			p.t.Fatalf("timed out waiting for %q; screen:\n%s", subs, screen)
		}
	}
}

// inboxCount counts the messages with a Message-ID in user's INBOX.
func inboxCount(t *testing.T, addr, user, pass, messageID string) int {
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
	if err != nil {
		t.Fatal(err)
	}
	return len(data.AllUIDs())
}

// TestAgentReplyNeedsApproval: an agent's send_reply through `mailsift
// mcp` is not delivered until a person approves it — on the command line
// (`approvals approve` in a terminal, driven in tmux) and on the TUI's
// approvals screen (tmux) — and is then delivered exactly once, through a
// private Postfix to Dovecot; asking again with the same key sends nothing
// more.
func TestAgentReplyNeedsApproval(t *testing.T) {
	require := os.Getenv("MAILSIFT_REQUIRE_SERVERS") == "1"
	tmux, _ := exec.LookPath("tmux")
	switch {
	case postfix.Binary() == "":
		postfix.Unavailable(t, "postfix is not installed")
	case dovecot.Binary() == "":
		dovecot.Unavailable(t, "dovecot is not installed")
	case tmux == "" && require:
		t.Fatal("tmux is not installed (MAILSIFT_REQUIRE_SERVERS=1)")
	case tmux == "":
		t.Skip("tmux is not installed: the approval is given on a terminal")
	}
	ctx := context.Background()
	dv := dovecot.Start(t, &dovecot.Options{LMTP: true, Users: map[string]string{"alice": "alice-pw", "bob": "bob-pw"},
		ExtraConfig: postfix.DovecotExtraConfig(postfix.DovecotVersion())})
	pf := postfix.Start(t, postfix.Options{Domain: "mailsift.test", LMTPAddr: dv.LMTPAddr})

	dir := t.TempDir()
	md := filepath.Join(dir, "Mail")
	for _, d := range []string{"cur", "new", "tmp"} {
		os.MkdirAll(filepath.Join(md, d), 0o700)
	}
	for i, subj := range []string{"Lunch on Friday?", "Budget numbers"} {
		raw := fmt.Sprintf("From: Bob <bob@mailsift.test>\r\nTo: Alice <alice@mailsift.test>\r\nSubject: %s\r\nMessage-ID: <orig%d@mailsift.test>\r\n"+
			"Date: Mon, 0%d Nov 2026 10:00:00 +0000\r\n\r\nHello Alice.\r\n", subj, i, i+1)
		os.WriteFile(filepath.Join(md, "cur", fmt.Sprintf("10%d.x:2,", i)), []byte(raw), 0o600)
	}
	cfgPath := filepath.Join(dir, "config.toml")
	cfg := fmt.Sprintf("[principal]\nname = \"Alice\"\nemail = \"alice@mailsift.test\"\n[triage]\noffline = true\n[drafts]\nundo_seconds = 0\n"+
		"[[account]]\nname = \"alice\"\nsource = \"maildir://%s\"\nsmtp = \"smtp+insecure://%s\"\n", md, net.JoinHostPort(pf.Host, fmt.Sprint(pf.Port)))
	os.WriteFile(cfgPath, []byte(cfg), 0o600)
	bin := filepath.Join(t.TempDir(), "mailsift")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	base := []string{"--config", cfgPath, "--data-dir", filepath.Join(dir, "data")}
	cli := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(bin, append(append([]string{}, base...), args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("mailsift %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	cli("sync")

	// The agent asks, through a real `mailsift mcp` process.
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx,
		&sdk.CommandTransport{Command: exec.Command(bin, append(append([]string{}, base...), "mcp", "--no-sync")...)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(name string, args map[string]any) *sdk.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		return res
	}
	lt := call("list_threads", map[string]any{"inbox_id": "alice"}).StructuredContent.(map[string]any)["threads"].([]any)
	threadOf := map[string]string{}
	for _, th := range lt {
		m := th.(map[string]any)
		threadOf[m["subject"].(string)] = m["id"].(string)
	}
	reply1 := map[string]any{"thread_id": threadOf["Budget numbers"], "body_or_draft_id": "The numbers come tomorrow.", "idempotency_key": "agent-1"}
	r1 := call("send_reply", reply1)
	ap1 := r1.Meta["approval_id"].(string)
	list := cli("approvals", "list", "--json")
	if !strings.Contains(list, ap1) {
		t.Fatalf("approval %s not listed:\n%s", ap1, list)
	}
	msgID1 := between(list, `"message_id":"`, `"`)

	// Not approved: the outbox has nothing to send.
	cli("outbox", "send")
	if n := inboxCount(t, dv.Addr, "bob", "bob-pw", msgID1); n != 0 {
		t.Fatalf("delivered %d before approval", n)
	}

	// The person approves on a terminal.
	p := startPane(t, tmux, strings.Join(append(append([]string{bin}, base...), "approvals", "approve", ap1, ";", "sleep", "3600"), " "))
	p.waitFor(e2eWait, "Message-ID: <"+msgID1+">", "Type y to send")
	p.keys("y", "Enter")
	p.waitFor(e2eWait, "approved: outbox item")
	cli("outbox", "send")
	dovecot.WaitDelivered(t, dv.Addr, "bob", "bob-pw", msgID1, e2eWait)

	// Asking again with the same key answers sent and sends nothing more.
	r1b := call("send_reply", reply1)
	if r1b.StructuredContent.(map[string]any)["status"] != "sent" || r1b.Meta["approval_id"] != ap1 {
		t.Errorf("same key after the send = %+v", r1b.StructuredContent)
	}
	cli("outbox", "send")

	// A second reply, approved on the TUI's approvals screen.
	r2 := call("send_reply", map[string]any{"thread_id": threadOf["Lunch on Friday?"], "body_or_draft_id": "Friday works.", "idempotency_key": "agent-2"})
	ap2 := r2.Meta["approval_id"].(string)
	list = cli("approvals", "show", ap2, "--json")
	msgID2 := between(list, `"message_id":"`, `"`)
	tui := startPane(t, tmux, strings.Join(append([]string{bin}, base...), " "))
	tui.waitFor(e2eWait, "1 approval waiting (P)")
	tui.keys("P")
	tui.waitFor(e2eWait, "Approvals waiting (1)", "bob@mailsift.test")
	tui.keys("Enter")
	tui.waitFor(e2eWait, "Re: Lunch on Friday?", "y send this message")
	tui.keys("Tab") // the exact bytes
	tui.waitFor(e2eWait, "Message-ID: <"+msgID2+">", "y send this message")
	tui.keys("y")
	dovecot.WaitDelivered(t, dv.Addr, "bob", "bob-pw", msgID2, e2eWait)
	tui.keys("q")

	for _, id := range []string{msgID1, msgID2} {
		if n := inboxCount(t, dv.Addr, "bob", "bob-pw", id); n != 1 {
			t.Errorf("<%s> is in bob's INBOX %d times, want once\npostfix log:\n%s", id, n, pf.Log())
		}
	}
	audit := cli("audit", "--json", "--trace", between(cli("approvals", "show", ap1, "--json"), `"trace_id":"`, `"`))
	for _, w := range []string{`"type":"tool_call.attempted"`, `"tool_name":"send_reply"`, `"type":"approval.requested"`, `"type":"approval.approved"`, `"type":"tool_call.succeeded"`} {
		if !strings.Contains(audit, w) {
			t.Errorf("the reply's audit trail lacks %s:\n%s", w, audit)
		}
	}
}

// between returns the text after the first from and before the next to.
func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, to)
	return v
}
