package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// InitOptions are the values `mailsift init` writes.
type InitOptions struct {
	// Name and Email are the principal.
	Name, Email string
	// AccountName names the account; empty derives it from the source host.
	AccountName string
	// Source is the account source URL.
	Source string
	// SMTP is the smtp URL (optional).
	SMTP string
	// PasswordCmd prints the password (optional; else MAILSIFT_PASSWORD is used).
	PasswordCmd string
	// Auth is the SASL mechanism ("" leaves the default).
	Auth string
	// Keyring keeps the password or refresh token in the OS keyring.
	Keyring bool
	// OAuth2Provider ("gmail", "microsoft", "custom"), OAuth2ClientID,
	// OAuth2ClientSecretCmd and OAuth2Tenant set up the built-in OAuth2
	// sign-in.
	OAuth2Provider, OAuth2ClientID, OAuth2ClientSecretCmd, OAuth2Tenant string
	// TLSInsecureSkipVerify is for loopback servers with their own
	// certificate (Proton Bridge); Validate refuses it elsewhere.
	TLSInsecureSkipVerify bool
	// Note is written as a comment above the account (e.g. where its
	// servers were found).
	Note string
	// Force overwrites an existing file.
	Force bool
}

// Render returns the commented TOML document for opts. It does not validate it.
func Render(opts InitOptions) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# mailsift configuration (TOML). Keep this file private: chmod 600.\n")
	w("# Every key below is optional unless marked required; commented values are defaults.\n\n")
	w("# The mailbox owner: triage and drafts are written for this person.\n")
	w("[principal]\n")
	w("name = %s\n", quote(opts.Name))
	w("email = %s  # required\n\n", quote(opts.Email))
	w("# One [[account]] table per account. Source URLs:\n")
	w("#   imaps://user@host[:993]      implicit TLS\n")
	w("#   imap://user@host[:143]       STARTTLS (required)\n")
	w("#   imap+insecure://user@host    plaintext, loopback hosts only\n")
	w("#   maildir://~/Mail, mbox:///path/to/file, demo://\n")
	w("# Escape @ in user names as %%40: imaps://me%%40example.com@imap.example.com\n")
	for _, line := range strings.Split(strings.TrimSpace(opts.Note), "\n") {
		if line != "" {
			w("# %s\n", strings.Map(func(r rune) rune {
				if r < 0x20 || r == 0x7f {
					return ' '
				}
				return r
			}, line))
		}
	}
	w("[[account]]\n")
	if opts.AccountName != "" {
		w("name = %s\n", quote(opts.AccountName))
	} else {
		w("# name = \"work\"            # defaults to the source host\n")
	}
	w("source = %s  # required\n", quote(opts.Source))
	w("# Sending: smtps://user@host:465, smtp://user@host:587 (STARTTLS), smtp+insecure://user@localhost,\n")
	w("# or sendmail = \"/usr/sbin/sendmail -t\" instead.\n")
	if opts.SMTP != "" {
		w("smtp = %s\n", quote(opts.SMTP))
	} else {
		w("# smtp = \"smtps://me%%40example.com@smtp.example.com:465\"\n")
	}
	w("# A command printing the password (or, with oauth2_provider, the refresh token);\n")
	w("# without it and without keyring, MAILSIFT_PASSWORD is used.\n")
	w("# Never write the password itself here.\n")
	if opts.PasswordCmd != "" {
		w("password_cmd = %s\n", quote(opts.PasswordCmd))
	} else {
		w("# password_cmd = \"pass show mail/work\"\n")
	}
	w("# keyring = true: keep the password or OAuth2 refresh token in the OS keyring\n")
	w("# (Secret Service, macOS Keychain); `mailsift login ACCOUNT` stores it.\n")
	if opts.Keyring {
		w("keyring = true\n")
	} else {
		w("# keyring = false\n")
	}
	if opts.Auth != "" {
		w("auth = %s                   # plain, login, xoauth2, oauthbearer\n", quote(opts.Auth))
	} else {
		w("# auth = \"plain\"             # plain, login, xoauth2, oauthbearer\n")
	}
	w("# Built-in OAuth2 sign-in (gmail, microsoft, or custom with the URLs below), with\n")
	w("# your own client registration (see the README); the client secret, if the\n")
	w("# provider needs one, comes from oauth2_client_secret_cmd or the keyring.\n")
	if opts.OAuth2Provider != "" {
		w("oauth2_provider = %s\n", quote(opts.OAuth2Provider))
		w("oauth2_client_id = %s\n", quote(opts.OAuth2ClientID))
	} else {
		w("# oauth2_provider = \"gmail\"\n")
		w("# oauth2_client_id = \"1234-abc.apps.googleusercontent.com\"\n")
	}
	if opts.OAuth2ClientSecretCmd != "" {
		w("oauth2_client_secret_cmd = %s\n", quote(opts.OAuth2ClientSecretCmd))
	} else {
		w("# oauth2_client_secret_cmd = \"pass show mail/gmail-client-secret\"\n")
	}
	if opts.OAuth2Tenant != "" {
		w("oauth2_tenant = %s\n", quote(opts.OAuth2Tenant))
	} else {
		w("# oauth2_tenant = \"common\"     # microsoft: your organisation's tenant id or domain\n")
	}
	w("# oauth2_auth_url = \"https://id.example.com/authorize\"    # custom provider\n")
	w("# oauth2_token_url = \"https://id.example.com/token\"\n")
	w("# oauth2_device_url = \"https://id.example.com/device\"    # device sign-in (headless)\n")
	w("# oauth2_scopes = [\"mail\"]\n")
	w("# folders = [\"INBOX\", \"Archive\"]  # default: all folders\n")
	if opts.TLSInsecureSkipVerify {
		w("tls_insecure_skip_verify = true  # loopback hosts only\n")
	} else {
		w("# tls_insecure_skip_verify = false  # loopback hosts only\n")
	}
	w("# from = \"Your Name <you@example.com>\"  # default: the principal\n")
	w("# follow_up = true            # false: this account's threads never show in \"Waiting for reply\"\n\n")
	w("# The local model server. Env OLLAMA_HOST wins over host.\n")
	w("[ollama]\n")
	w("# host = %s\n", quote(DefaultOllamaHost))
	w("# model = %s\n", quote(DefaultModel))
	w("# embed_model = \"nomic-embed-text\"  # default: none (no embeddings)\n")
	w("# parallel = %d\n", DefaultParallel)
	w("# timeout = \"120s\"\n")
	w("# num_ctx = %d\n", DefaultNumCtx)
	w("# A host that is not this machine receives every mail triaged or answered:\n")
	w("# it needs remote = true, and https:// unless allow_plain_http = true.\n")
	w("# remote = false\n")
	w("# allow_plain_http = false\n\n")
	w("[triage]\n")
	w("# enabled = true\n")
	w("# offline = false             # true: deterministic triage only, never the model\n")
	w("# token_budget = %d         # max prompt tokens per thread (0 = num_ctx)\n", DefaultTokenBudget)
	w("# max_thread_messages = %d     # newest messages sent to the model\n\n", DefaultMaxThreadMessages)
	w("[drafts]\n")
	w("# tone = %s           # neutral, friendly, formal, concise\n", quote(DefaultTone))
	w("# length = %s             # short, medium, long\n", quote(DefaultLength))
	w("# signature = \"\"\n")
	w("# language = %s            # or a tag like \"de\"\n", quote(DefaultLanguage))
	w("# never_promise = [\"discounts\", \"deadlines\"]\n")
	w("# undo_seconds = %d           # delay before a confirmed send leaves; 0 = at once\n", DefaultUndoSeconds)
	w("# approval_ttl = \"15m\"       # how long a confirmation stays valid\n\n")
	w("[follow_up]\n")
	w("# days = %d                   # a thread you wrote last shows in \"Waiting for reply\" after this many days; 0 = off\n\n", DefaultFollowUpDays)
	w("[keys]\n")
	w("# Rebind any TUI action: action = [\"key\", ...]. The actions are:\n")
	w("# %s\n", strings.Join(KeyActions, ", "))
	w("# archive = [\"e\"]\n")
	return b.String()
}

