package drafts

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"mailsift/config"
	"mailsift/internal/loopback"
	"mailsift/store"
)

// Envelope is the SMTP envelope of one message.
type Envelope struct {
	From string
	To   []string
}

// unpack returns the envelope and bytes of a ticket.
func unpack(t *store.SendTicket) (Envelope, []byte, error) {
	if t == nil {
		return Envelope{}, nil, permanent(errors.New("no send ticket: the message has no checked approval"))
	}
	it := t.Item()
	if it.EnvelopeFrom == "" || len(it.Recipients) == 0 || len(it.Raw) == 0 {
		return Envelope{}, nil, permanent(errors.New("send ticket without sender, recipients or message"))
	}
	return Envelope{From: it.EnvelopeFrom, To: it.Recipients}, it.Raw, nil
}

// Transport hands one approved message to a mail server. It takes a
// store.SendTicket, which only store.BeginSend creates after checking the
// approval: without one nothing can be sent. Send calls commit right
// before the point after which the server may have accepted the message
// (the end of DATA, or starting the sendmail command); if commit fails,
// Send stops without handing the message over. The returned error is nil
// (accepted), wraps ErrOutcomeUnknown, is a *PermanentError, or is
// temporary (anything else: retried with backoff).
type Transport interface {
	Send(ctx context.Context, t *store.SendTicket, commit func() error) error
	// Name describes the transport without secrets ("smtps://user@host:465").
	Name() string
}

// ErrOutcomeUnknown is wrapped by send errors after which the message may
// or may not have been accepted (connection lost after the end of DATA).
var ErrOutcomeUnknown = errors.New("send outcome unknown")

// PermanentError is a definite rejection (5xx, bad credentials, missing
// STARTTLS): retrying the same message will not help.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

func permanent(err error) error { return &PermanentError{Err: err} }

