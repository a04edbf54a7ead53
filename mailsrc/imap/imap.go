// Package imap mirrors an IMAP account into a mailsrc.Sink with
// github.com/emersion/go-imap/v2: envelopes first so the inbox shows at
// once, bodies afterwards newest first, then incremental syncs driven by
// UIDVALIDITY, UIDNEXT and (where the server has it) CONDSTORE.
//
// go-imap v2 calls take no context: every operation closes its connection
// when its context ends and reports ctx.Err().
package imap

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-sasl"

	"mailsift/internal/loopback"
	"mailsift/mailsrc"
	"mailsift/model"
)

// TLSMode says how the connection to the server is protected.
type TLSMode int

// The TLS modes.
const (
	// TLSImplicit connects with TLS from the first byte (imaps, port 993).
	TLSImplicit TLSMode = iota
	// TLSStartTLS connects in clear text and upgrades with STARTTLS,
	// failing if the server does not offer it (imap, port 143).
	TLSStartTLS
	// TLSInsecurePlain uses no encryption at all. It is refused for any
	// host that is not a loopback address (tests, local Dovecot).
	TLSInsecurePlain
)

// String returns the mode's name as used in configuration.
func (m TLSMode) String() string {
	switch m {
	case TLSImplicit:
		return "implicit"
	case TLSStartTLS:
		return "starttls"
	case TLSInsecurePlain:
		return "insecure-plain"
	}
	return fmt.Sprintf("TLSMode(%d)", int(m))
}

// Config describes one IMAP account.
type Config struct {
	Host string
	// Port defaults to 993 for TLSImplicit and 143 otherwise.
	Port     string
	Username string
	TLS      TLSMode
	// Password returns the password, or the OAuth token for the
	// "xoauth2" and "oauthbearer" mechanisms. It is called for every
	// login and its result is never logged.
	Password func(ctx context.Context) (string, error)
	// Auth is the login mechanism: "" or "login" (IMAP LOGIN command),
	// "plain" (SASL PLAIN), "xoauth2" or "oauthbearer".
	Auth string
	// TokenRejected, if set, is told the token a server refused with
	// "xoauth2" or "oauthbearer", so the token source refreshes next time.
	TokenRejected func(token string)
	// TLSConfig, if set, is used for TLS (tests pass their own CA).
	// InsecureSkipVerify is refused unless Host is a loopback address.
	TLSConfig *tls.Config
	// Folders lists the mailboxes to sync; empty means all subscribed
	// mailboxes (all mailboxes if the server reports no subscriptions).
	Folders []string
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// Dial opens the TCP connection; nil uses a net.Dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// BatchSize is the number of envelopes fetched per command (default 1000).
	BatchSize int
	// BodyBatchSize is the number of full messages fetched per command
	// (default 100).
	BodyBatchSize int
	// BodyBatchBytes bounds the mail one command fetches whole (by the
	// server's RFC822.SIZE; default 32 MB): a batch of large messages
	// is smaller, and a message larger than this comes alone.
	BodyBatchBytes int64
	// WholeBudget bounds the one-pass part of a folder's first sync (and
	// of new mail): newest first, messages are fetched whole (envelope
	// and body in one command) while the rest of the folder's new
	// messages would arrive within WholeBudget at the rate measured so
	// far; the rest then comes as envelopes first, so a large mailbox or
	// a slow link still lists every message at once, and their bodies
	// follow in the background. 0 means 2 s; negative means envelopes
	// first always.
	WholeBudget time.Duration
}

// defaultWholeBudget is Config.WholeBudget's default.
const defaultWholeBudget = 2 * time.Second

// ErrAuthFailed is wrapped by errors caused by the server rejecting the
// credentials. Callers should not retry these without user action. A
// server that cannot check credentials right now (NO [UNAVAILABLE]) is not
// ErrAuthFailed: that failure is temporary and retried.
var ErrAuthFailed = errors.New("authentication failed")

// configError is a configuration mistake that retrying cannot fix.
type configError struct{ msg string }

func (e *configError) Error() string { return e.msg }

func configErrorf(format string, args ...any) error {
	return &configError{msg: fmt.Sprintf(format, args...)}
}

// isConfigError reports errors that retrying cannot fix.
func isConfigError(err error) bool {
	var ce *configError
	return errors.As(err, &ce)
}

// maxIdleReuse is how long an idle pooled connection is trusted to be
// still alive before it is replaced by a fresh one.
const maxIdleReuse = 5 * time.Minute

