// Package autoconfig finds an address's IMAP and SMTP servers for
// `mailsift init`: built-in presets for the big providers, else DNS SRV
// records (RFC 6186) and the domain's autoconfig document (Thunderbird's
// config-v1.1.xml). It only finds; the caller shows the result and asks
// before writing anything.
package autoconfig

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// Security is how a server connection is protected.
type Security string

// The kinds of protection. Plaintext servers are never proposed.
const (
	// TLS is implicit TLS from the first byte (imaps, smtps).
	TLS Security = "tls"
	// StartTLS is a plaintext connection upgraded with STARTTLS, which
	// mailsift requires.
	StartTLS Security = "starttls"
)

// Server is one found server.
type Server struct {
	Host     string
	Port     int
	Security Security
	// User is the login name ("" means the address).
	User string
}

// Addr returns host:port.
func (s Server) Addr() string { return net.JoinHostPort(s.Host, strconv.Itoa(s.Port)) }

// Result is what was found for an address.
type Result struct {
	// Email is the address looked up.
	Email string
	// IMAP and SMTP are the servers (SMTP.Host "" when none was found).
	IMAP, SMTP Server
	// Via says where the servers came from: "preset Gmail", "DNS SRV
	// records of example.org", "autoconfig https://...".
	Via string
	// OAuth2Provider is "gmail" or "microsoft" when the provider signs in
	// with OAuth2 (passwords are refused there).
	OAuth2Provider string
	// InsecureSkipVerify is set for servers on this machine with a
	// self-signed certificate (Proton Bridge).
	InsecureSkipVerify bool
	// Notes are things the user should know before accepting (an app
	// password is needed, the document came over plain http, the servers
	// are under another domain).
	Notes []string
}

// SourceURL is the account source URL for the IMAP server.
func (r Result) SourceURL() string {
	scheme := "imaps"
	if r.IMAP.Security == StartTLS {
		scheme = "imap"
	}
	return serverURL(scheme, r.user(r.IMAP), r.IMAP, map[string]int{"imaps": 993, "imap": 143})
}

// SMTPURL is the smtp URL for the SMTP server ("" when none was found).
func (r Result) SMTPURL() string {
	if r.SMTP.Host == "" {
		return ""
	}
	scheme := "smtps"
	if r.SMTP.Security == StartTLS {
		scheme = "smtp"
	}
	return serverURL(scheme, r.user(r.SMTP), r.SMTP, map[string]int{"smtps": 465, "smtp": 587})
}

func (r Result) user(s Server) string {
	if s.User != "" {
		return s.User
	}
	return r.Email
}

func serverURL(scheme, user string, s Server, defaults map[string]int) string {
	u := url.URL{Scheme: scheme, User: url.User(user), Host: s.Host}
	if s.Port != 0 && s.Port != defaults[scheme] {
		u.Host = s.Addr()
	}
	return u.String()
}

// Describe is the result as lines to show the user before writing.
func (r Result) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Found by %s:\n", r.Via)
	fmt.Fprintf(&b, "  IMAP  %s (%s)\n", r.IMAP.Addr(), describeSecurity(r.IMAP.Security))
	if r.SMTP.Host != "" {
		fmt.Fprintf(&b, "  SMTP  %s (%s)\n", r.SMTP.Addr(), describeSecurity(r.SMTP.Security))
	} else {
		b.WriteString("  SMTP  none found (replies cannot be sent until smtp is set)\n")
	}
	if r.OAuth2Provider != "" {
		fmt.Fprintf(&b, "  sign-in: OAuth2 (%s)\n", r.OAuth2Provider)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	return b.String()
}

func describeSecurity(s Security) string {
	if s == StartTLS {
		return "STARTTLS"
	}
	return "TLS"
}

// Domain returns the domain of an address, lower-cased, or an error.
func Domain(email string) (string, error) {
	at := strings.LastIndexByte(email, '@')
	if at <= 0 || at == len(email)-1 {
		return "", fmt.Errorf("%q is not an email address; write it as you@example.com", email)
	}
	d := strings.ToLower(strings.TrimSuffix(email[at+1:], "."))
	if strings.ContainsAny(d, "/?#:@[] \t") {
		return "", fmt.Errorf("%q is not an email address: its domain %q has characters a host name cannot have", email, d)
	}
	return d, nil
}