// smtpErr classifies a server reply error: 5xx permanent, else temporary.
func smtpErr(what string, err error) error {
	var se *smtp.SMTPError
	if errors.As(err, &se) && se.Code >= 500 {
		return permanent(fmt.Errorf("%s: server said %d %s", what, se.Code, se.Message))
	}
	if errors.As(err, &se) {
		return fmt.Errorf("%s: server said %d %s (temporary)", what, se.Code, se.Message)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// SMTPTLS is how the SMTP connection is protected.
type SMTPTLS int

// TLS modes: implicit TLS (smtps, 465), STARTTLS required (smtp, 587),
// plaintext (smtp+insecure, loopback only).
const (
	SMTPImplicitTLS SMTPTLS = iota
	SMTPStartTLS
	SMTPInsecure
)

// SMTP sends through an SMTP submission server with go-smtp.
type SMTP struct {
	// Host and Port of the server.
	Host string
	Port int
	TLS  SMTPTLS
	// TLSConfig overrides the TLS settings (e.g. RootCAs in tests); its
	// ServerName defaults to Host. Verification is never disabled here.
	TLSConfig *tls.Config
	// Auth is "plain" (default when Username is set), "login", "xoauth2"
	// or "oauthbearer"; for the token mechanisms Password returns a fresh
	// access token.
	Auth     string
	Username string
	// Password returns the password or OAuth token when needed.
	Password func(ctx context.Context) (string, error)
	// TokenRejected, if set, is told a bearer token the server refused
	// (xoauth2, oauthbearer), so the token source refreshes next time.
	TokenRejected func(token string)
	// LocalName is the EHLO name (default "localhost").
	LocalName string
	// Timeout bounds connect and each command (default 60 s).
	Timeout time.Duration
	// Hook, when set, is called at each step of the send (tests use it
	// to simulate crashes); an error stops the send at that point.
	Hook func(ctx context.Context, step Step) error
}

// Name returns the redacted server URL.
func (s *SMTP) Name() string {
	scheme := map[SMTPTLS]string{SMTPImplicitTLS: "smtps", SMTPStartTLS: "smtp", SMTPInsecure: "smtp+insecure"}[s.TLS]
	user := ""
	if s.Username != "" {
		user = s.Username + "@"
	}
	return fmt.Sprintf("%s://%s%s", scheme, user, net.JoinHostPort(s.Host, fmt.Sprint(s.Port)))
}

func (s *SMTP) hook(ctx context.Context, st Step) error {
	if s.Hook == nil {
		return nil
	}
	return s.Hook(ctx, st)
}

// Send delivers the ticket's message (see Transport).
func (s *SMTP) Send(ctx context.Context, t *store.SendTicket, commit func() error) error {
	env, raw, err := unpack(t)
	if err != nil {
		return err
	}
	if s.TLS == SMTPInsecure && !loopback.Is(s.Host) {
		return permanent(fmt.Errorf("smtp+insecure is only allowed to a loopback host, not %q; use smtps:// or smtp:// (STARTTLS)", s.Host))
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	if err := s.hook(ctx, StepBeforeConnect); err != nil {
		return err
	}
	c, stop, err := s.connect(ctx, timeout)
	if err != nil {
		return err
	}
	defer stop()
	if err := c.Mail(env.From, nil); err != nil {
		return smtpErr("smtp: MAIL FROM", err)
	}
	if err := s.hook(ctx, StepAfterMailFrom); err != nil {
		return err
	}
	for _, r := range env.To {
		if err := c.Rcpt(r, nil); err != nil {
			return smtpErr("smtp: RCPT TO "+r, err)
		}
	}
	w, err := c.Data()
	if err != nil {
		return smtpErr("smtp: DATA", err)
	}
	if _, err := w.Write(raw); err != nil {
		return fmt.Errorf("smtp: write message: %w", err)
	}
	if err := commit(); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		var se *smtp.SMTPError
		if errors.As(err, &se) {
			return smtpErr("smtp: end of DATA", err)
		}
		return fmt.Errorf("smtp: end of DATA: %w: %w", ErrOutcomeUnknown, err)
	}
	_ = c.Quit()
	return nil
}

// connect dials, secures and authenticates; the caller calls stop when done.
func (s *SMTP) connect(ctx context.Context, timeout time.Duration) (c *smtp.Client, cleanupFn func(), err error) {
	addr := net.JoinHostPort(s.Host, fmt.Sprint(s.Port))
	d := net.Dialer{Timeout: timeout}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("smtp: connect to %s: %w", addr, err)
	}
	stopWatch := context.AfterFunc(ctx, func() { conn.Close() })
	tcfg := &tls.Config{ServerName: s.Host, MinVersion: tls.VersionTLS12}
	if s.TLSConfig != nil {
		tcfg = s.TLSConfig.Clone()
		if tcfg.ServerName == "" {
			tcfg.ServerName = s.Host
		}
	}
	switch s.TLS {
	case SMTPImplicitTLS:
		tc := tls.Client(conn, tcfg)
		tc.SetDeadline(time.Now().Add(timeout))
		if err := tc.HandshakeContext(ctx); err != nil {
			stopWatch()
			conn.Close()
			return nil, nil, fmt.Errorf("smtp: TLS handshake with %s: %w (check the certificate, or use smtp:// with STARTTLS on port 587)", addr, err)
		}
		tc.SetDeadline(time.Time{})
		c = smtp.NewClient(tc)
	case SMTPStartTLS:
		c, err = smtp.NewClientStartTLS(conn, tcfg)
		if err != nil {
			stopWatch()
			conn.Close()
			if strings.Contains(err.Error(), "doesn't support STARTTLS") {
				return nil, nil, permanent(fmt.Errorf("smtp: %s does not offer STARTTLS, which smtp:// requires; use smtps:// (port 465)", addr))
			}
			return nil, nil, fmt.Errorf("smtp: STARTTLS with %s: %w", addr, err)
		}
	default:
		c = smtp.NewClient(conn)
	}
	cleanup := func() { stopWatch(); c.Close() }
	c.CommandTimeout = timeout
	c.SubmissionTimeout = 2 * timeout
	if s.LocalName != "" {
		if err := c.Hello(s.LocalName); err != nil {
			cleanup()
			return nil, nil, smtpErr("smtp: EHLO", err)
		}
	}
	if s.Username != "" {
		if err := s.auth(ctx, c); err != nil {
			cleanup()
			return nil, nil, err
		}
	}
	return c, cleanup, nil
}

// Check connects, secures the connection and logs in, then quits without
// sending anything: `mailsift doctor` uses it to test SMTP settings.
func (s *SMTP) Check(ctx context.Context) error {
	if s.TLS == SMTPInsecure && !loopback.Is(s.Host) {
		return permanent(fmt.Errorf("smtp+insecure is only allowed to a loopback host, not %q; use smtps:// or smtp:// (STARTTLS)", s.Host))
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	c, stop, err := s.connect(ctx, timeout)
	if err != nil {
		return err
	}
	defer stop()
	return c.Quit()
}

func (s *SMTP) auth(ctx context.Context, c *smtp.Client) error {
	if s.TLS == SMTPInsecure && !loopback.Is(s.Host) {
		return permanent(errors.New("smtp: refusing to send a password without TLS"))
	}
	pw := ""
	if s.Password != nil {
		p, err := s.Password(ctx)
		if err != nil {
			return permanent(fmt.Errorf("smtp: password: %w", err))
		}
		pw = p
	}
	mech := strings.ToLower(s.Auth)
	var cl sasl.Client
	switch mech {
	case "", "plain":
		mech, cl = "PLAIN", sasl.NewPlainClient("", s.Username, pw)
	case "login":
		mech, cl = "LOGIN", sasl.NewLoginClient(s.Username, pw)
	case "xoauth2":
		mech, cl = "XOAUTH2", &xoauth2{user: s.Username, token: pw}
	case "oauthbearer":
		mech, cl = "OAUTHBEARER", oauthBearer{sasl.NewOAuthBearerClient(&sasl.OAuthBearerOptions{Username: s.Username, Token: pw, Host: s.Host, Port: s.Port})}
	default:
		return permanent(fmt.Errorf("smtp: auth %q not supported; use plain, login, xoauth2 or oauthbearer", s.Auth))
	}
	if !c.SupportsAuth(mech) {
		return permanent(fmt.Errorf("smtp: server does not offer AUTH %s; set auth to a mechanism it supports", mech))
	}
	if err := c.Auth(cl); err != nil {
		var se *smtp.SMTPError
		if errors.As(err, &se) && se.Code == 535 {
			hint := "check the password or password_cmd"
			if mech == "XOAUTH2" || mech == "OAUTHBEARER" {
				hint = "the token was refused; sign in again with `mailsift login ACCOUNT`"
				if s.TokenRejected != nil {
					s.TokenRejected(pw)
				}
			}
			return permanent(fmt.Errorf("smtp: login as %q failed (server said %d %s); %s", s.Username, se.Code, se.Message, hint))
		}
		return smtpErr("smtp: AUTH "+mech, err)
	}
	return nil
}

type xoauth2 struct{ user, token string }

func (x *xoauth2) Start() (string, []byte, error) {
	return "XOAUTH2", []byte("user=" + x.user + "\x01auth=Bearer " + x.token + "\x01\x01"), nil
}

// Next answers the server's error challenge with an empty response.
func (x *xoauth2) Next([]byte) ([]byte, error) { return []byte{}, nil }

// oauthBearer is go-sasl's OAUTHBEARER client answering the server's error
// challenge with the dummy %x01 (RFC 7628 section 3.2.3), so the server
// ends the exchange with its 535 instead of the client abandoning it.
type oauthBearer struct{ sasl.Client }

func (o oauthBearer) Next([]byte) ([]byte, error) { return []byte{0x01}, nil }

// Sendmail pipes the message to a sendmail-compatible command (msmtp,
// sendmail, postfix's sendmail) as `COMMAND -oi -f FROM -- RCPT...`, the
// message on stdin. A -t in the command is dropped: recipients are
// computed, and Bcc is never in the headers.
type Sendmail struct {
	// Command is run with sh -c (e.g. "msmtp -a work" or "/usr/sbin/sendmail").
	Command string
	// Hook, when set, is called at each step (tests).
	Hook func(ctx context.Context, step Step) error
}

// Name returns "sendmail: COMMAND".
func (s *Sendmail) Name() string { return "sendmail: " + s.Command }

// Send runs the command (see Transport). Exit status 0 is success; 75
// (EX_TEMPFAIL), 69, 71 and 74 are temporary; other statuses are permanent;
// a killed command leaves the outcome unknown.
func (s *Sendmail) Send(ctx context.Context, t *store.SendTicket, commit func() error) error {
	env, raw, err := unpack(t)
	if err != nil {
		return err
	}
	var kept []string
	for _, f := range strings.Fields(s.Command) {
		if f != "-t" {
			kept = append(kept, f)
		}
	}
	if len(kept) == 0 {
		return permanent(errors.New("sendmail: empty command"))
	}
	if s.Hook != nil {
		if err := s.Hook(ctx, StepBeforeConnect); err != nil {
			return err
		}
	}
	args := append([]string{"-c", strings.Join(kept, " ") + ` "$@"`, "sendmail", "-oi", "-f", env.From, "--"}, env.To...)
	cmd := exec.CommandContext(ctx, "sh", args...)
	cmd.Stdin = bytes.NewReader(raw)
	cmd.Env = config.ChildEnv() // the mail password is no business of sendmail's
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	cmd.WaitDelay = 2 * time.Second
	if err := commit(); err != nil {
		return err
	}
	err = cmd.Run()
	if err == nil {
		return nil
	}
	msg := strings.TrimSpace(stderr.String())
	if len(msg) > 300 {
		msg = msg[:300]
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code := ee.ExitCode()
		if code < 0 || ctx.Err() != nil {
			return fmt.Errorf("sendmail: %q was killed: %w: %w", s.Command, ErrOutcomeUnknown, err)
		}
		e := fmt.Errorf("sendmail: %q exited with status %d: %s", s.Command, code, msg)
		switch code {
		case 69, 71, 74, 75:
			return e
		}
		return permanent(e)
	}
	return fmt.Errorf("sendmail: run %q: %w", s.Command, err)
}
