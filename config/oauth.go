package config

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"

	"mailsift/internal/loopback"
	"mailsift/internal/oauth"
	"mailsift/internal/secrets"
)

// OAuth2 is an account's built-in OAuth2 sign-in: the provider and the
// user's own client registration there. The refresh token is kept in the
// OS keyring (keyring = true) or printed by password_cmd; never here.
type OAuth2 struct {
	// Provider is "gmail", "microsoft" or "custom" ("" = no OAuth2).
	Provider string
	// ClientID is the user's own client registration at the provider.
	ClientID string
	// ClientSecretCmd prints the client secret for providers that need
	// one (Google); without it the keyring's is used when keyring = true.
	ClientSecretCmd string
	// Tenant is the Microsoft Entra tenant (default "common").
	Tenant string
	// AuthURL, TokenURL and DeviceURL override the provider's endpoints
	// (required for "custom").
	AuthURL, TokenURL, DeviceURL string
	// Scopes override the provider's scopes.
	Scopes []string
}

// Enabled reports whether the account signs in with the built-in OAuth2.
func (o OAuth2) Enabled() bool { return o.Provider != "" }

// accountAuth is the state shared by every copy of an Account: the OAuth2
// token source, made on first use.
type accountAuth struct {
	mu  sync.Mutex
	src *oauth.Source
}

// validateSecretSource checks where the account's secret comes from:
// keyring = true, password_cmd, or (without OAuth2) a password in the
// file or the environment; and the OAuth2 settings.
func validateSecretSource(p *problems, key string, a *Account) {
	if a.Keyring && a.PasswordCmd != "" {
		p.add("%s: both keyring = true and password_cmd are set; keep one (keyring stores the secret with `mailsift login %s`)", key, a.Name)
	}
	if a.Keyring && a.PlainPassword != "" {
		p.add("%s: keyring = true and a password key are both set; remove the password key and store it with `mailsift login %s`", key, a.Name)
	}
	o := &a.OAuth2
	if !o.Enabled() {
		for _, k := range []struct{ name, v string }{{"oauth2_client_id", o.ClientID}, {"oauth2_client_secret_cmd", o.ClientSecretCmd},
			{"oauth2_tenant", o.Tenant}, {"oauth2_auth_url", o.AuthURL}, {"oauth2_token_url", o.TokenURL}, {"oauth2_device_url", o.DeviceURL}} {
			if k.v != "" {
				p.add("%s.%s: set without oauth2_provider; add oauth2_provider = \"gmail\", \"microsoft\" or \"custom\", or remove it", key, k.name)
			}
		}
		return
	}
	o.Provider = strings.ToLower(o.Provider)
	if !slices.Contains([]string{oauth.Gmail, oauth.Microsoft, oauth.Custom}, o.Provider) {
		p.add("%s.oauth2_provider: %q not supported; use \"gmail\", \"microsoft\" or \"custom\" (with oauth2_auth_url and oauth2_token_url)", key, o.Provider)
		return
	}
	if a.Auth != "xoauth2" && a.Auth != "oauthbearer" {
		p.add("%s.auth: %q does not use the OAuth2 sign-in; set auth = \"xoauth2\" or \"oauthbearer\", or remove oauth2_provider", key, a.Auth)
	}
	if strings.TrimSpace(o.ClientID) == "" {
		p.add("%s.oauth2_client_id: missing; register mailsift as a desktop app with %s (the README says how) and put its client id here", key, o.Provider)
	}
	if o.Provider == oauth.Custom && (o.AuthURL == "" || o.TokenURL == "") {
		p.add("%s: oauth2_provider = \"custom\" needs oauth2_auth_url and oauth2_token_url", key)
	}
	for _, u := range []struct{ name, v string }{{"oauth2_auth_url", o.AuthURL}, {"oauth2_token_url", o.TokenURL}, {"oauth2_device_url", o.DeviceURL}} {
		if u.v == "" {
			continue
		}
		pu, err := url.Parse(u.v)
		switch {
		case err != nil || pu.Host == "":
			p.add("%s.%s: %q is not a URL", key, u.name, RedactURL(u.v))
		case pu.Scheme == "https":
		case pu.Scheme == "http" && loopback.Is(pu.Hostname()):
		default:
			p.add("%s.%s: %q must use https:// (http:// only to a loopback host)", key, u.name, RedactURL(u.v))
		}
	}
	if !a.Keyring && a.PasswordCmd == "" {
		p.add("%s: the OAuth2 sign-in needs somewhere to keep its refresh token; set keyring = true (then run `mailsift login %s`), or password_cmd to a command printing the refresh token", key, a.Name)
	}
	if a.PlainPassword != "" || a.Src.Password != "" {
		p.add("%s: a password is set but the account signs in with OAuth2; remove it", key)
	}
}

