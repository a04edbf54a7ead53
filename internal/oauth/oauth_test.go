package oauth_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"mailsift/internal/oauth"
	"mailsift/internal/testserver/oauthserver"
)

func client(s *oauthserver.Server) oauth.Client {
	return oauth.Client{
		Provider: oauth.Provider{
			Name:          oauth.Custom,
			AuthURL:       s.URL + oauthserver.AuthorizePath,
			TokenURL:      s.URL + oauthserver.TokenPath,
			DeviceAuthURL: s.URL + oauthserver.DevicePath,
			Scopes:        []string{"mail"},
		},
		ClientID:     s.ClientID,
		ClientSecret: s.ClientSecret,
	}
}

// browser plays the user's browser: it loads the sign-in URL and follows
// the redirects back to mailsift's loopback listener.
func browser(t *testing.T, tamper func(u *url.URL)) func(string) error {
	return func(raw string) error {
		u, err := url.Parse(raw)
		if err != nil {
			return err
		}
		if tamper != nil {
			tamper(u)
		}
		go func() {
			resp, err := http.Get(u.String())
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		return nil
	}
}

func TestLoginBrowserPKCE(t *testing.T) {
	s := oauthserver.Start(t, nil)
	s.SignIn("alice")
	var out bytes.Buffer
	var seen string
	open := browser(t, nil)
	tok, err := client(s).LoginBrowser(context.Background(), oauth.LoginOptions{Out: &out, OpenBrowser: func(u string) error {
		seen = u
		return open(u)
	}})
	if err != nil {
		t.Fatalf("LoginBrowser: %v\n%s", err, out.String())
	}
	if tok.AccessToken == "" || tok.RefreshToken == "" {
		t.Fatalf("token without access or refresh token: %+v", tok)
	}
	if !s.Active(tok.AccessToken) {
		t.Fatal("the server does not know the access token it issued")
	}
	u, _ := url.Parse(seen)
	q := u.Query()
	if q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) < 43 || q.Get("state") == "" {
		t.Errorf("sign-in URL lacks PKCE S256 or state: %s", seen)
	}
	redirect, _ := url.Parse(q.Get("redirect_uri"))
	if redirect.Hostname() != "127.0.0.1" {
		t.Errorf("redirect %q is not on 127.0.0.1", redirect)
	}
	if !strings.Contains(out.String(), seen) {
		t.Errorf("the URL was not printed for the user:\n%s", out.String())
	}
}

