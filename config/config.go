// Package config loads, validates and writes mailsift's TOML configuration.
//
// Loading follows one order: defaults, then the file, then the environment, then
// validation. Every validation error names the offending key and says how to fix it.
package config

import (
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"mailsift/internal/loopback"
)

// ErrNoConfig is returned by Load when no path was given and the default config file
// does not exist. Callers fall back to the demo mailbox.
var ErrNoConfig = errors.New("config: no config file")

// DemoPrincipal is the owner of the embedded demo mailbox.
var DemoPrincipal = Principal{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}

// Defaults used when the file does not set a value.
const (
	DefaultOllamaHost        = "http://127.0.0.1:11434"
	DefaultModel             = "llama3.2:3b"
	DefaultParallel          = 2
	DefaultTimeout           = 120 * time.Second
	DefaultNumCtx            = 8192
	DefaultTokenBudget       = 6000
	DefaultMaxThreadMessages = 20
	DefaultUndoSeconds       = 10
	DefaultApprovalTTL       = 15 * time.Minute
	DefaultTone              = "neutral"
	DefaultLength            = "short"
	DefaultLanguage          = "auto"
)

// Config is the validated configuration handed to the rest of mailsift.
type Config struct {
	// Principal is the mailbox owner; triage and drafts are written for this person.
	Principal Principal
	// Accounts are the configured mail accounts, in file order.
	Accounts []Account
	// Ollama configures the local model server.
	Ollama Ollama
	// Triage configures background triage.
	Triage Triage
	// Drafts configures reply drafting and sending.
	Drafts Drafts
	// Notify configures what new mail raises.
	Notify Notify
	// Keys rebinds TUI actions ([keys]: action = ["key", ...]); an action
	// not named keeps its default keys.
	Keys map[string][]string
	// FollowUp configures the "Waiting for reply" section.
	FollowUp FollowUp
	// Path is the config file that was read ("" when none was read).
	Path string
	// DataDir holds the store, outbox and log file.
	DataDir string
	// NoConfig is true when no config file existed and the demo mailbox was chosen
	// as a fallback; the UI says how to configure a real account.
	NoConfig bool
	// Demo is true when the accounts were replaced by the embedded demo mailbox.
	Demo bool
}

// LogPath returns the log file path inside DataDir.
func (c *Config) LogPath() string { return LogPath(c.DataDir) }

// Account returns the account with the given name.
func (c *Config) Account(name string) (*Account, bool) {
	for i := range c.Accounts {
		if c.Accounts[i].Name == name {
			return &c.Accounts[i], true
		}
	}
	return nil, false
}

// Principal is the mailbox owner.
type Principal struct {
	Name  string `toml:"name"`
	Email string `toml:"email"`
}

// String formats the principal as a mail address.
func (p Principal) String() string {
	if p.Name == "" {
		return p.Email
	}
	return (&mail.Address{Name: p.Name, Address: p.Email}).String()
}

