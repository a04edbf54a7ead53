// Package oauth signs mail accounts in with OAuth2 (golang.org/x/oauth2):
// the authorization-code flow with PKCE (S256) and a loopback redirect on
// 127.0.0.1, the device-code flow for machines without a browser, and a
// token source that refreshes access tokens before they expire for IMAP
// (XOAUTH2, OAUTHBEARER) and SMTP.
//
// Nothing here is tied to one application registration: the client id (and
// the secret, where a provider needs one) always come from the user's own
// configuration, so no provider can revoke a shared client for everyone.
package oauth

import (
	"fmt"
	"strings"

	"golang.org/x/oauth2"
)

// Provider is an authorization server's endpoints and the scopes mail
// access needs there.
type Provider struct {
	// Name is "gmail", "microsoft" or "custom".
	Name string
	// AuthURL, TokenURL and DeviceAuthURL are the endpoints;
	// DeviceAuthURL is empty where the provider has no device flow for
	// mail scopes.
	AuthURL, TokenURL, DeviceAuthURL string
	// Scopes are requested at sign-in.
	Scopes []string
}

// Provider names.
const (
	Gmail     = "gmail"
	Microsoft = "microsoft"
	Custom    = "custom"
)

// Preset returns the built-in provider name ("gmail" or "microsoft");
// tenant is the Microsoft Entra tenant ("" means "common": personal and
// work accounts).
func Preset(name, tenant string) (Provider, error) {
	switch strings.ToLower(name) {
	case Gmail:
		// Google's device flow does not grant the mail scope, so Gmail
		// signs in through the browser only.
		return Provider{
			Name:     Gmail,
			AuthURL:  "https://accounts.google.com/o/oauth2/auth",
			TokenURL: "https://oauth2.googleapis.com/token",
			Scopes:   []string{"https://mail.google.com/"},
		}, nil
	case Microsoft:
		if tenant == "" {
			tenant = "common"
		}
		base := "https://login.microsoftonline.com/" + tenant + "/oauth2/v2.0/"
		return Provider{
			Name:          Microsoft,
			AuthURL:       base + "authorize",
			TokenURL:      base + "token",
			DeviceAuthURL: base + "devicecode",
			Scopes: []string{
				"https://outlook.office.com/IMAP.AccessAsUser.All",
				"https://outlook.office.com/SMTP.Send",
				"offline_access",
			},
		}, nil
	}
	return Provider{}, fmt.Errorf("oauth2 provider %q not known; use %q, %q or %q with its endpoint URLs", name, Gmail, Microsoft, Custom)
}

// Client is one application registration at a provider: the user's own
// client id and, for providers that require one, its secret.
type Client struct {
	Provider     Provider
	ClientID     string
	ClientSecret string
}

func (c Client) config(redirect string) *oauth2.Config {
	return &oauth2.Config{
		ClientID:     c.ClientID,
		ClientSecret: c.ClientSecret,
		Endpoint: oauth2.Endpoint{
			AuthURL:       c.Provider.AuthURL,
			TokenURL:      c.Provider.TokenURL,
			DeviceAuthURL: c.Provider.DeviceAuthURL,
		},
		RedirectURL: redirect,
		Scopes:      c.Provider.Scopes,
	}
}
