package imap

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2/imapclient"

	"mailsift/internal/oauth"
	"mailsift/internal/testserver/dovecot"
	"mailsift/internal/testserver/oauthserver"
)

// oauthRig is a real authorization server and a real Dovecot that checks
// bearer tokens against it (oauth2 passdb, introspection).
type oauthRig struct {
	as     *oauthserver.Server
	dc     *dovecot.Server
	client oauth.Client
}

func startOAuthRig(t *testing.T) *oauthRig {
	t.Helper()
	as := oauthserver.Start(t, &oauthserver.Options{AccessTTL: time.Hour})
	dc := dovecot.Start(t, &dovecot.Options{
		Users:                  map[string]string{"alice": "alice-password", "bob": "bob-password"},
		OAuth2IntrospectionURL: as.URL + oauthserver.IntrospectPath,
	})
	c := oauth.Client{Provider: oauth.Provider{Name: oauth.Custom, AuthURL: as.URL + oauthserver.AuthorizePath,
		TokenURL: as.URL + oauthserver.TokenPath, Scopes: []string{"mail"}}, ClientID: as.ClientID}
	return &oauthRig{as: as, dc: dc, client: c}
}

// signIn runs the browser sign-in as user and returns its refresh token.
func (r *oauthRig) signIn(t *testing.T, user string) (access, refresh string) {
	t.Helper()
	r.as.SignIn(user)
	tok, err := r.client.LoginBrowser(context.Background(), oauth.LoginOptions{OpenBrowser: func(u string) error {
		go func() {
			if resp, err := http.Get(u); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}})
	if err != nil {
		t.Fatalf("sign in: %v", err)
	}
	return tok.AccessToken, tok.RefreshToken
}

func (r *oauthRig) source(t *testing.T, user, mech string, password func(context.Context) (string, error)) *Source {
	host, port, _ := net.SplitHostPort(r.dc.Addr)
	s := New("work", Config{Host: host, Port: port, Username: user, TLS: TLSInsecurePlain, Auth: mech, Password: password})
	t.Cleanup(func() { s.Close() })
	return s
}

func TestOAuth2DovecotLogin(t *testing.T) {
	r := startOAuthRig(t)
	_, refresh := r.signIn(t, "alice")
	for _, mech := range []string{"xoauth2", "oauthbearer"} {
		t.Run(mech, func(t *testing.T) {
			ts := oauth.NewSource(r.client, refresh, oauth.SourceOptions{Account: "work",
				SaveRefresh: func(_ context.Context, rt string) error { refresh = rt; return nil }})
			before := r.as.Introspections()
			if err := r.source(t, "alice", mech, ts.AccessToken).CheckLogin(context.Background()); err != nil {
				t.Fatalf("login with %s: %v\n%s", mech, err, r.dc.Log())
			}
			if r.as.Introspections() == before {
				t.Error("Dovecot logged in without asking the authorization server")
			}
			// A token Dovecot cannot introspect as active is refused, and
			// the error never shows it.
			bad := "not-a-token-" + mech
			err := r.source(t, "alice", mech, func(context.Context) (string, error) { return bad, nil }).CheckLogin(context.Background())
			if !errors.Is(err, ErrAuthFailed) {
				t.Fatalf("login with a bogus token = %v, want ErrAuthFailed", err)
			}
			if strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "mailsift login work") {
				t.Errorf("refused token error = %q: want the sign-in command and no token", err)
			}
			// alice's token does not open bob's mailbox.
			if err := r.source(t, "bob", mech, ts.AccessToken).CheckLogin(context.Background()); !errors.Is(err, ErrAuthFailed) {
				t.Errorf("alice's token as bob = %v, want ErrAuthFailed", err)
			}
		})
	}
}