// Source is one IMAP account. It implements mailsrc.Source and is safe
// for concurrent use: operations other than Watch share one connection
// and run one at a time; Watch uses its own connection.
type Source struct {
	account string
	cfg     Config
	log     *slog.Logger

	// sem serialises use of the pooled connection; it is a channel so
	// that waiting for it can be abandoned when the context ends.
	sem  chan struct{}
	conn *conn // guarded by sem
	// now is the clock the one-pass budget is measured with (tests
	// replace it).
	now func() time.Time

	// inbox is INBOX's state as the last successful Sync left it in the
	// sink (zero UIDValidity: unknown).
	inboxMu sync.Mutex
	inbox   model.MailboxState
}

func (s *Source) setSyncedInbox(st model.MailboxState) {
	s.inboxMu.Lock()
	s.inbox = st
	s.inboxMu.Unlock()
}

// inboxMovedOn reports whether INBOX as just selected differs from what
// the last sync stored: new mail (UIDNEXT), a reset (UIDVALIDITY) or, on a
// CONDSTORE server, flag changes and expunges (HIGHESTMODSEQ).
func (s *Source) inboxMovedOn(sel *imap.SelectData) bool {
	s.inboxMu.Lock()
	st := s.inbox
	s.inboxMu.Unlock()
	if sel == nil || st.UIDValidity == 0 {
		return false
	}
	return sel.UIDValidity != st.UIDValidity || uint32(sel.UIDNext) != st.UIDNext ||
		(sel.HighestModSeq != 0 && st.HighestModSeq != 0 && sel.HighestModSeq != st.HighestModSeq)
}

var _ mailsrc.Source = (*Source)(nil)