// OAuthClient returns the account's OAuth2 client registration with its
// endpoints, reading the client secret (if any) from
// oauth2_client_secret_cmd or the keyring.
func (a *Account) OAuthClient(ctx context.Context) (oauth.Client, error) {
	o := a.OAuth2
	var prov oauth.Provider
	if o.Provider == oauth.Custom {
		prov = oauth.Provider{Name: oauth.Custom}
	} else {
		var err error
		if prov, err = oauth.Preset(o.Provider, o.Tenant); err != nil {
			return oauth.Client{}, fmt.Errorf("account %q: %w", a.Name, err)
		}
	}
	if o.AuthURL != "" {
		prov.AuthURL = o.AuthURL
	}
	if o.TokenURL != "" {
		prov.TokenURL = o.TokenURL
	}
	if o.DeviceURL != "" {
		prov.DeviceAuthURL = o.DeviceURL
	}
	if len(o.Scopes) > 0 {
		prov.Scopes = o.Scopes
	}
	c := oauth.Client{Provider: prov, ClientID: o.ClientID}
	switch {
	case o.ClientSecretCmd != "":
		s, err := runPasswordCmd(ctx, a.Name, o.ClientSecretCmd)
		if err != nil {
			return c, fmt.Errorf("oauth2_client_secret_cmd: %w", err)
		}
		c.ClientSecret = s
	case a.Keyring:
		s, err := secrets.Get(ctx, a.Name, secrets.ClientSecret)
		if err != nil && !errors.Is(err, secrets.ErrNotFound) {
			return c, err
		}
		c.ClientSecret = s // none stored: a public client
	}
	return c, nil
}

// RefreshToken returns the stored OAuth2 refresh token: from the keyring,
// or printed by password_cmd.
func (a *Account) RefreshToken(ctx context.Context) (string, error) {
	if a.Keyring {
		return secrets.Get(ctx, a.Name, secrets.RefreshToken)
	}
	if a.PasswordCmd != "" {
		return runPasswordCmd(ctx, a.Name, a.PasswordCmd)
	}
	return "", fmt.Errorf("account %q: no OAuth2 refresh token: set keyring = true and run `mailsift login %s`", a.Name, a.Name)
}

// ForgetAccessToken tells the account's OAuth2 token source that a server
// refused token, so the next Password refreshes instead of offering it
// again. Other accounts ignore it.
func (a *Account) ForgetAccessToken(token string) {
	if a.auth == nil {
		return
	}
	a.auth.mu.Lock()
	src := a.auth.src
	a.auth.mu.Unlock()
	if src != nil {
		src.Forget(token)
	}
}

// secret is Password for keyring and OAuth2 accounts.
func (a *Account) secret(ctx context.Context) (string, error) {
	if !a.OAuth2.Enabled() {
		return secrets.Get(ctx, a.Name, secrets.Password)
	}
	st := a.auth
	if st == nil {
		st = &accountAuth{}
		a.auth = st
	}
	st.mu.Lock()
	src := st.src
	st.mu.Unlock()
	if src == nil {
		c, err := a.OAuthClient(ctx)
		if err != nil {
			return "", err
		}
		rt, err := a.RefreshToken(ctx)
		if err != nil {
			if errors.Is(err, secrets.ErrNotFound) {
				return "", &oauth.RevokedError{Account: a.Name, Reason: "not signed in yet"}
			}
			return "", err
		}
		opts := oauth.SourceOptions{Account: a.Name}
		if a.Keyring {
			name := a.Name
			opts.SaveRefresh = func(ctx context.Context, rt string) error {
				return secrets.Set(ctx, name, secrets.RefreshToken, rt)
			}
		}
		st.mu.Lock()
		if st.src == nil {
			st.src = oauth.NewSource(c, rt, opts)
		}
		src = st.src
		st.mu.Unlock()
	}
	return src.AccessToken(ctx)
}
