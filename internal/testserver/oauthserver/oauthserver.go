// Package oauthserver runs a real OAuth2 authorization server for tests
// (github.com/go-oauth2/oauth2/v4, an independent implementation of RFC
// 6749 and PKCE, so mailsift's client is checked against code it did not
// write): the authorization-code grant with PKCE, refresh tokens that
// rotate, the device grant (RFC 8628, which go-oauth2 lacks, added here
// over the same token manager) and token introspection (RFC 7662) for
// Dovecot's oauth2 passdb. Everything listens on 127.0.0.1.
package oauthserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	goauth "github.com/go-oauth2/oauth2/v4"
	"github.com/go-oauth2/oauth2/v4/generates"
	"github.com/go-oauth2/oauth2/v4/manage"
	"github.com/go-oauth2/oauth2/v4/models"
	"github.com/go-oauth2/oauth2/v4/server"
	"github.com/go-oauth2/oauth2/v4/store"
)

// Options configure the server; nil means defaults.
type Options struct {
	// ClientID and ClientSecret register one client (defaults
	// "mailsift-test" and no secret: a public client, like a desktop app).
	ClientID, ClientSecret string
	// AccessTTL is the access tokens' lifetime (default one hour).
	AccessTTL time.Duration
}

// Server is a running authorization server.
type Server struct {
	// URL is the base URL (http://127.0.0.1:PORT).
	URL string
	// ClientID and ClientSecret are the registered client.
	ClientID, ClientSecret string

	mgr *manage.Manager
	srv *server.Server
	hs  *httptest.Server

	mu sync.Mutex
	// user is who "signs in" at the authorize endpoint.
	user string
	// devices maps device codes to their state.
	devices map[string]*device
	// refreshGrants counts refresh_token grants answered.
	refreshGrants int
	// introspections counts introspection requests.
	introspections int
}

type device struct {
	userCode string
	user     string // set when approved
	denied   bool
}

// Endpoint paths.
const (
	AuthorizePath  = "/authorize"
	TokenPath      = "/token"
	DevicePath     = "/device"
	IntrospectPath = "/introspect"
)

// Start runs a server until t ends.
func Start(t testing.TB, opts *Options) *Server {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	s := &Server{ClientID: opts.ClientID, ClientSecret: opts.ClientSecret, devices: map[string]*device{}}
	if s.ClientID == "" {
		s.ClientID = "mailsift-test"
	}
	ttl := opts.AccessTTL
	if ttl <= 0 {
		ttl = time.Hour
	}
	s.mgr = manage.NewDefaultManager()
	s.mgr.SetAuthorizeCodeTokenCfg(&manage.Config{AccessTokenExp: ttl, RefreshTokenExp: 30 * 24 * time.Hour, IsGenerateRefresh: true})
	s.mgr.SetPasswordTokenCfg(&manage.Config{AccessTokenExp: ttl, RefreshTokenExp: 30 * 24 * time.Hour, IsGenerateRefresh: true})
	s.mgr.SetRefreshTokenCfg(&manage.RefreshingConfig{AccessTokenExp: ttl, IsGenerateRefresh: true, IsRemoveAccess: true, IsRemoveRefreshing: true})
	s.mgr.MustTokenStorage(store.NewMemoryTokenStore())
	s.mgr.MapAccessGenerate(generates.NewAccessGenerate())
	// Redirects may go to any loopback port, as for installed apps.
	s.mgr.SetValidateURIHandler(func(_, redirect string) error {
		u, err := url.Parse(redirect)
		if err != nil || u.Hostname() != "127.0.0.1" {
			return fmt.Errorf("redirect %q is not a 127.0.0.1 address", redirect)
		}
		return nil
	})
	clients := store.NewClientStore()
	_ = clients.Set(s.ClientID, &models.Client{ID: s.ClientID, Secret: s.ClientSecret, Domain: "http://127.0.0.1", Public: s.ClientSecret == ""})
	s.mgr.MapClientStorage(clients)

	cfg := server.NewConfig()
	cfg.ForcePKCE = true
	cfg.AllowedCodeChallengeMethods = []goauth.CodeChallengeMethod{goauth.CodeChallengeS256}
	cfg.AllowedResponseTypes = []goauth.ResponseType{goauth.Code}
	cfg.AllowedGrantTypes = []goauth.GrantType{goauth.AuthorizationCode, goauth.Refreshing}
	s.srv = server.NewServer(cfg, s.mgr)
	// Clients may authenticate with HTTP Basic (x/oauth2 tries it first)
	// or in the form.
	s.srv.SetClientInfoHandler(func(r *http.Request) (string, string, error) {
		if id, secret, err := server.ClientBasicHandler(r); err == nil {
			return id, secret, nil
		}
		return server.ClientFormHandler(r)
	})
	s.srv.SetUserAuthorizationHandler(func(w http.ResponseWriter, r *http.Request) (string, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.user == "" {
			return "", fmt.Errorf("no user signed in")
		}
		return s.user, nil
	})

	mux := http.NewServeMux()
	mux.HandleFunc(AuthorizePath, func(w http.ResponseWriter, r *http.Request) {
		if err := s.srv.HandleAuthorizeRequest(w, r); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
		}
	})
	mux.HandleFunc(TokenPath, s.token)
	mux.HandleFunc(DevicePath, s.deviceAuth)
	mux.HandleFunc(IntrospectPath, s.introspect)
	s.hs = httptest.NewServer(mux)
	s.URL = s.hs.URL
	t.Cleanup(s.hs.Close)
	return s
}

