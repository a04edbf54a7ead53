package config

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"mailsift/internal/loopback"
)

// TLSMode says how a network connection is protected.
type TLSMode int

const (
	// TLSNone is a plaintext connection (only allowed to loopback hosts).
	TLSNone TLSMode = iota
	// TLSImplicit is TLS from the first byte (imaps://, smtps://).
	TLSImplicit
	// TLSStartTLS is a plaintext connection upgraded with STARTTLS, which is required.
	TLSStartTLS
)

// String names the mode for logs and doctor output.
func (m TLSMode) String() string {
	switch m {
	case TLSImplicit:
		return "implicit TLS"
	case TLSStartTLS:
		return "STARTTLS"
	default:
		return "none"
	}
}

// Source is a parsed account source URL (aerc convention):
// imaps://user@host[:port], imap://user@host[:port], imap+insecure://user@host[:port],
// maildir:///path, maildir://~/Mail, mbox:///path or demo://.
type Source struct {
	// Scheme is one of "imaps", "imap", "imap+insecure", "maildir", "mbox", "demo".
	Scheme string
	// User is the URL-decoded login name ("user@example.com" for user%40example.com@host).
	User string
	// Password is a plaintext password embedded in the URL, if any. Never log it:
	// Source's String method redacts it.
	Password string
	// Host is the server host name or IP (IMAP only), without brackets.
	Host string
	// Port is the server port (IMAP only); defaults are 993 for imaps, 143 otherwise.
	Port int
	// Path is the Maildir or mbox path (may start with "~/" until expanded by Load).
	Path string
	// TLS is how the IMAP connection is protected.
	TLS TLSMode
}

const sourceSchemes = "imaps://, imap://, imap+insecure:// (loopback only), maildir://, mbox:// or demo://"

// IsNetwork reports whether the source talks to a server.
func (s Source) IsNetwork() bool { return strings.HasPrefix(s.Scheme, "imap") }

// Addr returns host:port for network sources.
func (s Source) Addr() string { return net.JoinHostPort(s.Host, strconv.Itoa(s.Port)) }

// Redacted returns the URL without any password, safe for logs and error messages.
func (s Source) Redacted() string {
	switch s.Scheme {
	case "demo":
		return "demo://"
	case "maildir", "mbox":
		return s.Scheme + "://" + s.Path
	}
	u := url.URL{Scheme: s.Scheme, Host: s.Addr()}
	if s.User != "" {
		u.User = url.User(s.User)
	}
	return u.String()
}

// String returns Redacted, so that printing a Source with %v never leaks a password.
func (s Source) String() string { return s.Redacted() }

// GoString returns Redacted, so that %#v never leaks a password either.
func (s Source) GoString() string { return "config.Source(" + s.Redacted() + ")" }

// IsDemoSource reports whether raw names the embedded demo mailbox
// (demo://). Such a source has its own owner (DemoPrincipal) and store, so
// --source demo:// is the same as --demo.
func IsDemoSource(raw string) bool {
	s, err := ParseSource(raw)
	return err == nil && s.Scheme == "demo"
}

// ParseSource parses an account source URL. Errors say what is wrong and how to fix it.
func ParseSource(raw string) (Source, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return Source{}, fmt.Errorf("empty source URL; use e.g. imaps://you%%40example.com@imap.example.com, maildir://~/Mail or demo://")
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return Source{}, fmt.Errorf("source %q is not a URL; use %s", redactRaw(raw), sourceSchemes)
	}
	scheme = strings.ToLower(scheme)
	switch scheme {
	case "demo":
		if rest != "" && rest != "/" {
			return Source{}, fmt.Errorf("demo:// takes no host or path; use demo://")
		}
		return Source{Scheme: "demo"}, nil
	case "maildir", "mbox":
		p, err := url.PathUnescape(rest)
		if err != nil {
			return Source{}, fmt.Errorf("%s path %q: %w", scheme, rest, err)
		}
		if p == "" {
			return Source{}, fmt.Errorf("%s:// needs a path; use %s:///home/you/Mail or %s://~/Mail", scheme, scheme, scheme)
		}
		if !strings.HasPrefix(p, "/") && p != "~" && !strings.HasPrefix(p, "~/") {
			return Source{}, fmt.Errorf("%s path %q is relative; use an absolute path (%s:///home/you/%s) or one starting with ~/", scheme, p, scheme, p)
		}
		return Source{Scheme: scheme, Path: p}, nil
	case "imaps", "imap", "imap+insecure":
		return parseServerURL(raw, scheme, map[string]serverScheme{
			"imaps":         {TLSImplicit, 993},
			"imap":          {TLSStartTLS, 143},
			"imap+insecure": {TLSNone, 143},
		})
	default:
		return Source{}, fmt.Errorf("scheme %q not supported; use %s", scheme, sourceSchemes)
	}
}

type serverScheme struct {
	tls  TLSMode
	port int
}