func TestLoginBrowserRefusesWrongState(t *testing.T) {
	s := oauthserver.Start(t, nil)
	s.SignIn("alice")
	var mu sync.Mutex
	var status int
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	_, err := client(s).LoginBrowser(ctx, oauth.LoginOptions{OpenBrowser: func(raw string) error {
		u, _ := url.Parse(raw)
		redirect := u.Query().Get("redirect_uri")
		// A forged redirect with a code but the wrong state.
		go func() {
			defer close(done)
			resp, err := http.Get(redirect + "?code=stolen&state=forged")
			if err == nil {
				mu.Lock()
				status = resp.StatusCode
				mu.Unlock()
				resp.Body.Close()
			}
			cancel()
		}()
		return nil
	}})
	<-done
	if err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("LoginBrowser with a forged state = %v, want it to keep waiting until cancelled", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if status != http.StatusBadRequest {
		t.Errorf("forged redirect got status %d, want 400", status)
	}
}

func TestLoginBrowserVerifierBindsCode(t *testing.T) {
	// The code is bound to the challenge in the URL: swap in another
	// challenge (what an attacker's own sign-in would carry) and the
	// exchange with mailsift's verifier is refused.
	s := oauthserver.Start(t, nil)
	s.SignIn("alice")
	_, err := client(s).LoginBrowser(context.Background(), oauth.LoginOptions{OpenBrowser: browser(t, func(u *url.URL) {
		q := u.Query()
		q.Set("code_challenge", strings.Repeat("A", 43))
		u.RawQuery = q.Encode()
	})})
	if err == nil || !strings.Contains(err.Error(), "invalid_grant") {
		t.Fatalf("exchange with a mismatched challenge = %v, want invalid_grant", err)
	}
}

func TestLoginDevice(t *testing.T) {
	s := oauthserver.Start(t, nil)
	var out bytes.Buffer
	w := &approver{s: s, buf: &out}
	tok, err := client(s).LoginDevice(context.Background(), oauth.LoginOptions{Out: w})
	if err != nil {
		t.Fatalf("LoginDevice: %v\n%s", err, out.String())
	}
	if tok.RefreshToken == "" || !s.Active(tok.AccessToken) {
		t.Fatalf("device sign-in gave %+v", tok)
	}
	if !strings.Contains(out.String(), "MAIL-") {
		t.Errorf("user code not shown:\n%s", out.String())
	}
}

// approver approves the device code as soon as mailsift prints it.
type approver struct {
	s   *oauthserver.Server
	buf *bytes.Buffer
}

var userCode = regexp.MustCompile(`MAIL-\d+`)

func (a *approver) Write(p []byte) (int, error) {
	a.buf.Write(p)
	if c := userCode.Find(p); c != nil {
		a.s.ApproveDevice(string(c), "alice")
	}
	return len(p), nil
}

func TestLoginDeviceDenied(t *testing.T) {
	s := oauthserver.Start(t, nil)
	var out bytes.Buffer
	w := writerFunc(func(p []byte) (int, error) {
		out.Write(p)
		if c := userCode.Find(p); c != nil {
			s.DenyDevice(string(c))
		}
		return len(p), nil
	})
	_, err := client(s).LoginDevice(context.Background(), oauth.LoginOptions{Out: w})
	if err == nil || !strings.Contains(err.Error(), "access_denied") {
		t.Fatalf("denied device sign-in = %v, want access_denied", err)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func signIn(t *testing.T, s *oauthserver.Server) (access, refresh string) {
	t.Helper()
	s.SignIn("alice")
	tok, err := client(s).LoginBrowser(context.Background(), oauth.LoginOptions{OpenBrowser: browser(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	return tok.AccessToken, tok.RefreshToken
}

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestSourceRefreshesBeforeExpiry(t *testing.T) {
	s := oauthserver.Start(t, &oauthserver.Options{AccessTTL: time.Hour})
	_, refresh := signIn(t, s)
	clk := &clock{t: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
	var saved []string
	src := oauth.NewSource(client(s), refresh, oauth.SourceOptions{Account: "work", Now: clk.Now,
		SaveRefresh: func(_ context.Context, r string) error { saved = append(saved, r); return nil }})
	ctx := context.Background()
	a1, err := src.AccessToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a2, _ := src.AccessToken(ctx); a2 != a1 || src.Refreshes() != 1 {
		t.Fatalf("second call refreshed again (%d refreshes)", src.Refreshes())
	}
	// 54 minutes later the token still has more than the margin left.
	clk.Add(54 * time.Minute)
	if a, _ := src.AccessToken(ctx); a != a1 {
		t.Fatal("token replaced while it had 6 minutes left")
	}
	// 56 minutes: within the 5-minute margin, so it is replaced.
	clk.Add(2 * time.Minute)
	a3, err := src.AccessToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a3 == a1 || src.Refreshes() != 2 || s.RefreshGrants() != 2 {
		t.Fatalf("token not refreshed near expiry (refreshes %d, server saw %d)", src.Refreshes(), s.RefreshGrants())
	}
	// The server rotates refresh tokens: each new one is saved.
	if len(saved) != 2 || saved[0] == refresh || saved[1] == saved[0] {
		t.Errorf("rotated refresh tokens not saved: %d saved", len(saved))
	}
	if s.Active(a1) || !s.Active(a3) {
		t.Error("the server should accept only the newest access token")
	}
}

func TestSourceRevoked(t *testing.T) {
	s := oauthserver.Start(t, nil)
	_, refresh := signIn(t, s)
	s.Revoke(refresh)
	src := oauth.NewSource(client(s), refresh, oauth.SourceOptions{Account: "work"})
	_, err := src.AccessToken(context.Background())
	var re *oauth.RevokedError
	if !errors.As(err, &re) {
		t.Fatalf("revoked grant = %v, want *RevokedError", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "mailsift login work") {
		t.Errorf("message lacks the command to sign in again: %s", msg)
	}
	if strings.Contains(msg, refresh) {
		t.Errorf("message holds the refresh token: %s", msg)
	}
}

func TestPresets(t *testing.T) {
	g, err := oauth.Preset("gmail", "")
	if err != nil || !strings.HasPrefix(g.TokenURL, "https://") || g.DeviceAuthURL != "" {
		t.Errorf("gmail preset = %+v, %v", g, err)
	}
	m, err := oauth.Preset("Microsoft", "contoso.example")
	if err != nil || !strings.Contains(m.AuthURL, "/contoso.example/") || m.DeviceAuthURL == "" {
		t.Errorf("microsoft preset = %+v, %v", m, err)
	}
	if _, err := oauth.Preset("yahoo", ""); err == nil {
		t.Error("unknown provider accepted")
	}
}