// Account is one mail account.
type Account struct {
	// Name identifies the account (unique); defaults to the source host.
	Name string `toml:"name"`
	// Source is the raw source URL as written in the file.
	Source string `toml:"source"`
	// SMTP is the raw smtp URL, if any.
	SMTP string `toml:"smtp"`
	// Sendmail is a sendmail-compatible command, as an alternative to SMTP.
	Sendmail string `toml:"sendmail"`
	// PasswordCmd prints the password (or OAuth token) on stdout; run via sh -c.
	PasswordCmd string `toml:"password_cmd"`
	// PlainPassword is a plaintext password from the file's password key
	// (discouraged; the file must then be mode 0600).
	PlainPassword string `toml:"password"`
	// Auth is the SASL mechanism: "plain" (default), "login", "xoauth2" or "oauthbearer".
	Auth string `toml:"auth"`
	// Folders limits syncing to these folders; empty means all.
	Folders []string `toml:"folders"`
	// TLSInsecureSkipVerify disables certificate checks; only allowed for loopback hosts.
	TLSInsecureSkipVerify bool `toml:"tls_insecure_skip_verify"`
	// From is the From address for replies; defaults to the principal.
	From string `toml:"from"`
	// Keyring keeps the account's secret (the password, or the OAuth2
	// refresh token) in the OS keyring instead of password_cmd.
	Keyring bool `toml:"keyring"`
	// OAuth2 is the built-in OAuth2 sign-in (empty Provider: none).
	OAuth2 OAuth2 `toml:"-"`
	// FollowUp, when false, keeps the account's threads out of "Waiting
	// for reply" (nil: on).
	FollowUp *bool `toml:"-"`

	// Src is the parsed Source URL (with ~ expanded).
	Src Source `toml:"-"`
	// Out is the parsed sending configuration.
	Out Outgoing `toml:"-"`

	env func(string) string
	// auth holds the account's OAuth2 token source, shared by every copy
	// of the Account (IMAP and SMTP refresh one token).
	auth *accountAuth
}

// HasPlaintextPassword reports whether the account holds a password in the file,
// either in a URL or in the password key.
func (a *Account) HasPlaintextPassword() bool {
	return a.PlainPassword != "" || a.Src.Password != "" || a.Out.Password != ""
}

// Ollama configures the Ollama server and models.
type Ollama struct {
	// Host is the Ollama base URL; env OLLAMA_HOST wins over the file.
	Host string `toml:"host"`
	// Model is the chat model used for triage and drafts.
	Model string `toml:"model"`
	// EmbedModel is the embedding model; empty disables embeddings.
	EmbedModel string `toml:"embed_model"`
	// Parallel is the number of concurrent requests to Ollama.
	Parallel int `toml:"parallel"`
	// Timeout bounds one model request.
	Timeout time.Duration `toml:"-"`
	// NumCtx is the context window requested from the model.
	NumCtx int `toml:"num_ctx"`
	// Remote allows a Host that is not a loopback address: every mail that
	// is triaged or answered is then sent to that machine.
	Remote bool `toml:"remote"`
	// AllowPlainHTTP allows http:// (no TLS) to a remote Host; without it a
	// remote Host must use https://.
	AllowPlainHTTP bool `toml:"allow_plain_http"`
	// HostFromEnv is true when Host came from env OLLAMA_HOST, so that errors
	// name the variable rather than the key.
	HostFromEnv bool `toml:"-"`
}

// RemoteHost returns "host:port" of a Host that is not a loopback address,
// without any credentials the URL holds, for the status bar and doctor; it
// returns "" for a loopback Host.
func (o Ollama) RemoteHost() string {
	u, err := url.Parse(o.Host)
	if err != nil || u.Host == "" || loopback.Is(u.Hostname()) {
		return ""
	}
	return u.Host
}

// Triage configures background triage.
type Triage struct {
	// Enabled turns background triage on.
	Enabled bool `toml:"enabled"`
	// Offline uses only the deterministic triage, never the model.
	Offline bool `toml:"offline"`
	// TokenBudget caps the prompt size per thread, in tokens (0 means num_ctx).
	TokenBudget int `toml:"token_budget"`
	// MaxThreadMessages caps how many messages of a thread are sent to the model (newest kept).
	MaxThreadMessages int `toml:"max_thread_messages"`
}

// Drafts configures reply drafting.
type Drafts struct {
	// Tone is "neutral", "friendly", "formal" or "concise".
	Tone string `toml:"tone"`
	// Length is "short", "medium" or "long".
	Length string `toml:"length"`
	// Signature is appended to drafts.
	Signature string `toml:"signature"`
	// Language is a language tag for drafts, or "auto" to match the thread.
	Language string `toml:"language"`
	// NeverPromise lists things drafts must never commit to (e.g. "discounts", "deadlines").
	NeverPromise []string `toml:"never_promise"`
	// UndoSeconds is the delay before a confirmed send leaves the outbox (0 = immediately).
	UndoSeconds int `toml:"undo_seconds"`
	// ApprovalTTL is how long a confirmation stays valid.
	ApprovalTTL time.Duration `toml:"-"`
}

