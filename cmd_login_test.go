package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"mailsift/config"
	"mailsift/internal/secrets"
	"mailsift/internal/testserver/oauthserver"
	"mailsift/internal/testserver/secretservice"
)

// browserWriter plays the user: when mailsift prints the sign-in URL, it
// "opens" it (follows the provider's redirect back to mailsift).
type browserWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

var signInURL = regexp.MustCompile(`http://127\.0\.0\.1:\d+/authorize\?\S+`)

func (b *browserWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if m := signInURL.Find(p); m != nil {
		u := string(m) // p is the caller's buffer: copy before it is reused
		go func() {
			if r, err := http.Get(u); err == nil {
				r.Body.Close()
			}
		}()
	}
	return len(p), nil
}

func (b *browserWriter) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestLoginPrintsRefreshTokenForPasswordCmd(t *testing.T) {
	as := oauthserver.Start(t, nil)
	as.SignIn("me@example.org")
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.toml")
	rtFile := filepath.Join(dir, "rt")
	cfg := fmt.Sprintf(`[principal]
email = "me@example.org"
[[account]]
name = "work"
source = "imap+insecure://me%%40example.org@127.0.0.1:1"
oauth2_provider = "custom"
oauth2_client_id = %q
oauth2_auth_url = %q
oauth2_token_url = %q
password_cmd = "cat %s"
`, as.ClientID, as.URL+oauthserver.AuthorizePath, as.URL+oauthserver.TokenPath, rtFile)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": dir}
	var out bytes.Buffer
	errw := &browserWriter{}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard against a hang, not a timing
	defer cancel()
	code := run(ctx, []string{"--config", cfgPath, "login", "work", "--print-refresh-token"}, strings.NewReader(""), &out, errw, func(k string) string { return env[k] })
	if code != 0 {
		t.Fatalf("login: exit %d\n%s", code, errw.String())
	}
	rt := strings.TrimSpace(out.String())
	if rt == "" || strings.Contains(errw.String(), rt) {
		t.Fatalf("refresh token not printed on stdout alone (stdout %d bytes)", len(rt))
	}
	// Stored where password_cmd reads it, the account works.
	if err := os.WriteFile(rtFile, []byte(rt+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(config.LoadOptions{Path: cfgPath, Env: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	at, err := c.Accounts[0].Password(context.Background())
	if err != nil || as.UserOf(at) != "me@example.org" {
		t.Fatalf("access token from the printed refresh token: %v", err)
	}
}

func TestLoginErrors(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfgPath, []byte("[principal]\nemail = \"me@example.org\"\n[[account]]\nname = \"work\"\nsource = \"maildir://~/Mail\"\npassword_cmd = \"pass x\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": dir}
	r := runWith(t, env, "", "--config", cfgPath, "login", "home")
	if r.code != 2 || !strings.Contains(r.stderr, `no account "home"`) || !strings.Contains(r.stderr, "work") {
		t.Errorf("login of an unknown account: %+v", r)
	}
	r = runWith(t, env, "", "--config", cfgPath, "login", "work")
	if r.code != 1 || !strings.Contains(r.stderr, "nothing to sign in") {
		t.Errorf("login of a password_cmd account: %+v", r)
	}
}

func TestInitPresetAsksBeforeWriting(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "cfg")}
	path := filepath.Join(home, "cfg", "mailsift", "config.toml")
	r := runWith(t, env, "", "init", "--email", "me@fastmail.com", "--password-cmd", "pass show fm")
	if r.code != 2 || !strings.Contains(r.stdout, "imap.fastmail.com:993") || !strings.Contains(r.stderr, "--yes") {
		t.Fatalf("init without --yes: %+v", r)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("init wrote the file without being asked to: %v", err)
	}
	r = runWith(t, env, "", "init", "--email", "me@fastmail.com", "--password-cmd", "pass show fm", "--yes")
	if r.code != 0 {
		t.Fatalf("init --yes: %+v", r)
	}
	cfg, err := config.Load(config.LoadOptions{Env: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	a := cfg.Accounts[0]
	if a.Src.Host != "imap.fastmail.com" || a.Src.User != "me@fastmail.com" || a.Out.Host != "smtp.fastmail.com" || a.Out.Port != 465 {
		t.Errorf("written account = %s, %s", a.Src, a.Out)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "# preset Fastmail") {
		t.Errorf("config does not say where the servers came from:\n%s", data)
	}
	// Proton Bridge: loopback servers with their own certificate.
	r = runWith(t, env, "", "init", "--email", "me@proton.me", "--password-cmd", "pass show bridge", "--yes", "--force")
	if r.code != 0 {
		t.Fatalf("init proton: %+v", r)
	}
	cfg, err = config.Load(config.LoadOptions{Env: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if a := cfg.Accounts[0]; a.Src.Port != 1143 || !a.TLSInsecureSkipVerify {
		t.Errorf("proton account = %s, skip verify %v", a.Src, a.TLSInsecureSkipVerify)
	}
}

// TestLoginKeyring: the only test in this binary that starts a Secret
// Service (godbus keeps its first session bus for the process). The
// refresh token goes to the keyring, never the config; the account's
// Password then refreshes from it, and a rotated token replaces it there.
func TestLoginKeyring(t *testing.T) {
	secretservice.Start(t)
	as := oauthserver.Start(t, nil)
	as.SignIn("me@example.org")
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.toml")
	cfg := fmt.Sprintf(`[principal]
email = "me@example.org"
[[account]]
name = "kr-work"
source = "imap+insecure://me%%40example.org@127.0.0.1:1"
oauth2_provider = "custom"
oauth2_client_id = %q
oauth2_auth_url = %q
oauth2_token_url = %q
keyring = true
`, as.ClientID, as.URL+oauthserver.AuthorizePath, as.URL+oauthserver.TokenPath)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": dir}
	var out bytes.Buffer
	errw := &browserWriter{}
	lctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard against a hang, not a timing
	defer cancel()
	code := run(lctx, []string{"--config", cfgPath, "login", "kr-work"}, strings.NewReader(""), &out, errw, func(k string) string { return env[k] })
	if code != 0 {
		t.Fatalf("login: exit %d\n%s", code, errw.String())
	}
	ctx := context.Background()
	rt, err := secrets.Get(ctx, "kr-work", secrets.RefreshToken)
	if err != nil || rt == "" {
		t.Fatalf("refresh token not in the keyring: %v", err)
	}
	if data, _ := os.ReadFile(cfgPath); strings.Contains(string(data), rt) || strings.Contains(out.String()+errw.String(), rt) {
		t.Fatal("the refresh token leaked into the config or the output")
	}
	c, err := config.Load(config.LoadOptions{Path: cfgPath, Env: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	at, err := c.Accounts[0].Password(ctx)
	if err != nil || as.UserOf(at) != "me@example.org" {
		t.Fatalf("Password from the keyring's refresh token: %v", err)
	}
	rotated, err := secrets.Get(ctx, "kr-work", secrets.RefreshToken)
	if err != nil || rotated == rt {
		t.Errorf("the rotated refresh token was not saved to the keyring (%v)", err)
	}
	// A keyring password account: login reads the password from stdin.
	pwCfg := filepath.Join(dir, "pw.toml")
	if err := os.WriteFile(pwCfg, []byte("[principal]\nemail = \"me@example.org\"\n[[account]]\nname = \"kr-home\"\nsource = \"imaps://me%40example.org@imap.example.org\"\nkeyring = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runWith(t, env, "s3cret-home\n", "--config", pwCfg, "login", "kr-home")
	if r.code != 0 {
		t.Fatalf("login kr-home: %+v", r)
	}
	c, err = config.Load(config.LoadOptions{Path: pwCfg, Env: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if pw, err := c.Accounts[0].Password(ctx); err != nil || pw != "s3cret-home" {
		t.Errorf("Password() from the keyring = %q, %v", pw, err)
	}
}
