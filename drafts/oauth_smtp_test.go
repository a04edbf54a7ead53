package drafts

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"mailsift/internal/oauth"
	"mailsift/internal/testserver/oauthserver"
)

// oauthSession is the test SMTP session accepting only bearer tokens that
// the authorization server says belong to the login user.
type oauthSession struct {
	*smtpSession
	as *oauthserver.Server
}

type oauthBackend struct {
	*smtpBackend
	as *oauthserver.Server
}

func (b *oauthBackend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	s, _ := b.smtpBackend.NewSession(c)
	return &oauthSession{smtpSession: s.(*smtpSession), as: b.as}, nil
}

func (s *oauthSession) AuthMechanisms() []string { return []string{"XOAUTH2", sasl.OAuthBearer} }

func (s *oauthSession) check(user, token string) error {
	if user == "" || s.as.UserOf(token) != user {
		return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "invalid token"}
	}
	s.user = user
	return nil
}

func (s *oauthSession) Auth(mech string) (sasl.Server, error) {
	switch mech {
	case sasl.OAuthBearer:
		return refuse535{sasl.NewOAuthBearerServer(func(o sasl.OAuthBearerOptions) *sasl.OAuthBearerError {
			if s.check(o.Username, o.Token) != nil {
				return &sasl.OAuthBearerError{Status: "invalid_token"}
			}
			return nil
		})}, nil
	case "XOAUTH2":
		return xoauth2Server(s.check), nil
	}
	return nil, errors.New("unsupported mechanism")
}

// refuse535 ends a failed exchange with 535, as submission servers do
// (go-smtp's default for other errors is 454).
type refuse535 struct{ sasl.Server }

func (r refuse535) Next(resp []byte) ([]byte, bool, error) {
	ch, done, err := r.Server.Next(resp)
	var oe *sasl.OAuthBearerError
	if errors.As(err, &oe) {
		err = &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "invalid token"}
	}
	return ch, done, err
}

// xoauth2Server parses "user=U\x01auth=Bearer T\x01\x01".
type xoauth2Server func(user, token string) error

func (f xoauth2Server) Next(resp []byte) ([]byte, bool, error) {
	var user, token string
	for _, kv := range bytes.Split(resp, []byte{1}) {
		switch {
		case bytes.HasPrefix(kv, []byte("user=")):
			user = string(kv[5:])
		case bytes.HasPrefix(kv, []byte("auth=Bearer ")):
			token = string(kv[12:])
		}
	}
	return nil, true, f(user, token)
}

// startOAuthSMTP serves be with STARTTLS on 127.0.0.1.
func startOAuthSMTP(t *testing.T, be *oauthBackend) *testSMTP {
	t.Helper()
	srv := smtp.NewServer(be)
	srv.Domain = "localhost"
	srv.ErrorLog = log.New(io.Discard, "", 0)
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	cert, pool := testCert(t)
	srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return &testSMTP{be: be.smtpBackend, host: "127.0.0.1", port: ln.Addr().(*net.TCPAddr).Port, pool: pool}
}

func TestSMTPOAuth2(t *testing.T) {
	as := oauthserver.Start(t, nil)
	as.SignIn("alice@example.org")
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
	src := oauth.NewSource(c, tok.RefreshToken, oauth.SourceOptions{Account: "work"})
	be := &oauthBackend{smtpBackend: &smtpBackend{}, as: as}
	ts2 := startOAuthSMTP(t, be)
	for _, mech := range []string{"xoauth2", "oauthbearer"} {
		t.Run(mech, func(t *testing.T) {
			tr := ts2.transport("starttls")
			tr.Auth, tr.Username, tr.Password = mech, "alice@example.org", src.AccessToken
			if err := tr.Check(context.Background()); err != nil {
				t.Fatalf("SMTP login with %s: %v", mech, err)
			}
			tr.Password = func(context.Context) (string, error) { return "stale-token", nil }
			var rejected string
			tr.TokenRejected = func(tok string) { rejected = tok }
			err := tr.Check(context.Background())
			if rejected != "stale-token" {
				t.Errorf("the refused token was not passed on to be forgotten (got %q)", rejected)
			}
			var pe *PermanentError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), "mailsift login") || strings.Contains(err.Error(), "stale-token") {
				t.Errorf("refused token = %v, want a permanent error naming mailsift login, without the token", err)
			}
		})
	}
	// A revoked grant is permanent: the outbox must not retry it.
	as.Revoke(tok.RefreshToken)
	tr := ts2.transport("starttls")
	tr.Auth, tr.Username = "xoauth2", "alice@example.org"
	tr.Password = oauth.NewSource(c, tok.RefreshToken, oauth.SourceOptions{Account: "work"}).AccessToken
	var pe *PermanentError
	if err := tr.Check(context.Background()); !errors.As(err, &pe) || !strings.Contains(err.Error(), "mailsift login work") {
		t.Errorf("revoked grant over SMTP = %v, want a permanent error naming mailsift login work", err)
	}
}
