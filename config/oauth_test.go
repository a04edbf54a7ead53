package config

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mailsift/internal/oauth"
	"mailsift/internal/testserver/oauthserver"
)

func oauthAccount(extra string) string {
	return `
[principal]
email = "me@example.com"
[[account]]
name = "work"
source = "imaps://me%40example.com@imap.gmail.com"
` + extra
}

func TestOAuth2ConfigErrors(t *testing.T) {
	tests := []struct {
		name, extra, want string
	}{
		{"unknown provider", "oauth2_provider = \"yahoo\"\noauth2_client_id = \"x\"\nkeyring = true", `oauth2_provider: "yahoo" not supported`},
		{"no client id", "oauth2_provider = \"gmail\"\nkeyring = true", "oauth2_client_id: missing"},
		{"nowhere for the token", "oauth2_provider = \"gmail\"\noauth2_client_id = \"x\"", "keyring = true"},
		{"keyring and password_cmd", "keyring = true\npassword_cmd = \"pass x\"", "keep one"},
		{"client id without provider", "oauth2_client_id = \"x\"\npassword_cmd = \"pass x\"", "oauth2_client_id: set without oauth2_provider"},
		{"plain auth with provider", "oauth2_provider = \"gmail\"\noauth2_client_id = \"x\"\nkeyring = true\nauth = \"plain\"", "does not use the OAuth2 sign-in"},
		{"custom without URLs", "oauth2_provider = \"custom\"\noauth2_client_id = \"x\"\nkeyring = true", "needs oauth2_auth_url and oauth2_token_url"},
		{"http token URL off loopback", "oauth2_provider = \"custom\"\noauth2_client_id = \"x\"\nkeyring = true\noauth2_auth_url = \"https://id.example/a\"\noauth2_token_url = \"http://id.example/t\"", "must use https://"},
		{"typo", "oauth2_providr = \"gmail\"", "did you mean oauth2_provider?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, oauthAccount(tt.extra), nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load() = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestOAuth2DefaultsToXOAuth2(t *testing.T) {
	// password_cmd rather than keyring: the test must not touch the
	// machine's own keyring.
	cfg, err := load(t, oauthAccount("oauth2_provider = \"gmail\"\noauth2_client_id = \"id.apps.googleusercontent.com\"\npassword_cmd = \"echo rt\"\noauth2_client_secret_cmd = \"echo cs\""), nil)
	if err != nil {
		t.Fatal(err)
	}
	a := cfg.Accounts[0]
	if a.Auth != "xoauth2" || !a.OAuth2.Enabled() || a.Keyring {
		t.Errorf("account = auth %q, oauth2 %+v, keyring %v", a.Auth, a.OAuth2, a.Keyring)
	}
	c, err := a.OAuthClient(context.Background())
	if err != nil || c.Provider.TokenURL != "https://oauth2.googleapis.com/token" || c.ClientSecret != "cs" || c.ClientID != "id.apps.googleusercontent.com" {
		t.Errorf("OAuthClient = %+v, %v", c.Provider, err)
	}
}

// TestOAuth2PasswordIsAccessToken: with the built-in sign-in, Password
// (which IMAP and SMTP call) is a fresh access token got with the refresh
// token password_cmd prints, shared by every copy of the account.
func TestOAuth2PasswordIsAccessToken(t *testing.T) {
	as := oauthserver.Start(t, nil)
	as.SignIn("me@example.com")
	c := oauth.Client{Provider: oauth.Provider{AuthURL: as.URL + oauthserver.AuthorizePath, TokenURL: as.URL + oauthserver.TokenPath}, ClientID: as.ClientID}
	tok, err := c.LoginBrowser(context.Background(), oauth.LoginOptions{OpenBrowser: func(u string) error {
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
	rtFile := filepath.Join(t.TempDir(), "rt")
	if err := os.WriteFile(rtFile, []byte(tok.RefreshToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := load(t, oauthAccount(fmt.Sprintf("oauth2_provider = \"custom\"\noauth2_client_id = %q\noauth2_auth_url = %q\noauth2_token_url = %q\npassword_cmd = \"cat %s\"",
		as.ClientID, as.URL+oauthserver.AuthorizePath, as.URL+oauthserver.TokenPath, rtFile)), nil)
	if err != nil {
		t.Fatal(err)
	}
	copy1, copy2 := cfg.Accounts[0], cfg.Accounts[0]
	at, err := copy1.Password(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if at == tok.RefreshToken || !as.Active(at) {
		t.Fatalf("Password() is not a live access token")
	}
	at2, err := copy2.Password(context.Background())
	if err != nil || at2 != at || as.RefreshGrants() != 1 {
		t.Errorf("a copy of the account refreshed again (%d grants)", as.RefreshGrants())
	}
	// A revoked grant names the command to sign in again.
	as.Revoke(tok.RefreshToken)
	cfg2, _ := load(t, oauthAccount(fmt.Sprintf("oauth2_provider = \"custom\"\noauth2_client_id = %q\noauth2_auth_url = %q\noauth2_token_url = %q\npassword_cmd = \"cat %s\"",
		as.ClientID, as.URL+oauthserver.AuthorizePath, as.URL+oauthserver.TokenPath, rtFile)), nil)
	if _, err := cfg2.Accounts[0].Password(context.Background()); err == nil || !strings.Contains(err.Error(), "mailsift login work") {
		t.Errorf("revoked grant: Password() = %v", err)
	}
}