// New returns the IMAP source for account. It does no IO.
func New(account string, cfg Config) *Source {
	if cfg.Port == "" {
		if cfg.TLS == TLSImplicit {
			cfg.Port = "993"
		} else {
			cfg.Port = "143"
		}
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 1000
	}
	if cfg.BodyBatchSize <= 0 {
		cfg.BodyBatchSize = 100
	}
	if cfg.BodyBatchBytes <= 0 {
		cfg.BodyBatchBytes = 32 << 20
	}
	if cfg.WholeBudget == 0 {
		cfg.WholeBudget = defaultWholeBudget
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	log = log.With("account", account, "host", cfg.Host)
	return &Source{account: account, cfg: cfg, log: log, sem: make(chan struct{}, 1), now: time.Now}
}

// conn is one logged-in connection and what we know about its state.
type conn struct {
	c         *imapclient.Client
	caps      imap.CapSet
	selected  string // mailbox currently selected, "" if none
	condstore bool   // selected with CONDSTORE
	lastUsed  time.Time
}

func (c *conn) has(cp imap.Cap) bool { return c.caps.Has(cp) }

func (c *conn) hasIdle() bool { return c.has(imap.CapIdle) || c.has(imap.CapIMAP4rev2) }

func (c *conn) hasCondStore() bool { return c.has(imap.CapCondStore) || c.has(imap.CapQResync) }

func (c *conn) closed() bool {
	select {
	case <-c.c.Closed():
		return true
	default:
		return false
	}
}

// Close releases the pooled connection. Watch connections end with
// their context.
func (s *Source) Close() error {
	s.sem <- struct{}{}
	defer func() { <-s.sem }()
	if s.conn != nil {
		c := s.conn
		s.conn = nil
		_ = c.c.Logout().Wait()
		_ = c.c.Close()
	}
	return nil
}

func (s *Source) addr() string { return net.JoinHostPort(s.cfg.Host, s.cfg.Port) }

// checkConfig refuses configurations that would leak credentials.
func (s *Source) checkConfig() error {
	if s.cfg.Host == "" {
		return configErrorf("imap: no host configured")
	}
	if s.cfg.Password == nil {
		return configErrorf("imap: no password source configured for %s; set password_cmd", s.cfg.Username)
	}
	loop := loopback.Is(s.cfg.Host)
	switch s.cfg.TLS {
	case TLSImplicit, TLSStartTLS:
	case TLSInsecurePlain:
		if !loop {
			return configErrorf("imap: refusing unencrypted connection to non-loopback host %s; use imaps:// or STARTTLS", s.cfg.Host)
		}
	default:
		return configErrorf("imap: unknown TLS mode %d", int(s.cfg.TLS))
	}
	if s.cfg.TLSConfig != nil && s.cfg.TLSConfig.InsecureSkipVerify && !loop {
		return configErrorf("imap: refusing to skip TLS certificate verification for non-loopback host %s", s.cfg.Host)
	}
	return nil
}

func (s *Source) tlsConfig() *tls.Config {
	var tc *tls.Config
	if s.cfg.TLSConfig != nil {
		tc = s.cfg.TLSConfig.Clone()
	} else {
		tc = &tls.Config{}
	}
	if tc.ServerName == "" {
		tc.ServerName = strings.Trim(s.cfg.Host, "[]")
	}
	if tc.MinVersion == 0 {
		tc.MinVersion = tls.VersionTLS12
	}
	return tc
}

// connect dials, protects and logs in a new connection. The context
// bounds the whole handshake.
func (s *Source) connect(ctx context.Context, handler *imapclient.UnilateralDataHandler) (*conn, error) {
	if err := s.checkConfig(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dial := s.cfg.Dial
	if dial == nil {
		d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
		dial = d.DialContext
	}
	raw, err := dial(ctx, "tcp", s.addr())
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("imap: connect to %s: %w", s.addr(), err)
	}
	// Until login completes, the context ending closes the socket.
	stop := context.AfterFunc(ctx, func() { raw.Close() })
	c, err := s.handshake(ctx, raw, handler)
	if !stop() {
		if c != nil {
			c.c.Close()
		}
		raw.Close()
		return nil, ctx.Err()
	}
	if err != nil {
		raw.Close()
		return nil, err
	}
	return c, nil
}

func (s *Source) handshake(ctx context.Context, raw net.Conn, handler *imapclient.UnilateralDataHandler) (*conn, error) {
	opts := &imapclient.Options{UnilateralDataHandler: handler, TLSConfig: s.tlsConfig()}
	var (
		cl  *imapclient.Client
		err error
	)
	switch s.cfg.TLS {
	case TLSImplicit:
		tc := tls.Client(raw, opts.TLSConfig)
		if err := tc.HandshakeContext(ctx); err != nil {
			return nil, fmt.Errorf("imap: TLS handshake with %s: %w", s.addr(), err)
		}
		cl = imapclient.New(tc, opts)
	case TLSStartTLS:
		cl, err = imapclient.NewStartTLS(raw, opts)
		if err != nil {
			var ie *imap.Error
			if errors.As(err, &ie) {
				return nil, fmt.Errorf("imap: server %s does not offer STARTTLS (%s); use imaps:// or fix the server", s.addr(), ie.Text)
			}
			return nil, fmt.Errorf("imap: STARTTLS with %s: %w", s.addr(), err)
		}
	default:
		cl = imapclient.New(raw, opts)
	}
	if err := cl.WaitGreeting(); err != nil {
		cl.Close()
		return nil, fmt.Errorf("imap: greeting from %s: %w", s.addr(), err)
	}
	c := &conn{c: cl, lastUsed: time.Now()}
	if cl.State() != imap.ConnStateAuthenticated {
		if err := s.login(ctx, c); err != nil {
			cl.Close()
			return nil, err
		}
	}
	caps, err := cl.Capability().Wait()
	if err != nil {
		cl.Close()
		return nil, fmt.Errorf("imap: capability: %w", err)
	}
	c.caps = caps
	return c, nil
}

func (s *Source) login(ctx context.Context, c *conn) error {
	if c.c.Caps().Has(imap.CapLoginDisabled) && s.cfg.TLS == TLSInsecurePlain {
		return fmt.Errorf("imap: server %s disables login on unencrypted connections; use imaps:// or STARTTLS", s.addr())
	}
	secret, err := s.cfg.Password(ctx)
	if err != nil {
		if isCredentialFailure(err) {
			return fmt.Errorf("imap: log in to %s as %s: %w (%w)", s.cfg.Host, s.cfg.Username, err, ErrAuthFailed)
		}
		return fmt.Errorf("imap: get password for %s: %w", s.cfg.Username, err)
	}
	switch strings.ToLower(s.cfg.Auth) {
	case "", "login":
		err = c.c.Login(s.cfg.Username, secret).Wait()
	case "plain":
		err = c.c.Authenticate(sasl.NewPlainClient("", s.cfg.Username, secret))
	case "xoauth2":
		err = c.c.Authenticate(&xoauth2Client{user: s.cfg.Username, token: secret})
	case "oauthbearer":
		err = c.c.Authenticate(&oauthBearerClient{Client: sasl.NewOAuthBearerClient(&sasl.OAuthBearerOptions{
			Username: s.cfg.Username, Token: secret, Host: s.cfg.Host,
		})})
	default:
		return configErrorf("imap: unknown auth mechanism %q (want plain, login, xoauth2 or oauthbearer)", s.cfg.Auth)
	}
	if err != nil {
		var ie *imap.Error
		if errors.As(err, &ie) {
			text := redact(ie.Text, secret)
			if temporaryLoginFailure(ie) {
				return fmt.Errorf("imap: server %s temporarily cannot log in %s ([%s] %s); mailsift retries with backoff, or run `mailsift sync` again shortly", s.cfg.Host, s.cfg.Username, ie.Code, text)
			}
			s.tokenRejected(secret)
			return fmt.Errorf("imap: login to %s as %s failed: %s; %s: %w", s.cfg.Host, s.cfg.Username, text, s.credentialHint(), ErrAuthFailed)
		}
		return fmt.Errorf("imap: login to %s as %s: %s", s.cfg.Host, s.cfg.Username, redact(err.Error(), secret))
	}
	return nil
}

// temporaryLoginFailure reports a refused login that says the server, not
// the credentials, is the problem: RFC 5530 UNAVAILABLE (Dovecot's
// "Temporary authentication failure" while its auth process is busy),
// SERVERBUG, INUSE and LIMIT, and a BYE. These are retried with backoff.
// Every other refusal (AUTHENTICATIONFAILED, a NO without a code, EXPIRED,
// ...) is final: retrying wrong credentials can lock the account.
func temporaryLoginFailure(ie *imap.Error) bool {
	if ie.Type == imap.StatusResponseTypeBye {
		return true
	}
	switch ie.Code {
	case imap.ResponseCodeUnavailable, imap.ResponseCodeServerBug, imap.ResponseCodeInUse, imap.ResponseCodeLimit:
		return true
	}
	return false
}

// redact removes the secret from text (some servers echo input).
func redact(text, secret string) string {
	if secret == "" {
		return text
	}
	return strings.ReplaceAll(text, secret, "[redacted]")
}

// xoauth2Client is the SASL XOAUTH2 mechanism (Google, Microsoft), which
// go-sasl does not provide.
type xoauth2Client struct {
	user, token string
}

func (x *xoauth2Client) Start() (string, []byte, error) {
	return "XOAUTH2", []byte("user=" + x.user + "\x01auth=Bearer " + x.token + "\x01\x01"), nil
}

// Next answers the server's error challenge (a JSON status) with the
// dummy response, after which the server fails the exchange with a tagged
// NO. An empty response would go out as "=", which Dovecot refuses as
// invalid base64 instead of reporting the refused token.
func (x *xoauth2Client) Next(challenge []byte) ([]byte, error) {
	return saslDummy, nil
}

// withConn runs fn on the pooled connection (dialling one if needed),
// closing the connection if ctx ends meanwhile.
func (s *Source) withConn(ctx context.Context, fn func(c *conn) error) error {
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.sem }()

	c := s.conn
	if c != nil && (c.closed() || time.Since(c.lastUsed) > maxIdleReuse) {
		c.c.Close()
		c, s.conn = nil, nil
	}
	if c == nil {
		var err error
		c, err = s.connect(ctx, nil)
		if err != nil {
			return err
		}
		s.conn = c
	}
	stop := context.AfterFunc(ctx, func() { c.c.Close() })
	err := fn(c)
	c.lastUsed = time.Now()
	if !stop() {
		s.conn = nil
		c.c.Close()
		if err != nil {
			return ctx.Err()
		}
		return nil
	}
	if err != nil && !isServerError(err) {
		// The connection is in an unknown state: drop it.
		s.conn = nil
		c.c.Close()
	}
	return err
}