// SignIn sets the user the authorize endpoint signs in (as if they had
// logged in and approved in the browser).
func (s *Server) SignIn(user string) {
	s.mu.Lock()
	s.user = user
	s.mu.Unlock()
}

// RefreshGrants returns how many refresh_token grants were answered.
func (s *Server) RefreshGrants() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refreshGrants
}

// Introspections returns how many introspection requests were answered.
func (s *Server) Introspections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.introspections
}

// Expire makes an access token invalid from now on, as its expiry would.
func (s *Server) Expire(access string) {
	_ = s.mgr.RemoveAccessToken(context.Background(), access)
}

// Revoke withdraws a refresh token (the user removed the app's access).
func (s *Server) Revoke(refresh string) {
	_ = s.mgr.RemoveRefreshToken(context.Background(), refresh)
}

// Active reports whether an access token is currently valid.
func (s *Server) Active(access string) bool {
	_, err := s.mgr.LoadAccessToken(context.Background(), access)
	return err == nil
}

// ApproveDevice approves the pending device sign-in with userCode as user.
func (s *Server) ApproveDevice(userCode, user string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.devices {
		if d.userCode == userCode {
			d.user = user
			return true
		}
	}
	return false
}

// DenyDevice refuses the pending device sign-in with userCode.
func (s *Server) DenyDevice(userCode string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.devices {
		if d.userCode == userCode {
			d.denied = true
		}
	}
}

const deviceGrant = "urn:ietf:params:oauth:grant-type:device_code"

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if r.FormValue("grant_type") == deviceGrant {
		s.deviceToken(w, r)
		return
	}
	if r.FormValue("grant_type") == string(goauth.Refreshing) {
		s.mu.Lock()
		s.refreshGrants++
		s.mu.Unlock()
	}
	if err := s.srv.HandleTokenRequest(w, r); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

func (s *Server) deviceAuth(w http.ResponseWriter, r *http.Request) {
	if r.FormValue("client_id") != s.ClientID {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_client"})
		return
	}
	s.mu.Lock()
	n := len(s.devices) + 1
	dc := fmt.Sprintf("device-%d-%d", n, time.Now().UnixNano())
	uc := fmt.Sprintf("MAIL-%04d", n)
	s.devices[dc] = &device{userCode: uc}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"device_code": dc, "user_code": uc, "verification_uri": s.URL + "/activate",
		"expires_in": 600, "interval": 1,
	})
}

func (s *Server) deviceToken(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	d := s.devices[r.FormValue("device_code")]
	var user string
	denied := false
	if d != nil {
		user, denied = d.user, d.denied
	}
	s.mu.Unlock()
	switch {
	case d == nil:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant"})
		return
	case denied:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "access_denied"})
		return
	case user == "":
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "authorization_pending"})
		return
	}
	ti, err := s.mgr.GenerateAccessToken(r.Context(), goauth.PasswordCredentials, &goauth.TokenGenerateRequest{
		ClientID: r.FormValue("client_id"), ClientSecret: r.FormValue("client_secret"), UserID: user, Request: r,
	})
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_client", "error_description": err.Error()})
		return
	}
	s.mu.Lock()
	delete(s.devices, r.FormValue("device_code"))
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, s.srv.GetTokenData(ti))
}

// introspect answers RFC 7662 requests (token=... in a POST form, as
// Dovecot's introspection_mode = post sends it) with active and username.
func (s *Server) introspect(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.introspections++
	s.mu.Unlock()
	tok := r.FormValue("token")
	ti, err := s.mgr.LoadAccessToken(r.Context(), tok)
	if err != nil {
		writeJSON(w, http.StatusOK, map[string]any{"active": false})
		return
	}
	exp := ti.GetAccessCreateAt().Add(ti.GetAccessExpiresIn()).Unix()
	writeJSON(w, http.StatusOK, map[string]any{
		"active": true, "username": ti.GetUserID(), "client_id": ti.GetClientID(),
		"scope": ti.GetScope(), "exp": strconv.FormatInt(exp, 10),
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// UserOf returns the user an access token was issued to, or "" when the
// token is not currently valid (for test mail servers checking tokens).
func (s *Server) UserOf(access string) string {
	ti, err := s.mgr.LoadAccessToken(context.Background(), access)
	if err != nil {
		return ""
	}
	return ti.GetUserID()
}