// testClock is a settable clock for the token source.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestOAuth2RefreshDuringIdle: an IDLE connection outlives its access
// token; the token expires meanwhile (on the server too), new mail still
// wakes the watcher, and the next connection logs in with a refreshed
// token.
func TestOAuth2RefreshDuringIdle(t *testing.T) {
	r := startOAuthRig(t)
	_, refresh := r.signIn(t, "alice")
	clk := &testClock{t: time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)}
	ts := oauth.NewSource(r.client, refresh, oauth.SourceOptions{Account: "work", Now: clk.Now})
	var (
		mu     sync.Mutex
		issued []string
	)
	password := func(ctx context.Context) (string, error) {
		tok, err := ts.AccessToken(ctx)
		mu.Lock()
		issued = append(issued, tok)
		mu.Unlock()
		return tok, err
	}
	src := r.source(t, "alice", "xoauth2", password)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := src.Sync(ctx, newFakeSink(), nil); err != nil {
		t.Fatalf("first sync: %v", err)
	}
	// Mail that arrived since the sync makes Watch report a change right
	// after it logged in and selected INBOX: the IDLE session is up.
	appendMail(t, r.dc.Addr, "alice", "alice-password", "<first@example.org>")
	changed := make(chan struct{}, 4)
	done := make(chan error, 1)
	go func() { done <- src.Watch(ctx, func() { changed <- struct{}{} }) }()
	select {
	case <-changed:
	case err := <-done:
		t.Fatalf("Watch ended: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("Watch did not log in within 30s")
	}
	mu.Lock()
	first := issued[0]
	mu.Unlock()

	// 56 minutes later the hour-long token is within the refresh margin,
	// and the server no longer accepts it.
	clk.Add(56 * time.Minute)
	r.as.Expire(first)

	appendMail(t, r.dc.Addr, "alice", "alice-password", "<second@example.org>")
	select {
	case <-changed:
	case err := <-done:
		t.Fatalf("Watch ended instead of reporting new mail: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("IDLE did not report the new message within 30s")
	}
	// The pooled connection is dropped so the next sync logs in anew.
	src.Close()
	sink := newFakeSink()
	if err := src.Sync(ctx, sink, nil); err != nil {
		t.Fatalf("sync after expiry: %v", err)
	}
	mu.Lock()
	last := issued[len(issued)-1]
	mu.Unlock()
	if last == first || ts.Refreshes() != 2 {
		t.Fatalf("sync after expiry used the old token (refreshes %d)", ts.Refreshes())
	}
	if len(sink.msgs) != 2 {
		t.Errorf("sync after refresh stored %d messages, want 2", len(sink.msgs))
	}
	cancel()
	<-done
}

func TestOAuth2RevokedGrant(t *testing.T) {
	r := startOAuthRig(t)
	_, refresh := r.signIn(t, "alice")
	r.as.Revoke(refresh)
	ts := oauth.NewSource(r.client, refresh, oauth.SourceOptions{Account: "work"})
	src := r.source(t, "alice", "oauthbearer", ts.AccessToken)
	err := src.Sync(context.Background(), newFakeSink(), nil)
	if !errors.Is(err, ErrAuthFailed) {
		t.Fatalf("sync with a revoked grant = %v, want ErrAuthFailed (not retried)", err)
	}
	if !strings.Contains(err.Error(), "mailsift login work") || strings.Contains(err.Error(), refresh) {
		t.Errorf("revoked grant error = %q: want the sign-in command and no token", err)
	}
	// Watch stops at once rather than retrying for ever.
	if err := src.Watch(context.Background(), func() {}); !errors.Is(err, ErrAuthFailed) {
		t.Errorf("Watch with a revoked grant = %v, want ErrAuthFailed", err)
	}
}

// appendMail puts one message into user's INBOX through a password login.
func appendMail(t *testing.T, addr, user, pass, msgID string) {
	t.Helper()
	c, err := imapclient.DialInsecure(addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Login(user, pass).Wait(); err != nil {
		t.Fatal(err)
	}
	msg := []byte("From: carol@example.org\r\nTo: alice@example.org\r\nSubject: while idling\r\nMessage-ID: " + msgID + "\r\nDate: Sun, 01 Mar 2026 08:30:00 +0000\r\n\r\nhello\r\n")
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

// TestOAuth2RefusedTokenIsRefreshed: a token the server refuses before
// its expiry (revoked, or clocks that disagree) fails that login only; the
// refused token is forgotten, so the next attempt refreshes and logs in.
func TestOAuth2RefusedTokenIsRefreshed(t *testing.T) {
	r := startOAuthRig(t)
	_, refresh := r.signIn(t, "alice")
	clk := &testClock{t: time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)} // never moves
	ts := oauth.NewSource(r.client, refresh, oauth.SourceOptions{Account: "work", Now: clk.Now})
	var issued string
	host, port, _ := net.SplitHostPort(r.dc.Addr)
	src := New("work", Config{Host: host, Port: port, Username: "alice", TLS: TLSInsecurePlain, Auth: "oauthbearer",
		Password: func(ctx context.Context) (string, error) {
			tok, err := ts.AccessToken(ctx)
			issued = tok
			return tok, err
		},
		TokenRejected: ts.Forget})
	t.Cleanup(func() { src.Close() })
	ctx := context.Background()
	if err := src.Sync(ctx, newFakeSink(), nil); err != nil {
		t.Fatal(err)
	}
	first := issued
	r.as.Expire(first) // the server drops it; by the client's clock it has an hour left
	src.Close()
	if err := src.Sync(ctx, newFakeSink(), nil); !errors.Is(err, ErrAuthFailed) {
		t.Fatalf("sync with a token the server dropped = %v, want ErrAuthFailed", err)
	}
	if err := src.Sync(ctx, newFakeSink(), nil); err != nil {
		t.Fatalf("the next sync did not refresh the refused token: %v", err)
	}
	if issued == first || ts.Refreshes() != 2 {
		t.Errorf("refreshes = %d, want 2 (one after the refusal)", ts.Refreshes())
	}
}
