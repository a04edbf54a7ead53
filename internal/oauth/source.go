package oauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// DefaultMargin is how long before its expiry an access token is
// replaced: long enough that a login started with it is not refused
// half-way.
const DefaultMargin = 5 * time.Minute

// DefaultLifetime is the lifetime assumed for an access token whose
// answer gave none.
const DefaultLifetime = time.Hour

// SourceOptions tune a Source; the zero value is usable.
type SourceOptions struct {
	// Account names the account in errors ("mailsift login ACCOUNT").
	Account string
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Margin is how long before expiry a token is refreshed; 0 is
	// DefaultMargin.
	Margin time.Duration
	// SaveRefresh stores a new refresh token when the provider rotates
	// it; nil keeps it in memory only.
	SaveRefresh func(ctx context.Context, refresh string) error
	// HTTPClient makes the token requests; nil is http.DefaultClient.
	HTTPClient *http.Client
	// Logger receives diagnostics (never a token); nil discards them.
	Logger *slog.Logger
}

// Source hands out access tokens for one account, refreshing them with
// the stored refresh token before they expire. It is safe for concurrent
// use; IMAP and SMTP of one account share one Source.
type Source struct {
	client Client
	opt    SourceOptions

	mu      sync.Mutex
	refresh string
	tok     *oauth2.Token
	// refreshes counts token requests (tests and logs).
	refreshes int
}

// NewSource returns a Source over refresh, a refresh token from an
// earlier sign-in. It does no IO.
func NewSource(c Client, refresh string, opt SourceOptions) *Source {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Margin <= 0 {
		opt.Margin = DefaultMargin
	}
	return &Source{client: c, opt: opt, refresh: refresh}
}

// Refreshes returns how many times the Source asked the provider for a
// new access token.
func (s *Source) Refreshes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refreshes
}

// AccessToken returns a valid access token: the cached one while it has
// more than the margin left, else a new one from the token endpoint. A
// grant the provider no longer honours (revoked, expired, password
// changed) is a *RevokedError naming the command that signs in again.
func (s *Source) AccessToken(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tok != nil && s.tok.AccessToken != "" && (s.tok.Expiry.IsZero() || s.opt.Now().Add(s.opt.Margin).Before(s.tok.Expiry)) {
		return s.tok.AccessToken, nil
	}
	if s.refresh == "" {
		return "", &RevokedError{Account: s.opt.Account, Reason: "no refresh token stored"}
	}
	hctx := ctx
	if s.opt.HTTPClient != nil {
		hctx = context.WithValue(ctx, oauth2.HTTPClient, s.opt.HTTPClient)
	}
	cfg := s.client.config("")
	s.refreshes++
	// An expired token makes the library's source refresh at once.
	tok, err := cfg.TokenSource(hctx, &oauth2.Token{RefreshToken: s.refresh}).Token()
	if err != nil {
		err = describe(err)
		var ee *EndpointError
		if errors.As(err, &ee) && (ee.Code == "invalid_grant" || ee.Code == "unauthorized_client" || ee.Code == "invalid_client") {
			return "", &RevokedError{Account: s.opt.Account, Reason: ee.Msg}
		}
		return "", fmt.Errorf("oauth2: refresh the access token: %w", err)
	}
	// The library's Expiry is from its own clock; keep the lifetime the
	// provider gave but measure it on ours.
	if sec, ok := expiresIn(tok); ok {
		tok.Expiry = s.opt.Now().Add(time.Duration(sec) * time.Second)
	} else {
		// No lifetime given: assume the usual hour rather than keep a
		// token that the server will one day refuse without a refresh.
		tok.Expiry = s.opt.Now().Add(DefaultLifetime)
	}
	if tok.RefreshToken != "" && tok.RefreshToken != s.refresh {
		s.refresh = tok.RefreshToken
		if s.opt.SaveRefresh != nil {
			if err := s.opt.SaveRefresh(ctx, tok.RefreshToken); err != nil && s.opt.Logger != nil {
				// The new access token works, so the login goes on; the
				// next start may need a new sign-in if the provider
				// dropped the old refresh token.
				s.opt.Logger.Warn("oauth2: could not store the rotated refresh token; the next start may need `mailsift login`", "account", s.opt.Account, "err", err)
			}
		}
	}
	s.tok = tok
	return tok.AccessToken, nil
}

func expiresIn(tok *oauth2.Token) (int64, bool) {
	if tok.ExpiresIn > 0 {
		return tok.ExpiresIn, true
	}
	switch v := tok.Extra("expires_in").(type) {
	case float64:
		return int64(v), v > 0
	case int64:
		return v, v > 0
	}
	return 0, false
}

// Forget drops the cached access token if it is access: a server refused
// it before its expiry (revoked, or the clocks disagree), so the next
// AccessToken asks the provider for a new one instead of offering it
// again.
func (s *Source) Forget(access string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tok != nil && s.tok.AccessToken == access {
		s.tok = nil
	}
}

// RevokedError says the provider no longer accepts the account's grant:
// only signing in again helps, so callers must not retry.
type RevokedError struct {
	Account string
	Reason  string
}

func (e *RevokedError) Error() string {
	return fmt.Sprintf("account %q: the sign-in is no longer valid (%s); sign in again with `mailsift login %s`", e.Account, e.Reason, e.Account)
}

// AuthFailure marks the error as one that only the user can fix; the
// IMAP and SMTP code stop retrying on it.
func (e *RevokedError) AuthFailure() bool { return true }