// Defaults returns the configuration used before the file is applied.
func Defaults() Config {
	return Config{
		Ollama: Ollama{
			Host:     DefaultOllamaHost,
			Model:    DefaultModel,
			Parallel: DefaultParallel,
			Timeout:  DefaultTimeout,
			NumCtx:   DefaultNumCtx,
		},
		Triage: Triage{
			Enabled:           true,
			TokenBudget:       DefaultTokenBudget,
			MaxThreadMessages: DefaultMaxThreadMessages,
		},
		FollowUp: FollowUp{Days: DefaultFollowUpDays},
		Drafts: Drafts{
			Tone:        DefaultTone,
			Length:      DefaultLength,
			Language:    DefaultLanguage,
			UndoSeconds: DefaultUndoSeconds,
			ApprovalTTL: DefaultApprovalTTL,
		},
		Notify: Notify{NewMail: "urgent"},
	}
}

// Notify configures what new mail raises in the TUI.
type Notify struct {
	// NewMail is "off", "urgent" (a desktop notification when a thread
	// lands in Urgent; the terminal bell without a desktop) or "all"
	// (any new unread thread). The title's count shows in every case.
	NewMail string `toml:"new_mail"`
}

// LoadOptions controls Load. The zero value loads the default file with the process
// environment.
type LoadOptions struct {
	// Path is an explicit config file (--config); a missing file is then an error.
	Path string
	// Env looks up environment variables; nil means os.Getenv.
	Env func(string) string
	// DataDir overrides the data directory (--data-dir).
	DataDir string
	// Source replaces the configured accounts with one ad-hoc account (--source).
	Source string
	// PasswordCmd is the password command for the ad-hoc account (--password-cmd).
	PasswordCmd string
	// Demo replaces the accounts with the embedded demo mailbox (--demo) and the
	// principal with DemoPrincipal.
	Demo bool
}

func (o LoadOptions) env() func(string) string {
	if o.Env != nil {
		return o.Env
	}
	return os.Getenv
}

// DefaultPath returns $XDG_CONFIG_HOME/mailsift/config.toml (falling back to
// ~/.config/mailsift/config.toml).
func DefaultPath(env func(string) string) (string, error) {
	if env == nil {
		env = os.Getenv
	}
	if x := env("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "mailsift", "config.toml"), nil
	}
	home, err := homeDir(env)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".config", "mailsift", "config.toml"), nil
}

// DefaultDataDir returns $XDG_DATA_HOME/mailsift (falling back to ~/.local/share/mailsift).
func DefaultDataDir(env func(string) string) (string, error) {
	if env == nil {
		env = os.Getenv
	}
	if x := env("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "mailsift"), nil
	}
	home, err := homeDir(env)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share", "mailsift"), nil
}

// LogPath returns the log file inside dataDir.
func LogPath(dataDir string) string { return filepath.Join(dataDir, "mailsift.log") }

func homeDir(env func(string) string) (string, error) {
	if h := env("HOME"); h != "" {
		return h, nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("config: cannot find the home directory: %w; set HOME or XDG_CONFIG_HOME", err)
	}
	return h, nil
}

// Load reads, validates and returns the configuration: defaults, then the file,
// then the environment (OLLAMA_HOST), then --source/--demo, then validation.
// PrincipalEnv names the environment variable that gives the principal's
// address for an ad-hoc --source account when no config file sets one.
const PrincipalEnv = "MAILSIFT_EMAIL"