// Write renders opts, checks that the result is a valid configuration, and writes it
// to path with mode 0600, creating missing directories with mode 0700. It refuses to
// overwrite an existing file unless opts.Force is set.
func Write(path string, opts InitOptions) error {
	text := Render(opts)
	cfg := Defaults()
	if err := decodeInto(&cfg, []byte(text)); err != nil {
		return fmt.Errorf("config: init: %w", err)
	}
	if err := Validate(&cfg, func(string) string { return "" }); err != nil {
		return fmt.Errorf("config: init: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("config: create %s: %w", filepath.Dir(path), err)
	}
	if !opts.Force {
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("config: %s already exists; pass --force to overwrite it", path)
		} else if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("config: stat %s: %w", path, err)
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".config-*.toml")
	if err != nil {
		return fmt.Errorf("config: write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("config: chmod %s: %w", tmp.Name(), err)
	}
	if _, err := tmp.WriteString(text); err != nil {
		tmp.Close()
		return fmt.Errorf("config: write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("config: sync %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("config: close %s: %w", path, err)
	}
	if !opts.Force {
		// Link fails if path appeared meanwhile, so we never clobber without --force.
		if err := os.Link(tmp.Name(), path); err != nil {
			if errors.Is(err, os.ErrExist) {
				return fmt.Errorf("config: %s already exists; pass --force to overwrite it", path)
			}
			return fmt.Errorf("config: write %s: %w", path, err)
		}
		return nil
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("config: write %s: %w", path, err)
	}
	return nil
}

// quote returns s as a TOML basic string.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f || r == utf8.RuneError:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