func parseServerURL(raw, scheme string, schemes map[string]serverScheme) (Source, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Source{}, fmt.Errorf("%s URL %q: %v; escape @ in the user name as %%40 (user%%40example.com@host)", scheme, redactRaw(raw), unwrapURLErr(err))
	}
	ss := schemes[scheme]
	s := Source{Scheme: scheme, TLS: ss.tls, Port: ss.port}
	if u.User != nil {
		s.User = u.User.Username()
		s.Password, _ = u.User.Password()
	}
	s.Host = u.Hostname()
	if s.Host == "" {
		return Source{}, fmt.Errorf("%s URL %q has no host; use %s://user@host", scheme, redactRaw(raw), scheme)
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return Source{}, fmt.Errorf("%s URL %q: port %q is not a number between 1 and 65535", scheme, redactRaw(raw), p)
		}
		s.Port = n
	}
	if u.Path != "" && u.Path != "/" {
		return Source{}, fmt.Errorf("%s URL %q: unexpected path %q; choose folders with the folders key instead", scheme, redactRaw(raw), u.Path)
	}
	if s.TLS == TLSNone && !loopback.Is(s.Host) {
		return Source{}, fmt.Errorf("%s:// sends the password in plaintext and is only allowed to loopback hosts (127.0.0.0/8, ::1, localhost), not %q; use %s", scheme, s.Host, secureAlternative(scheme))
	}
	return s, nil
}

func secureAlternative(scheme string) string {
	if strings.HasPrefix(scheme, "smtp") {
		return "smtps://user@host:465 or smtp://user@host:587 (STARTTLS)"
	}
	return "imaps://user@host (TLS) or imap://user@host (STARTTLS)"
}

func unwrapURLErr(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// redactRaw removes a password from a raw URL string for error messages without
// relying on the URL being parseable.
func redactRaw(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return raw
	}
	userinfo := rest[:at]
	if user, _, hasPw := strings.Cut(userinfo, ":"); hasPw {
		return scheme + "://" + user + ":xxxxx" + rest[at:]
	}
	return raw
}

// OutgoingKind says how an account sends mail.
type OutgoingKind int

const (
	// OutgoingNone means the account cannot send (read-only).
	OutgoingNone OutgoingKind = iota
	// OutgoingSMTP sends through an SMTP server.
	OutgoingSMTP
	// OutgoingSendmail pipes the message to a sendmail-compatible command.
	OutgoingSendmail
)

// Outgoing is a parsed sending configuration: an smtp URL or a sendmail command.
type Outgoing struct {
	// Kind is how mail is sent.
	Kind OutgoingKind
	// Scheme is "smtps", "smtp" or "smtp+insecure" for OutgoingSMTP.
	Scheme string
	// User is the URL-decoded SMTP login (empty means the account's source user).
	User string
	// Password is a plaintext password from the URL, if any; never log it.
	Password string
	// Host and Port are the SMTP server (defaults 465 for smtps, 587 for smtp, 25 for smtp+insecure).
	Host string
	Port int
	// TLS is how the SMTP connection is protected.
	TLS TLSMode
	// Command is the sendmail command line (run via sh -c) for OutgoingSendmail.
	Command string
}

// Addr returns host:port for SMTP.
func (o Outgoing) Addr() string { return net.JoinHostPort(o.Host, strconv.Itoa(o.Port)) }

// Redacted describes the outgoing transport without any password.
func (o Outgoing) Redacted() string {
	switch o.Kind {
	case OutgoingSMTP:
		u := url.URL{Scheme: o.Scheme, Host: o.Addr()}
		if o.User != "" {
			u.User = url.User(o.User)
		}
		return u.String()
	case OutgoingSendmail:
		return "sendmail: " + o.Command
	default:
		return "none"
	}
}

// String returns Redacted.
func (o Outgoing) String() string { return o.Redacted() }

// GoString returns Redacted.
func (o Outgoing) GoString() string { return "config.Outgoing(" + o.Redacted() + ")" }

// ParseSMTP parses an smtp URL: smtps://user@host:465 (implicit TLS),
// smtp://user@host:587 (STARTTLS required) or smtp+insecure://user@host (loopback only).
func ParseSMTP(raw string) (Outgoing, error) {
	raw = strings.TrimSpace(raw)
	scheme, _, ok := strings.Cut(raw, "://")
	if !ok {
		return Outgoing{}, fmt.Errorf("smtp %q is not a URL; use smtps://user@host:465, smtp://user@host:587 (STARTTLS) or smtp+insecure://user@localhost (loopback only)", redactRaw(raw))
	}
	scheme = strings.ToLower(scheme)
	schemes := map[string]serverScheme{
		"smtps":         {TLSImplicit, 465},
		"smtp":          {TLSStartTLS, 587},
		"smtp+insecure": {TLSNone, 25},
	}
	if _, ok := schemes[scheme]; !ok {
		return Outgoing{}, fmt.Errorf("scheme %q not supported; use smtps://user@host:465, smtp://user@host:587 (STARTTLS) or smtp+insecure://user@localhost (loopback only)", scheme)
	}
	s, err := parseServerURL(raw, scheme, schemes)
	if err != nil {
		return Outgoing{}, err
	}
	return Outgoing{Kind: OutgoingSMTP, Scheme: s.Scheme, User: s.User, Password: s.Password, Host: s.Host, Port: s.Port, TLS: s.TLS}, nil
}