func Load(opts LoadOptions) (*Config, error) {
	env := opts.env()
	cfg := Defaults()

	path := opts.Path
	explicit := path != ""
	if !explicit {
		p, err := DefaultPath(env)
		if err != nil {
			return nil, err
		}
		path = p
	}
	path = expandHome(path, env)

	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := decodeInto(&cfg, data); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		cfg.Path = path
	case errors.Is(err, os.ErrNotExist) && !explicit:
		if opts.Source == "" && !opts.Demo {
			return nil, fmt.Errorf("%w at %s; run `mailsift init` to create one", ErrNoConfig, path)
		}
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("config file %s does not exist; check --config or run `mailsift init --config %s`", path, path)
	default:
		return nil, fmt.Errorf("config: read %s: %w", path, err)
	}

	// Environment.
	if h := env("OLLAMA_HOST"); h != "" {
		cfg.Ollama.Host = h
		cfg.Ollama.HostFromEnv = true
	}

	// Command-line replacements of the accounts.
	switch {
	case opts.Demo || IsDemoSource(opts.Source):
		cfg.Accounts = []Account{{Name: "demo", Source: "demo://"}}
		cfg.Principal = DemoPrincipal
		cfg.Demo = true
	case opts.Source != "":
		if err := checkSourceFlag(opts.Source); err != nil {
			return nil, err
		}
		acct := Account{Source: opts.Source, PasswordCmd: opts.PasswordCmd}
		cfg.Accounts = []Account{acct}
		if cfg.Principal.Email == "" {
			if src, err := ParseSource(opts.Source); err == nil {
				cfg.Principal.Email = guessEmail(src)
			}
		}
		if cfg.Principal.Email == "" {
			// A local source (maildir://, mbox://) names no user: take the
			// principal from the environment, e.g. MAILSIFT_EMAIL=you@example.com.
			cfg.Principal.Email = env(PrincipalEnv)
		}
	}

	cfg.DataDir = opts.DataDir
	if cfg.DataDir == "" {
		d, err := DefaultDataDir(env)
		if err != nil {
			return nil, err
		}
		cfg.DataDir = d
	}
	cfg.DataDir = expandHome(cfg.DataDir, env)

	if err := Validate(&cfg, env); err != nil {
		if cfg.Path != "" {
			return nil, fmt.Errorf("%s: %w", cfg.Path, err)
		}
		return nil, err
	}
	if cfg.Path != "" {
		if err := checkFileMode(&cfg); err != nil {
			return nil, err
		}
	}
	return &cfg, nil
}

// checkSourceFlag refuses a --source URL that holds a password: any user on
// the machine can read a command line in the process list.
func checkSourceFlag(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return nil // ParseSource reports a malformed URL with its fix
	}
	if _, has := u.User.Password(); !has {
		return nil
	}
	return fmt.Errorf("--source %s: the URL holds a password, which any user can read in the process list; remove \":PASSWORD\" from the URL and give the password with --password-cmd 'pass show mail' or in env %s",
		RedactURL(raw), PasswordEnv)
}

// guessEmail derives an address from a source login: the user if it looks like an
// address, else user@host.
func guessEmail(s Source) string {
	switch {
	case strings.Contains(s.User, "@"):
		return s.User
	case s.User != "" && s.Host != "":
		return s.User + "@" + s.Host
	}
	return ""
}

func checkFileMode(cfg *Config) error {
	fi, err := os.Stat(cfg.Path)
	if err != nil {
		return fmt.Errorf("config: stat %s: %w", cfg.Path, err)
	}
	if fi.Mode().Perm()&0o077 == 0 {
		return nil
	}
	for i := range cfg.Accounts {
		if cfg.Accounts[i].HasPlaintextPassword() {
			return fmt.Errorf("%s: account[%d] holds a plaintext password but the file is readable by others (mode %04o); run `chmod 600 %s`, or better, use password_cmd",
				cfg.Path, i, fi.Mode().Perm(), cfg.Path)
		}
	}
	return nil
}

func expandHome(p string, env func(string) string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := homeDir(env); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}
