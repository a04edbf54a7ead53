package imap

import (
	"errors"
	"fmt"
	"strings"

	"github.com/emersion/go-sasl"
)

// isCredentialFailure reports a password-source error that only the user
// can fix, such as an OAuth2 grant the provider revoked: the error says so
// with an AuthFailure method. Such a login is not retried.
func isCredentialFailure(err error) bool {
	var af interface{ AuthFailure() bool }
	return errors.As(err, &af) && af.AuthFailure()
}

// credentialHint says what to check after the server refused the login:
// the sign-in for the token mechanisms, the password otherwise.
func (s *Source) credentialHint() string {
	switch strings.ToLower(s.cfg.Auth) {
	case "xoauth2", "oauthbearer":
		return fmt.Sprintf("the token was refused; sign in again with `mailsift login %s`, or check password_cmd", s.account)
	}
	return "check password_cmd"
}

// saslDummy is the client's answer to a token mechanism's error challenge
// (RFC 7628 section 3.2.3: a single %x01).
var saslDummy = []byte{0x01}

// oauthBearerClient is go-sasl's OAUTHBEARER client answering the error
// challenge as RFC 7628 asks, so the server ends the exchange with a NO
// (an auth failure mailsift recognises) rather than the exchange being
// abandoned half-way.
type oauthBearerClient struct {
	sasl.Client
}

func (c *oauthBearerClient) Next(challenge []byte) ([]byte, error) {
	return saslDummy, nil
}

// tokenRejected passes a refused bearer token to Config.TokenRejected.
func (s *Source) tokenRejected(token string) {
	switch strings.ToLower(s.cfg.Auth) {
	case "xoauth2", "oauthbearer":
		if s.cfg.TokenRejected != nil {
			s.cfg.TokenRejected(token)
		}
	}
}
