package app

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-smtp"

	"mailsift/config"
	"mailsift/internal/app/event"
	"mailsift/internal/oauth"
	"mailsift/internal/testserver/dovecot"
	"mailsift/internal/testserver/oauthserver"
	"mailsift/store"
)

// startSink runs a go-smtp server on 127.0.0.1 recording what it accepts.
func startSink(t *testing.T) (*smtpSink, int) {
	t.Helper()
	sink := &smtpSink{}
	srv := smtp.NewServer(sink)
	srv.Domain = "localhost"
	srv.ErrorLog = log.New(io.Discard, "", 0)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return sink, ln.Addr().(*net.TCPAddr).Port
}

// deliver appends a message to user's INBOX with a password login.
func deliver(t *testing.T, addr, user, pass, msgID, from, subject string) {
	t.Helper()
	c, err := imapclient.DialInsecure(addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Login(user, pass).Wait(); err != nil {
		t.Fatal(err)
	}
	msg := []byte(fmt.Sprintf("From: %s\r\nTo: %s@example.org\r\nSubject: %s\r\nMessage-ID: <%s>\r\nDate: Tue, 24 Nov 2026 08:00:00 +0000\r\n\r\nCan you reply?\r\n", from, user, subject, msgID))
	cmd := c.Append("INBOX", int64(len(msg)), nil)
	if _, err := cmd.Write(msg); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
}

// TestTwoAccountsReplyThroughTheirOwn: two Dovecot users are two accounts
// in one session, alice signing in with OAuth2 (XOAUTH2, the token checked
// by Dovecot at the authorization server) and bob with a password, plus a
// third account whose password is wrong. The broken account is reported
// as auth failed and stops neither of the others; a reply to each
// account's thread leaves through that account's SMTP server with its
// From, and nothing through the other's.
func TestTwoAccountsReplyThroughTheirOwn(t *testing.T) {
	as := oauthserver.Start(t, nil)
	dc := dovecot.Start(t, &dovecot.Options{
		Users:                  map[string]string{"alice": "alice-pw", "bob": "bob-pw", "carl": "carl-pw"},
		OAuth2IntrospectionURL: as.URL + oauthserver.IntrospectPath,
	})
	as.SignIn("alice")
	oc := oauth.Client{Provider: oauth.Provider{AuthURL: as.URL + oauthserver.AuthorizePath, TokenURL: as.URL + oauthserver.TokenPath}, ClientID: as.ClientID}
	tok, err := oc.LoginBrowser(context.Background(), oauth.LoginOptions{OpenBrowser: func(u string) error {
		go func() {
			if r, err := http.Get(u); err == nil {
				r.Body.Close()
			}
		}()
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	deliver(t, dc.Addr, "alice", "alice-pw", "a1@example.net", "Carol <carol@example.net>", "Question for Alice")
	deliver(t, dc.Addr, "bob", "bob-pw", "b1@example.net", "Dave <dave@example.net>", "Question for Bob")
	aliceSink, alicePort := startSink(t)
	bobSink, bobPort := startSink(t)
	ollamaDown := refuseAll(t)

	dir := t.TempDir()
	rtFile := filepath.Join(dir, "alice-refresh")
	if err := os.WriteFile(rtFile, []byte(tok.RefreshToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, imapPort, _ := net.SplitHostPort(dc.Addr)
	cfgText := fmt.Sprintf(`[principal]
name = "Alice"
email = "alice@example.org"

[ollama]
host = "http://127.0.0.1:%[1]d"

[triage]
offline = true

[drafts]
undo_seconds = 0

[[account]]
name = "alice"
source = "imap+insecure://alice@127.0.0.1:%[2]s"
smtp = "smtp+insecure://127.0.0.1:%[3]d"
from = "Alice <alice@example.org>"
oauth2_provider = "custom"
oauth2_client_id = %[5]q
oauth2_auth_url = %[6]q
oauth2_token_url = %[7]q
password_cmd = "cat %[8]s"

[[account]]
name = "bob"
source = "imap+insecure://bob@127.0.0.1:%[2]s"
smtp = "smtp+insecure://127.0.0.1:%[4]d"
from = "Bob Work <bob@example.org>"
password_cmd = "echo bob-pw"

[[account]]
name = "carl"
source = "imap+insecure://carl@127.0.0.1:%[2]s"
password_cmd = "echo wrong-password"
`, ollamaDown.port(), imapPort, alicePort, bobPort, as.ClientID, as.URL+oauthserver.AuthorizePath, as.URL+oauthserver.TokenPath, rtFile)
	cfgPath := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfgPath, []byte(cfgText), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{Path: cfgPath, DataDir: dir, Env: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	clock := &testClock{now: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)}
	st, err := store.Open(ctx, filepath.Join(dir, "mailsift.db"), &store.Options{Principal: cfg.Principal.Address(), Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := New(cfg, st, Options{Now: clock.Now}).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		s.Wait()
	}()
	events := &eventLog{t: t, ch: s.Events()}
	for _, name := range []string{"alice", "bob"} {
		events.waitFor(0, name+" watching (IDLE)", func(ev event.Event) bool {
			c, ok := ev.(event.Conn)
			return ok && c.Account == name && c.State == event.ConnIdle
		})
	}
	events.waitFor(0, "carl auth failed", func(ev event.Event) bool {
		c, ok := ev.(event.Conn)
		return ok && c.Account == "carl" && c.State == event.ConnAuthFailed
	})

	sent := 0
	for _, tc := range []struct {
		msgID, account, from string
		own, other           *smtpSink
	}{
		{"b1@example.net", "bob", "\r\nFrom: \"Bob Work\" <bob@example.org>\r\n", bobSink, aliceSink},
		{"a1@example.net", "alice", "\r\nFrom: \"Alice\" <alice@example.org>\r\n", aliceSink, bobSink},
	} {
		tid, err := st.ThreadIDForMessage(ctx, tc.msgID)
		if err != nil {
			t.Fatalf("thread of %s: %v", tc.msgID, err)
		}
		// The UI's r: no account named, so the thread's own is used.
		d, _, err := s.Drafts.ResumeOrNewDraft(ctx, tid, false, "")
		if err != nil {
			t.Fatal(err)
		}
		if d.Account != tc.account {
			t.Fatalf("reply to %s drafted for account %q, want %q", tc.msgID, d.Account, tc.account)
		}
		ap, err := s.Drafts.Approve(ctx, d.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		item, err := s.Drafts.Confirm(ctx, ap.ID)
		if err != nil {
			t.Fatal(err)
		}
		events.waitFor(0, "reply to "+tc.msgID+" sent", func(ev event.Event) bool {
			o, ok := ev.(event.Outbox)
			return ok && o.ID == item.ID && o.State == store.OutboxSent
		})
		sent++
		got := tc.own.received()
		if len(got) != 1 || !strings.Contains(string(got[0]), tc.from) || !strings.Contains(string(got[0]), "<"+tc.msgID+">") {
			t.Fatalf("%s's SMTP server got %d messages (want the reply with %q):\n%s", tc.account, len(got), tc.from, got)
		}
	}
	if len(aliceSink.received())+len(bobSink.received()) != sent {
		t.Errorf("%d messages left in all, want %d: a reply went out twice or through the wrong account", len(aliceSink.received())+len(bobSink.received()), sent)
	}
}