// isServerError reports whether err is a tagged NO/BAD reply, after
// which the connection is still usable.
func isServerError(err error) bool {
	var ie *imap.Error
	return errors.As(err, &ie)
}

// selectMailbox selects name unless it is already selected.
func (s *Source) selectMailbox(c *conn, name string, readOnly bool) (*imap.SelectData, error) {
	opts := &imap.SelectOptions{ReadOnly: readOnly, CondStore: c.hasCondStore()}
	data, err := c.c.Select(name, opts).Wait()
	if err != nil {
		c.selected = ""
		return nil, fmt.Errorf("imap: select %q: %w", name, err)
	}
	c.selected = name
	c.condstore = opts.CondStore
	return data, nil
}

// Capabilities logs in and returns the server's capabilities, sorted,
// for `mailsift doctor`.
func (s *Source) Capabilities(ctx context.Context) ([]string, error) {
	var out []string
	err := s.withConn(ctx, func(c *conn) error {
		for cp := range c.caps {
			out = append(out, string(cp))
		}
		return nil
	})
	sortStrings(out)
	return out, err
}

// CheckLogin connects and logs in, returning nil if the credentials and
// TLS settings work. It always uses a fresh connection.
func (s *Source) CheckLogin(ctx context.Context) error {
	c, err := s.connect(ctx, nil)
	if err != nil {
		return err
	}
	_ = c.c.Logout().Wait()
	c.c.Close()
	return nil
}
